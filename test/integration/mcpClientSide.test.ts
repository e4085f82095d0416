/**
 * Capstan as the client of real servers: the capabilities it declares, the roots it offers
 * (server-filesystem and server-everything use them), the log lines it keeps and the protocol
 * messages it shows, through the gateway's HTTP routes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import { inherited, runCli } from '../support/cliProcess';
import { CLI } from '../support/serveProcess';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { everythingStdio, filesystemStdio, send, serverPid, waitForProvider, type Json } from '../support/mcp';

const text = (body: Json) => ((body.result as Json).content as Json[]).map((block) => block.text as string).join('\n');

describe('roots, offered to server-filesystem', () => {
  let gateway: TestGateway;
  let started: string;
  let first: string;
  let second: string;
  beforeAll(async () => {
    started = realpathSync(mkdtempSync(join(tmpdir(), 'capstan-roots-start-')));
    first = realpathSync(mkdtempSync(join(tmpdir(), 'capstan-roots-a-')));
    second = realpathSync(mkdtempSync(join(tmpdir(), 'capstan-roots-b-')));
    gateway = await startTestGateway({ config: { mcpServers: { files: { ...filesystemStdio(started), roots: [first] } } } });
    await waitForProvider(gateway.host, 'files');
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    for (const folder of [started, first, second]) rmSync(folder, { recursive: true, force: true });
  });

  const allowed = async () => text((await gateway.call({ tool: 'files:list_allowed_directories' })).body as Json);

  it('answers roots/list with the configured folders, which replace the one the server was started with', async () => {
    const listed = await waitForAsync('the root to be allowed', async () => ((await allowed()).includes(first) ? true : undefined));
    expect(listed).toBe(true);
    expect(await allowed()).not.toContain(started);
  });

  it('announces changed roots with notifications/roots/list_changed, without restarting the server', async () => {
    const pid = serverPid(gateway.host, 'files');
    const servers = (await send(gateway, 'GET', '/mcp-servers')).body.servers as Json[];
    const entry = servers.find((server) => server.name === 'files')!.entry as Json;
    expect(entry.roots).toEqual([first]);
    const saved = await send(gateway, 'PUT', '/mcp-servers/files', { name: 'files', entry: { ...entry, roots: [first, second] } });
    expect(saved.status).toBe(200);
    await waitForAsync('both roots to be allowed', async () => ((await allowed()).includes(second) ? true : undefined));
    expect(await allowed()).toContain(first);
    expect(serverPid(gateway.host, 'files')).toBe(pid);
    // The wire shows it: the notification out, the server's roots/list in, Capstan's answer out.
    const protocol = (await send(gateway, 'GET', '/mcp-servers/files/protocol?q=roots')).body.messages as Json[];
    const methods = protocol.map((message) => `${message.direction} ${message.kind} ${message.method}`);
    expect(methods).toContain('out notification notifications/roots/list_changed');
    expect(methods).toContain('in request roots/list');
    expect(methods).toContain('out response roots/list');
  });

  it('refuses a relative root', async () => {
    const refused = await send(gateway, 'PUT', '/mcp-servers/files', { name: 'files', entry: { ...filesystemStdio(started), roots: ['relative/folder'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('absolute path') });
  });
});

describe('server-everything: capabilities, logs and the protocol view', () => {
  let gateway: TestGateway;
  const events: CapstanEvent[] = [];
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'capstan-roots-e-')));
    gateway = await startTestGateway({ config: { mcpServers: { everything: { ...everythingStdio(), roots: [root] } } } });
    gateway.host.events.subscribe((event) => events.push(event));
    await waitForProvider(gateway.host, 'everything');
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('declares roots, so the server offers get-roots-list, which lists the configured root', async () => {
    expect(gateway.host.catalog.live('everything:get-roots-list')).toBeDefined();
    const { body } = await gateway.call({ tool: 'everything:get-roots-list' });
    expect(text(body)).toContain(`file://${root}`);
  });

  it('keeps the server log lines, at the level the operator chose, and publishes each as it arrives', async () => {
    // Lines from before (the server's own notes as it started) are kept too; only later ones follow the level.
    const before = (await send(gateway, 'GET', '/mcp-servers/everything/log')).body;
    const mark = ((before.lines as Json[]).at(-1)?.seq as number | undefined) ?? 0;
    const level = await send(gateway, 'PUT', '/mcp-servers/everything/log/level', { name: 'everything', level: 'warning' });
    expect(level.status).toBe(200);
    expect(level.body).toMatchObject({ server: 'everything', level: 'warning', supported: true });
    const toggled = await gateway.call({ tool: 'everything:toggle-simulated-logging' });
    expect(toggled.body.ok).toBe(true);
    // The server sends a line of a random level every 5 s; those under warning it keeps to itself.
    const lines = await waitForAsync(
      'a log line',
      async () => {
        const view = (await send(gateway, 'GET', `/mcp-servers/everything/log?after=${mark}`)).body;
        return (view.lines as Json[]).length >= 1 ? (view.lines as Json[]) : undefined;
      },
      40_000,
    );
    for (const line of lines) expect(['warning', 'error', 'critical', 'alert', 'emergency']).toContain(line.level);
    expect(lines[0]).toMatchObject({ seq: expect.any(Number), at: expect.any(String), data: expect.stringMatching(/message/i) });
    const published = events.filter((event) => event.type === 'serverLog' && event.line.seq === lines[0]!.seq);
    expect(published).toEqual([{ type: 'serverLog', server: 'everything', line: lines[0] }]);
    // Capstan's own filter, as the console's level filter reads it.
    const severe = (await send(gateway, 'GET', '/mcp-servers/everything/log?level=error')).body.lines as Json[];
    for (const line of severe) expect(['error', 'critical', 'alert', 'emergency']).toContain(line.level);
    await gateway.call({ tool: 'everything:toggle-simulated-logging' });
  }, 60_000);

  it('prints the kept lines with capstan logs, by level, and follows new ones with --follow', async () => {
    const env = { CAPSTAN_TOKEN: gateway.token };
    const kept = await runCli(['logs', 'everything', '--url', gateway.url], env);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toMatch(/^\S+Z {2}info {6}\[everything-server\] Roots updated/m);
    const json = await runCli(['logs', 'everything', '--json', '--level', 'error', '--url', gateway.url], env);
    for (const line of json.stdout.trim().split('\n').filter(Boolean)) expect(['error', 'critical', 'alert', 'emergency']).toContain(JSON.parse(line).level);
    expect((await runCli(['logs', 'everything', '--level', 'loud', '--url', gateway.url], env)).code).toBe(2);
    expect((await runCli(['logs', 'nope', '--url', gateway.url], env)).stderr).toContain('NOT_FOUND');

    // --follow prints a line the server sends after it started, then keeps going until stopped.
    const follower = spawn(process.execPath, [CLI, 'logs', 'everything', '--follow', '-n', '1', '--set-level', 'debug', '--url', gateway.url], { env: { ...inherited(), ...env } });
    let printed = '';
    follower.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    try {
      await waitForAsync('the follower to start', async () => (printed.length > 0 ? true : undefined));
      const before = printed.length;
      await gateway.call({ tool: 'everything:toggle-simulated-logging' });
      await waitForAsync('a followed line', async () => (/level.message/i.test(printed.slice(before)) ? true : undefined), 20_000);
      await gateway.call({ tool: 'everything:toggle-simulated-logging' });
    } finally {
      follower.kill('SIGTERM');
    }
  }, 40_000);

  it("shows a call's messages in the protocol view, tied to its requestId, with timing and size", async () => {
    const { body } = await gateway.call({ tool: 'everything:echo', arguments: { message: 'on the wire' }, requestId: 'wire-1' });
    expect(body.ok).toBe(true);
    const view = (await send(gateway, 'GET', '/mcp-servers/everything/protocol?requestId=wire-1')).body;
    const [request, response] = view.messages as Json[];
    expect(request).toMatchObject({ direction: 'out', kind: 'request', method: 'tools/call', requestId: 'wire-1', size: expect.any(Number) });
    expect(JSON.parse(request!.json as string).params).toMatchObject({ name: 'echo', arguments: { message: 'on the wire' }, _meta: { requestId: 'wire-1' } });
    expect(response).toMatchObject({ direction: 'in', kind: 'response', method: 'tools/call', requestId: 'wire-1', id: request!.id, durationMs: expect.any(Number) });
    // Searchable: every word must appear.
    const found = (await send(gateway, 'GET', '/mcp-servers/everything/protocol?q=echo%20wire')).body.messages as Json[];
    expect(found.map((message) => message.requestId)).toContain('wire-1');
    expect((await send(gateway, 'GET', '/mcp-servers/nope/protocol')).status).toBe(404);
  });
});

/** Polls an async check until it returns something other than undefined. */
async function waitForAsync<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
