/**
 * A loopback proxy that adds `Authorization: Bearer <token>` to every request, for clients that
 * cannot send one (the MCP conformance runner). Everything else passes through untouched, except
 * that a `Host` or `Origin` naming the proxy is made to name the gateway behind it, so the
 * gateway's own Host and Origin checks judge the request as if it had come straight to it (a
 * foreign name stays foreign). Bodies stream both ways, so SSE answers arrive as they are sent.
 */
import { createServer, request as forward, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthProxy {
  url: string;
  close(): Promise<void>;
}

export async function startAuthProxy(target: string, token: string): Promise<AuthProxy> {
  const upstream = new URL(target);
  let ownPort = 0;
  const retarget = (value: string | undefined, withScheme: boolean) => {
    if (value === undefined) return undefined;
    try {
      const url = new URL(withScheme ? value : `http://${value}`);
      if (Number(url.port) !== ownPort) return value;
      url.port = upstream.port;
      return withScheme ? url.origin : url.host;
    } catch {
      return value;
    }
  };
  const server = createServer((incoming, outgoing) => {
    const headers: IncomingHttpHeaders = { ...incoming.headers, authorization: `Bearer ${token}` };
    const host = retarget(incoming.headers.host, false);
    const origin = retarget(incoming.headers.origin, true);
    if (host === undefined) delete headers.host;
    else headers.host = host;
    if (origin !== undefined) headers.origin = origin;
    const proxied = forward(
      { hostname: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers, setHost: false },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.destroy());
    outgoing.on('close', () => proxied.destroy());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ownPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${ownPort}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
