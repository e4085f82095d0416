/**
 * A URL MCP server behind a real authorization server (oidc-provider on loopback: dynamic
 * registration, PKCE, resource indicators, refresh tokens, revocation; test/support/oauthServers.ts),
 * as the gateway meets it: it waits in the sign-in state (no retry loop) until the operator signs
 * in through the browser; then it connects and its tool runs; the access token is refreshed before
 * it expires; when the person's grant is revoked at the authorization server, calls fail with
 * MCP_SIGN_IN_REQUIRED and the server is back in the sign-in state; a sign-out forgets the tokens;
 * `capstan mcp-servers login` does the same from a terminal (the built CLI: `npm run build` first);
 * the tokens outlive a restart of the gateway.
 * No token text reaches the logs, the ledger, its export or the protocol view, and the token
 * file is owner-only.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenStore } from '../../electron/providers/mcp/oauth/tokenStore';
import { SECRET_MASK } from '../../shared/mcp';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { inherited, runCli } from '../support/cliProcess';
import { send, waitFor, waitForProvider } from '../support/mcp';
import { CLI } from '../support/serveProcess';
import { ACCESS_TOKEN_TTL_S, browser, MCP_SCOPE, startOAuthServers, WRITE_SCOPE, type OAuthServers } from '../support/oauthServers';

let servers: OAuthServers;
let gw: TestGateway;
/** Every token Capstan held, gathered as the test goes, to look for in what it writes. */
const secrets = new Set<string>();

/** The gateway's data dir, kept across a restart of the gateway (removed at the end). */
const dataDir = mkdtempSync(join(tmpdir(), 'capstan-oauth-'));
const config = () => ({ mcpServers: { remote: { url: servers.mcpUrl } } });

beforeAll(async () => {
  servers = await startOAuthServers();
  gw = await startTestGateway({ dataDir, config: config() });
});
afterAll(async () => {
  await gw?.stop();
  await servers?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const auth = async () => (await send(gw, 'GET', '/mcp-servers/remote/auth')).body;
const keptTokens = () => new TokenStore(join(gw.dataDir, 'oauth')).read('remote').tokens;
const gather = () => {
  const tokens = keptTokens();
  for (const value of [tokens?.access_token, tokens?.refresh_token]) if (value) secrets.add(value);
};

describe('a URL MCP server that signs in with OAuth', { timeout: 60_000 }, () => {
  it('waits for a sign-in instead of retrying', async () => {
    const status = await waitForProvider(gw.host, 'remote', 'sign_in_required');
    expect(status.retryAt).toBeNull();
    expect(status.reason).toMatch(/no tokens/);
    expect(await auth()).toMatchObject({ applies: true, state: 'signed_out', lastError: null });
  });

  it('signs in through the browser (loopback redirect, PKCE, resource), then connects and runs its tool', async () => {
    const { status, body } = await send(gw, 'POST', '/mcp-servers/remote/sign-in');
    expect(status).toBe(200);
    const authorizationUrl = new URL(body.authorizationUrl);
    expect(authorizationUrl.origin).toBe(servers.issuer);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(servers.mcpUrl);
    expect(new URL(authorizationUrl.searchParams.get('redirect_uri')!).hostname).toBe('127.0.0.1');
    expect(body.auth.state).toBe('signing_in');

    await browser(authorizationUrl);
    await waitForProvider(gw.host, 'remote', 'ready');
    const signedIn = await auth();
    expect(signedIn).toMatchObject({ state: 'signed_in', scopes: expect.arrayContaining([MCP_SCOPE]), authorizationServer: servers.issuer, lastError: null });
    expect(Date.parse(signedIn.expiresAt)).toBeGreaterThan(Date.now());
    expect(Date.parse(signedIn.nextRefreshAt)).toBeLessThan(Date.parse(signedIn.expiresAt));
    gather();

    const call = await gw.call({ tool: 'remote:whoami', arguments: {} });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(JSON.stringify(call.body)).toContain('hello from the protected server');
    expect(servers.grants).toEqual(['authorization_code']);
  });

  it('a tool that needs more scope fails with MCP_SIGN_IN_REQUIRED; the next sign-in asks for the old and the new scope, and the call runs', async () => {
    const refused = await gw.call({ tool: 'remote:add_note', arguments: {} });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'MCP_SIGN_IN_REQUIRED' });
    expect(refused.body.error?.message).toContain(WRITE_SCOPE);
    expect((await auth()).lastError.reason).toMatch(/more scope/);
    const { body } = await send(gw, 'POST', '/mcp-servers/remote/sign-in');
    const scope = new URL(body.authorizationUrl).searchParams.get('scope')!.split(' ');
    expect(scope).toEqual(expect.arrayContaining([MCP_SCOPE, WRITE_SCOPE]));
    await browser(body.authorizationUrl);
    await waitFor('the step-up sign-in', () => (keptTokens()?.scope?.split(' ').includes(WRITE_SCOPE) ? true : undefined));
    await waitForProvider(gw.host, 'remote', 'ready');
    const call = await gw.call({ tool: 'remote:add_note', arguments: {} });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((await auth()).lastError).toBeNull();
    servers.grants.splice(0); // the refresh below is counted from here
    gather();
  });

  it('refreshes the access token before it expires, once for calls that find it due together', async () => {
    const before = keptTokens()!.access_token;
    const { nextRefreshAt } = await auth();
    expect(ACCESS_TOKEN_TTL_S * 1000 - 60_000).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(nextRefreshAt) - Date.now()) + 200));
    const calls = await Promise.all([1, 2, 3].map(() => gw.call({ tool: 'remote:whoami', arguments: {} })));
    for (const call of calls) expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(servers.grants).toEqual(['refresh_token']);
    expect(keptTokens()!.access_token).not.toBe(before);
    gather();
  });

  it('after the grant is revoked at the authorization server, calls fail with MCP_SIGN_IN_REQUIRED and the server waits for a sign-in', async () => {
    await servers.revokeGrants();
    const call = await gw.call({ tool: 'remote:whoami', arguments: {} });
    expect(call.status).toBe(503);
    expect(call.body.error).toMatchObject({ code: 'MCP_SIGN_IN_REQUIRED' });
    const status = await waitForProvider(gw.host, 'remote', 'sign_in_required');
    expect(status.retryAt).toBeNull();
    const later = await gw.call({ tool: 'remote:whoami', arguments: {} });
    expect(later.body.error).toMatchObject({ code: 'MCP_SIGN_IN_REQUIRED' });
    const state = await auth();
    expect(state.state).toBe('signed_out');
    expect(state.lastError.reason).toMatch(/refused the refresh token/);
    expect(later.body.error?.message).toMatch(/refused the refresh token|needs an OAuth sign-in/);
  });

  it('signs in again and out: sign-out forgets the tokens', async () => {
    const { body } = await send(gw, 'POST', '/mcp-servers/remote/sign-in');
    await browser(body.authorizationUrl);
    await waitForProvider(gw.host, 'remote', 'ready');
    gather();
    const out = await send(gw, 'POST', '/mcp-servers/remote/sign-out');
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ revokedAtServer: true, auth: { state: 'signed_out' } });
    expect(keptTokens()).toBeUndefined();
    await waitForProvider(gw.host, 'remote', 'sign_in_required');
  });

  it('signs in from a terminal: capstan mcp-servers login prints the URL and waits for the browser; auth and logout', async () => {
    const env = { ...inherited(), CAPSTAN_TOKEN: gw.token };
    const login = spawn(process.execPath, [CLI, 'mcp-servers', 'login', 'remote', '--no-browser', '--url', gw.url], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    login.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const url = await waitFor('the authorization URL', () => /^\s+(http\S+)$/m.exec(stdout)?.[1]);
    await browser(url);
    const code = await new Promise((resolve) => login.once('close', resolve));
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/remote: signed in/);
    expect(stdout).toMatch(new RegExp(`scopes\\s+.*${MCP_SCOPE}`));
    await waitForProvider(gw.host, 'remote', 'ready');
    gather();
    const auth = await runCli(['mcp-servers', 'auth', 'remote', '--json', '--url', gw.url], { CAPSTAN_TOKEN: gw.token });
    expect(JSON.parse(auth.stdout)).toMatchObject({ state: 'signed_in' });
    const logout = await runCli(['mcp-servers', 'logout', 'remote', '--url', gw.url], { CAPSTAN_TOKEN: gw.token });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stdout).toMatch(/signed out of remote: its tokens are forgotten here and revoked at the authorization server/);
    for (const text of [stdout, auth.stdout, logout.stdout]) for (const secret of secrets) expect(text.includes(secret)).toBe(false);
  });

  it('keeps its tokens across a restart of the gateway: it connects without a new sign-in', async () => {
    const { body } = await send(gw, 'POST', '/mcp-servers/remote/sign-in');
    await browser(body.authorizationUrl);
    await waitForProvider(gw.host, 'remote', 'ready');
    gather();
    const logs = gw.logs;
    await gw.stop();
    gw = await startTestGateway({ dataDir });
    gw.logs.unshift(...logs);
    await waitForProvider(gw.host, 'remote', 'ready');
    expect((await auth()).state).toBe('signed_in');
    const call = await gw.call({ tool: 'remote:whoami', arguments: {} });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
  });

  it("masks the access token it holds where a server quotes it back: the call's progress and error, and the protocol view", async () => {
    const progress: string[] = [];
    const unsubscribe = gw.host.events.subscribe((event) => void (event.type === 'progress' && event.message && progress.push(event.message)));
    const call = await gw.call({ tool: 'remote:careless', arguments: {} });
    unsubscribe();
    const held = keptTokens()!.access_token;
    expect(servers.accessTokens.has(held)).toBe(true);
    const answered = JSON.stringify(call.body);
    expect(answered).toContain(`authorized by Bearer ${SECRET_MASK}`);
    // Cut where the token begins: not even its first characters show in the error's message.
    expect((call.body.error as { message: string }).message).not.toContain(held.slice(0, 4));
    expect(answered).not.toContain(held);
    expect(progress).toEqual([`calling upstream with Bearer ${SECRET_MASK}`]);
    const protocol = JSON.stringify((await send(gw, 'GET', '/mcp-servers/remote/protocol')).body);
    expect(protocol).toContain('authorized by Bearer');
    expect(protocol).not.toContain(held);
  });

  it('keeps every token out of logs, the ledger, its export and the protocol view; the token file is owner-only', async () => {
    expect(secrets.size).toBeGreaterThanOrEqual(4);
    for (const seen of servers.accessTokens) secrets.add(seen);
    const ledger = JSON.stringify(gw.host.ledger.query({ after: 0, limit: 10_000 }));
    const exported = await (await gw.request('/ledger?after=0&limit=1000')).text();
    const protocol = JSON.stringify((await send(gw, 'GET', '/mcp-servers/remote/protocol')).body);
    const logs = JSON.stringify(gw.logs);
    for (const secret of secrets) {
      for (const [where, text] of Object.entries({ logs, ledger, exported, protocol })) expect(text.includes(secret), `a token in ${where}`).toBe(false);
    }
    const dir = join(gw.dataDir, 'oauth');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(gw.dataDir, 'config.json'), 'utf8')).not.toMatch(/access_token|refresh_token/);
  });
});
