/**
 * A URL server, and authorization servers, that do not play fair with Capstan's OAuth: small
 * HTTP servers on loopback written for it, which record what reaches them.
 *
 * - A sign-in page that is not a web page (`search-ms:` here) is never opened nor offered: the
 *   sign-in fails saying so.
 * - A server whose metadata names another authorization server than the one that issued its
 *   tokens does not get them: a sign-out revokes only at the issuer, and so never sends the
 *   refresh token and the client's secret to the newcomer.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isWebAddress } from '../../shared/webAddress';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { send } from '../support/mcp';

interface Seen {
  server: string;
  method: string;
  path: string;
  authorization: string | null;
  body: string;
}

const seen: Seen[] = [];
const servers: Server[] = [];
let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  seen.length = 0;
});

/** A loopback HTTP server that records every request and answers with `handle`; resolves with its origin. */
async function recording(name: string, handle: (request: IncomingMessage, response: ServerResponse, origin: string) => void): Promise<string> {
  let origin = '';
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ server: name, method: request.method ?? '', path: request.url ?? '', authorization: request.headers.authorization ?? null, body });
      handle(request, response, origin);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return origin;
}

const json = (response: ServerResponse, status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** Authorization server metadata, with `extra` over the defaults. */
const metadataOf = (origin: string, extra: Record<string, unknown> = {}) => ({
  issuer: origin,
  authorization_endpoint: `${origin}/authorize`,
  token_endpoint: `${origin}/token`,
  registration_endpoint: `${origin}/register`,
  revocation_endpoint: `${origin}/revoke`,
  response_types_supported: ['code'],
  code_challenge_methods_supported: ['S256'],
  ...extra,
});

function authorizationServer(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  return recording(name, (request, response, origin) => {
    if (request.url?.startsWith('/.well-known/')) return json(response, 200, metadataOf(origin, extra));
    if (request.url === '/register') return json(response, 201, { client_id: `${name}-client`, redirect_uris: [] });
    if (request.url === '/revoke') return void response.writeHead(200).end();
    json(response, 400, { error: 'invalid_request' });
  });
}

/** An MCP server that answers every request 401, its protected resource metadata naming `authorizationServers()`. */
function protectedServer(authorizationServers: () => string[]): Promise<string> {
  return recording('mcp', (request, response, origin) => {
    if (request.url?.startsWith('/.well-known/oauth-protected-resource')) return json(response, 200, { resource: `${origin}/mcp`, authorization_servers: authorizationServers() });
    response.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` }).end();
  });
}

/** A data dir where Capstan signed in to `mcp` at `issuer` before (its token file, unsealed), as a gateway leaves it. */
function signedInAt(issuer: string, mcp: string): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-oauth-hostile-'));
  mkdirSync(join(dataDir, 'oauth'), { mode: 0o700 });
  const record = {
    clients: {},
    tokens: { access_token: 'AT-ISSUED', token_type: 'Bearer', refresh_token: 'RT-ISSUED', issuer },
    savedAt: Date.now(),
    discovery: { authorizationServerUrl: issuer, resourceMetadata: { resource: `${mcp}/mcp`, authorization_servers: [issuer] }, authorizationServerMetadata: metadataOf(issuer) },
  };
  writeFileSync(join(dataDir, 'oauth', 'evil.json'), JSON.stringify({ version: 1, encryption: 'none', data: Buffer.from(JSON.stringify(record)).toString('base64') }), { mode: 0o600 });
  return dataDir;
}

describe('where Capstan sends a person or a credential on a server’s word', () => {
  it('takes https addresses and http on this machine only', () => {
    for (const url of ['https://login.example/authorize', 'http://127.0.0.1:8080/authorize', 'http://localhost/a', 'http://[::1]:9/a']) expect(isWebAddress(new URL(url)), url).toBe(true);
    for (const url of ['http://login.example/authorize', 'http://localhost.example/a', 'search-ms:query=x', 'file:///etc/passwd', 'smb://host/share', 'javascript:alert(1)']) expect(isWebAddress(new URL(url)), url).toBe(false);
  });

  it('never opens a sign-in page that is not a web page: the sign-in fails saying so', async () => {
    const as = await authorizationServer('as', { authorization_endpoint: 'search-ms:query=invoice&crumb=location:\\\\127.0.0.1\\share' });
    const mcp = await protectedServer(() => [as]);
    const opened: string[] = [];
    gw = await startTestGateway({ config: { mcpServers: { evil: { url: `${mcp}/mcp` } } }, host: { presentSignIn: (_server, url) => void opened.push(url) } });
    const { status, body } = await send(gw, 'POST', '/mcp-servers/evil/sign-in');
    expect(status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(body)).toContain('is not an https address (search-ms:)');
    expect(opened).toEqual([]);
    const auth = (await send(gw, 'GET', '/mcp-servers/evil/auth')).body;
    expect(auth).toMatchObject({ authorizationUrl: null, lastError: { reason: expect.stringContaining('not an https address') } });
  });

  it("revokes a server's tokens only at the authorization server that issued them, even once its metadata names another", async () => {
    const issuer = await authorizationServer('issuer');
    // The newcomer makes the SDK give up before anything else (no S256), so the old tokens stay.
    const newcomer = await authorizationServer('newcomer', { code_challenge_methods_supported: ['plain'] });
    let named = issuer;
    const mcp = await protectedServer(() => [named]);
    const dataDir = signedInAt(issuer, mcp);
    named = newcomer;
    gw = await startTestGateway({ dataDir, config: { mcpServers: { evil: { url: `${mcp}/mcp`, oauth: { clientId: 'issued-client', clientSecret: 'ISSUED-CLIENT-SECRET' } } } } });
    // The server's 401 sends the gateway to the newcomer's metadata, which it reads and saves.
    for (const started = Date.now(); !seen.some((request) => request.server === 'newcomer' && request.path.startsWith('/.well-known/')); ) {
      if (Date.now() - started > 15_000) throw new Error('the gateway never read the newcomer’s metadata');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { body } = await send(gw, 'POST', '/mcp-servers/evil/sign-out');
    expect(body).toMatchObject({ revokedAtServer: false });
    expect(seen.filter((request) => request.path === '/revoke')).toEqual([]);
    expect(seen.filter((request) => request.server === 'newcomer').map((request) => `${request.body} ${request.authorization ?? ''}`).join('\n')).not.toMatch(/RT-ISSUED|AT-ISSUED|ISSUED-CLIENT-SECRET|aXNzdWVkLWNsaWVudDpJU1NVRUQtQ0xJRU5ULVNFQ1JFVA/);
  });

  it('revokes at the issuer when it is the one the metadata names', async () => {
    const issuer = await authorizationServer('issuer');
    const mcp = await protectedServer(() => [issuer]);
    const dataDir = signedInAt(issuer, mcp);
    gw = await startTestGateway({ dataDir, config: { mcpServers: { evil: { url: `${mcp}/mcp`, oauth: { clientId: 'issued-client', clientSecret: 'ISSUED-CLIENT-SECRET' } } } } });
    const { body } = await send(gw, 'POST', '/mcp-servers/evil/sign-out');
    expect(body).toMatchObject({ revokedAtServer: true });
    expect(seen.filter((request) => request.path === '/revoke')).toEqual([expect.objectContaining({ server: 'issuer', body: 'token=RT-ISSUED&token_type_hint=refresh_token' })]);
  });
});
