/** The console's management of MCP servers, through the real gateway: saved to config.json, secrets masked, processes ended. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import { SECRET_MASK } from '../../shared/mcp';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fixtureStdio, send, serverPid, waitFor, waitForProvider, type Json } from '../support/mcp';

const SECRET = 'tok-supersecret-0123456789';
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const config = (gateway: TestGateway) => JSON.parse(readFileSync(join(gateway.dataDir, 'config.json'), 'utf8')) as Json;

let gateway: TestGateway;
const events: CapstanEvent[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'capstan-mcp-servers-'));

beforeAll(async () => {
  gateway = await startTestGateway({
    dataDir,
    config: {
      httpCheck: { allow: ['127.0.0.1'] },
      mcpServers: {
        alpha: { ...fixtureStdio({ API_TOKEN: SECRET, PLAIN: 'visible' }) },
        sleeper: { ...fixtureStdio(), enabled: false },
      },
    },
  });
  gateway.host.events.subscribe((event) => events.push(event));
  await waitForProvider(gateway.host, 'alpha');
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('managing MCP servers', () => {
  it('lists servers with their status and secrets masked, and no secret leaves the gateway', async () => {
    const { body } = await send(gateway, 'GET', '/mcp-servers');
    const alpha = (body.servers as Json[]).find((server) => server.name === 'alpha')!;
    expect(alpha).toMatchObject({ transport: 'stdio', enabled: true, masked: ['env.API_TOKEN'], status: { state: 'ready' }, timeoutMs: 60_000 });
    expect(alpha.entry.env).toEqual({ API_TOKEN: `${SECRET_MASK}6789`, PLAIN: 'visible' });
    expect((body.servers as Json[]).find((server) => server.name === 'sleeper')).toMatchObject({ enabled: false, status: { state: 'disabled' } });

    const everywhere = [JSON.stringify(body), await (await gateway.request('/catalog')).text(), JSON.stringify(events), JSON.stringify(gateway.logs)];
    for (const text of everywhere) expect(text).not.toContain(SECRET);
  });

  it('adds a server: saved to config.json (other keys kept, owner-only) and connected', async () => {
    const saved = await send(gateway, 'PUT', '/mcp-servers/beta', { entry: { ...fixtureStdio(), timeoutMs: 20_000 } });
    expect(saved.status).toBe(200);
    expect((saved.body.servers as Json[]).map((server) => server.name)).toEqual(['alpha', 'sleeper', 'beta']);
    await waitForProvider(gateway.host, 'beta');
    expect((await gateway.call({ tool: 'beta:meta' })).body.ok).toBe(true);
    const file = config(gateway);
    expect(file.httpCheck).toEqual({ allow: ['127.0.0.1'] });
    expect(file.mcpServers.beta).toEqual({ ...fixtureStdio(), timeoutMs: 20_000 });
    expect(file.mcpServers.alpha.env.API_TOKEN).toBe(SECRET);
    if (process.platform !== 'win32') expect(statSync(join(gateway.dataDir, 'config.json')).mode & 0o077).toBe(0);
  });

  it('keeps a stored secret when its mask is sent back, and refuses an edited mask', async () => {
    const shown = ((await send(gateway, 'GET', '/mcp-servers')).body.servers as Json[]).find((server) => server.name === 'alpha')!;
    const resaved = await send(gateway, 'PUT', '/mcp-servers/alpha', { entry: { ...shown.entry, env: { ...shown.entry.env, PLAIN: 'changed' } } });
    expect(resaved.status).toBe(200);
    expect(config(gateway).mcpServers.alpha.env).toEqual({ API_TOKEN: SECRET, PLAIN: 'changed' });
    await waitForProvider(gateway.host, 'alpha');

    const edited = await send(gateway, 'PUT', '/mcp-servers/alpha', { entry: { ...shown.entry, env: { API_TOKEN: `x${SECRET_MASK}` } } });
    expect(edited.status).toBe(400);
    expect(edited.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'env.API_TOKEN' });
    expect(config(gateway).mcpServers.alpha.env.API_TOKEN).toBe(SECRET);
  });

  it('refuses a bad entry or a reserved name, changing nothing', async () => {
    const before = readFileSync(join(gateway.dataDir, 'config.json'), 'utf8');
    const both = await send(gateway, 'PUT', '/mcp-servers/gamma', { entry: { command: 'node', url: 'http://127.0.0.1:1/mcp' } });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('either "command"');
    expect((await send(gateway, 'PUT', '/mcp-servers/builtin', { entry: fixtureStdio() })).status).toBe(400);
    expect((await send(gateway, 'PUT', '/mcp-servers/bad%20name', { entry: fixtureStdio() })).status).toBe(400);
    expect(readFileSync(join(gateway.dataDir, 'config.json'), 'utf8')).toBe(before);
  });

  it('disabling ends the process and is saved; enabling connects again', async () => {
    const pid = serverPid(gateway.host, 'beta');
    expect((await send(gateway, 'POST', '/providers/enabled', { provider: 'beta', enabled: false })).status).toBe(200);
    await waitFor('the process to end', () => (isAlive(pid) ? undefined : true), 10_000);
    expect(config(gateway).mcpServers.beta.enabled).toBe(false);
    expect(((await send(gateway, 'GET', '/mcp-servers')).body.servers as Json[]).find((server) => server.name === 'beta')).toMatchObject({ enabled: false, status: { state: 'disabled' } });
    expect((await gateway.call({ tool: 'beta:meta' })).body.error?.code).toBe('PROVIDER_DISABLED');
    expect((await send(gateway, 'POST', '/providers/beta/reconnect')).body.error?.code).toBe('PROVIDER_DISABLED');

    await send(gateway, 'POST', '/providers/enabled', { provider: 'beta', enabled: true });
    expect(config(gateway).mcpServers.beta.enabled).toBeUndefined();
    await waitForProvider(gateway.host, 'beta');
  });

  it('removes a server: out of config.json and the catalog, its process ended', async () => {
    const pid = serverPid(gateway.host, 'beta');
    const removed = await send(gateway, 'DELETE', '/mcp-servers/beta');
    expect(removed.status).toBe(200);
    expect((removed.body.servers as Json[]).map((server) => server.name)).toEqual(['alpha', 'sleeper']);
    expect(config(gateway).mcpServers.beta).toBeUndefined();
    expect(gateway.host.catalog.providers().map((provider) => provider.name)).not.toContain('beta');
    expect((await gateway.call({ tool: 'beta:meta' })).body.error?.code).toBe('TOOL_NOT_FOUND');
    await waitFor('the process to end', () => (isAlive(pid) ? undefined : true), 10_000);
    expect((await send(gateway, 'DELETE', '/mcp-servers/beta')).status).toBe(404);
    expect((await send(gateway, 'POST', '/providers/beta/reconnect')).status).toBe(404);
  });

  it('ends every child process it started when the host closes, and the servers come back after a restart', async () => {
    const pid = serverPid(gateway.host, 'alpha');
    await gateway.stop();
    expect(isAlive(pid)).toBe(false);
    gateway = await startTestGateway({ dataDir });
    await waitForProvider(gateway.host, 'alpha');
    const { body } = await send(gateway, 'GET', '/mcp-servers');
    expect((body.servers as Json[]).map((server) => [server.name, server.enabled])).toEqual([
      ['alpha', true],
      ['sleeper', false],
    ]);
  }, 60_000);
});
