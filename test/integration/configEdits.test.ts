/**
 * config.json edited while the gateway runs, through the real gateway: what can change live
 * applies without a restart, an invalid edit is a diagnostic and changes nothing, a fix clears
 * it, a setting read only at start is reported as needing a restart, and the console's own
 * writes change nothing.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fixtureStdio, send, waitFor, waitForProvider, type Json } from '../support/mcp';

let gateway: TestGateway;
let target: LoopbackServer;
const dataDir = mkdtempSync(join(tmpdir(), 'capstan-config-edits-'));
const file = () => join(dataDir, 'config.json');
const readFile = () => JSON.parse(readFileSync(file(), 'utf8')) as Json;
const edit = (change: (config: Json) => Json) => writeFileSync(file(), JSON.stringify(change(readFile()), null, 2));
const gatewayDiagnostics = async () =>
  ((await send(gateway, 'GET', '/diagnostics')).body.diagnostics as Json[]).filter((diagnostic) => diagnostic.provider === 'gateway').map((diagnostic) => diagnostic.reason as string);
const waitForDiagnostic = (pattern: RegExp) => waitFor(`a gateway diagnostic ${pattern}`, () => gateway.host.catalog.diagnostics().find((d) => d.provider === 'gateway' && pattern.test(d.reason)), 10_000);
const waitForNoDiagnostic = (pattern: RegExp) =>
  waitFor(`no gateway diagnostic ${pattern}`, () => (gateway.host.catalog.diagnostics().some((d) => d.provider === 'gateway' && pattern.test(d.reason)) ? undefined : true), 10_000);
const checkTarget = async () => {
  const args = { url: target.url, method: 'GET' };
  const asked = await gateway.call({ tool: 'builtin:http_check', arguments: args });
  const { id } = asked.body.error?.challenge as { id: string };
  return gateway.call({ tool: 'builtin:http_check', arguments: args, confirmation: id });
};

beforeAll(async () => {
  target = await startLoopbackServer();
  gateway = await startTestGateway({ dataDir, config: { cancellation: { graceMs: 5000 }, mcpServers: { alpha: fixtureStdio() } } });
  await waitForProvider(gateway.host, 'alpha');
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await target?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('config.json edited while the gateway runs', () => {
  it('an added server shows and runs without a restart; a removed one leaves', async () => {
    edit((config) => ({ ...config, mcpServers: { ...config.mcpServers, edited: fixtureStdio() } }));
    await waitForProvider(gateway.host, 'edited');
    const listed = (await send(gateway, 'GET', '/mcp-servers')).body.servers as Json[];
    expect(listed.map((server) => server.name)).toEqual(['alpha', 'edited']);
    const call = await gateway.call({ tool: 'edited:meta', arguments: {} });
    expect(call.body.error).toBeUndefined();
    expect(gateway.logs.some((line) => line.msg === 'config.json edited: applied without a restart')).toBe(true);

    edit(({ mcpServers: { edited: _gone, ...rest }, ...config }) => ({ ...config, mcpServers: rest }));
    await waitFor('the server removed', () => (gateway.host.catalog.provider('edited') ? undefined : true), 10_000);
    expect(gateway.host.mcp.names()).toEqual(['alpha']);
  }, 60_000);

  it('applies toolPolicy, httpCheck.allow and grants live', async () => {
    expect((await checkTarget()).body.error).toMatchObject({ code: 'DESTINATION_REFUSED' });
    edit((config) => ({
      ...config,
      httpCheck: { allow: ['127.0.0.1'] },
      toolPolicy: [{ pattern: 'builtin:time_now', needConfirm: true }],
      grants: [{ pattern: 'builtin:*', authority: 'execute' }, { pattern: 'builtin:todo_*', authority: 'inspect' }],
    }));
    await waitFor('the tool policy applied', () => (gateway.host.catalog.resolveTool('builtin:time_now').contract.needConfirm ? true : undefined), 10_000);
    expect(gateway.host.config.httpCheck.allow).toEqual(['127.0.0.1']);
    expect((await checkTarget()).body).toMatchObject({ ok: true });
    // A new task gets the new grants.
    const manual = gateway.host.tasks.view().tasks.find((task) => task.sessionId === 'operator' && task.state === 'running');
    if (manual) await gateway.host.tasks.finish('operator', manual.id, 'done', 'succeeded');
    const todo = await gateway.call({ tool: 'builtin:todo_list', arguments: {} });
    expect(todo.body.error).toMatchObject({ code: 'NOT_GRANTED' });
  }, 60_000);

  it('an invalid edit is a diagnostic and changes nothing; a fix clears it', async () => {
    const good = readFileSync(file(), 'utf8');
    writeFileSync(file(), good.replace('"mcpServers"', '"mcpServers": { "broken": { "command": "x", "url": "http://127.0.0.1:1/" } },\n  "ignored"'));
    const diagnostic = await waitForDiagnostic(/config\.json/);
    expect(diagnostic.reason).toMatch(/mcpServers\.broken.*command.*url.*not applied.*last good configuration/);
    expect(await gatewayDiagnostics()).toContain(diagnostic.reason);
    expect(gateway.logs.some((line) => typeof line.msg === 'string' && line.msg.startsWith('config.json edit not applied'))).toBe(true);
    expect(gateway.host.mcp.names()).toEqual(['alpha']);
    expect((await gateway.call({ tool: 'alpha:meta', arguments: {} })).body.error).toBeUndefined();

    writeFileSync(file(), '{ "grants": [');
    await waitForDiagnostic(/not valid JSON/);
    expect(gateway.host.config.httpCheck.allow).toEqual(['127.0.0.1']);

    writeFileSync(file(), good);
    await waitForNoDiagnostic(/config\.json/);
    expect(await gatewayDiagnostics()).toEqual([]);
  }, 60_000);

  it('a setting read only at start is reported as needing a restart, until it is back', async () => {
    edit((config) => ({ ...config, cancellation: { graceMs: 1000 } }));
    const diagnostic = await waitForDiagnostic(/cancellation/);
    expect(diagnostic.reason).toMatch(/"cancellation" changed; it applies after a restart/);
    expect(gateway.logs.some((line) => typeof line.msg === 'string' && /cancellation changed; restart Capstan to apply/.test(line.msg))).toBe(true);
    expect(gateway.host.config.cancellation.graceMs).toBe(5000);

    edit((config) => ({ ...config, cancellation: { graceMs: 5000 } }));
    await waitForNoDiagnostic(/cancellation/);
  }, 60_000);

  it("the console's own write changes nothing more and reports nothing", async () => {
    const logged = gateway.logs.length;
    expect((await send(gateway, 'PUT', '/mcp-servers/beta', { entry: fixtureStdio() })).status).toBe(200);
    await waitForProvider(gateway.host, 'beta');
    const pid = gateway.host.mcp.pid('beta');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(gateway.host.mcp.pid('beta')).toBe(pid);
    expect(gateway.logs.slice(logged).filter((line) => typeof line.msg === 'string' && line.msg.startsWith('config.json'))).toEqual([]);
    expect(await gatewayDiagnostics()).toEqual([]);
  }, 60_000);
});

describe('config.json as a link to a file kept elsewhere (a dotfiles repository)', () => {
  it('applies an edit of the file it links to, and the console writes through the link, which stays a link', async () => {
    const linkedDir = mkdtempSync(join(tmpdir(), 'capstan-config-link-'));
    const dotfiles = join(linkedDir, 'dotfiles');
    const data = join(linkedDir, 'data');
    mkdirSync(dotfiles);
    mkdirSync(data);
    const real = join(dotfiles, 'capstan.json');
    writeFileSync(real, JSON.stringify({ quotas: { tasks: 5 } }));
    symlinkSync(real, join(data, 'config.json'));
    const linked = await startTestGateway({ dataDir: data });
    try {
      writeFileSync(real, JSON.stringify({ quotas: { tasks: 7 } }));
      await waitFor('the edit of the linked file', () => (linked.host.config.quotas.tasks === 7 ? true : undefined), 10_000);
      expect((await send(linked, 'PUT', '/mcp-servers/linked', { entry: fixtureStdio() })).status).toBe(200);
      expect(lstatSync(join(data, 'config.json')).isSymbolicLink()).toBe(true);
      expect(JSON.parse(readFileSync(real, 'utf8'))).toMatchObject({ quotas: { tasks: 7 }, mcpServers: { linked: {} } });
    } finally {
      await linked.stop();
      rmSync(linkedDir, { recursive: true, force: true });
    }
  }, 60_000);
});
