/**
 * The redirect URI of one sign-in (RFC 8252 §7.3): an HTTP listener on 127.0.0.1, bound for that
 * one flow and closed after it. It takes exactly one authorization response on `/callback` whose
 * `state` is the flow's; any other request (a wrong state, a stray page load) gets an error page
 * and leaves the flow waiting. The browser gets a short page saying it can be closed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthorizationResponse {
  code: string;
  /** RFC 9207's `iss`, checked against the authorization server by the SDK. */
  iss: string | undefined;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:system-ui;margin:3rem"><h1>${title}</h1><p>${text}</p></body>`;

export class LoopbackRedirect {
  #settle!: { resolve(response: AuthorizationResponse): void; reject(error: Error): void };
  readonly response: Promise<AuthorizationResponse>;

  private constructor(
    private readonly server: Server,
    readonly state: string,
  ) {
    this.response = new Promise((resolve, reject) => (this.#settle = { resolve, reject }));
    // Nobody may be waiting yet (the browser is still opening): a rejection is read later.
    this.response.catch(() => {});
    server.on('request', (request, reply) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const send = (status: number, title: string, text: string) => {
        reply.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        reply.end(PAGE(title, text));
      };
      if (url.pathname !== '/callback') return send(404, 'Not found', 'This address only takes the answer of a Capstan sign-in.');
      if (url.searchParams.get('state') !== state) return send(400, 'Sign-in not accepted', 'The answer does not belong to the sign-in Capstan is waiting for (its state differs).');
      const error = url.searchParams.get('error');
      if (error) {
        const description = url.searchParams.get('error_description');
        send(400, 'Sign-in refused', 'The authorization server refused the sign-in. Capstan shows why.');
        return this.#settle.reject(new Error(`the authorization server refused the sign-in: ${error}${description ? ` (${description})` : ''}`));
      }
      const code = url.searchParams.get('code');
      if (!code) return send(400, 'Sign-in not accepted', 'The answer carries no authorization code.');
      send(200, 'Signed in', 'Capstan has the answer; you can close this tab.');
      this.#settle.resolve({ code, iss: url.searchParams.get('iss') ?? undefined });
    });
  }

  /** Listens on 127.0.0.1 at `port` (the one the registered redirect URI names), or any free port. */
  static async listen(state: string, port = 0): Promise<LoopbackRedirect> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new LoopbackRedirect(server, state);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  /** The authorization response, or an error once `timeoutMs` passes without one. */
  async wait(timeoutMs: number): Promise<AuthorizationResponse> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s; sign in again`)), timeoutMs);
    });
    try {
      return await Promise.race([this.response, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#settle.reject(new Error('the sign-in was closed'));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
