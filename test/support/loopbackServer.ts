/** A loopback HTTP server that records what reaches it, as the target of http_check. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  url: string;
  hits: { method: string; url: string }[];
  close(): Promise<void>;
}

export async function startLoopbackServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', server: 'loopback-test' });
    res.end('ok');
  },
): Promise<LoopbackServer> {
  const hits: LoopbackServer['hits'] = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '' });
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
