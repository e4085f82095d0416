/**
 * A server's policy set from the console (PUT /mcp-servers/:name/policy), through the real
 * gateway and the fixture MCP server: in effect at once without a restart, written to
 * config.json as toolPolicy rules beside the ones already there, a per-tool floor for that tool
 * only, and nothing that would loosen what the annotations decide can be saved.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fixtureStdio, send, waitForProvider, type Json } from '../support/mcp';

let gateway: TestGateway;
const dataDir = mkdtempSync(join(tmpdir(), 'capstan-server-policy-'));
const readFile = () => JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')) as Json;
const OTHER_RULE = { pattern: 'builtin:time_now', needConfirm: true };
const tools = async () => new Map(((await send(gateway, 'GET', '/tools')).body.tools as Json[]).map((tool) => [tool.id as string, tool]));
const setPolicy = (name: string, body: Json) => send(gateway, 'PUT', `/mcp-servers/${name}/policy`, body);

beforeAll(async () => {
  gateway = await startTestGateway({
    dataDir,
    config: { mcpServers: { alpha: fixtureStdio(), beta: fixtureStdio() }, toolPolicy: [OTHER_RULE, { pattern: 'alpha:*', riskLevel: 'medium' }] },
  });
  await waitForProvider(gateway.host, 'alpha');
  await waitForProvider(gateway.host, 'beta');
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a server's policy from the console", () => {
  it('lists what each tool declared, what Capstan decides from it, and the policy config.json holds', async () => {
    const servers = (await send(gateway, 'GET', '/mcp-servers')).body.servers as Json[];
    const alpha = servers.find((server) => server.name === 'alpha')!;
    expect(alpha.policy).toEqual({ defaults: { riskLevel: 'medium' }, tools: {}, acceptNewTools: false });
    const decisions = new Map((alpha.toolDecisions as Json[]).map((tool) => [tool.name as string, tool]));
    expect(decisions.get('meta')).toEqual({ name: 'meta', declared: { readOnlyHint: true, openWorldHint: false }, decided: { riskLevel: 'low', needConfirm: false, mutating: false } });
    expect(decisions.get('plain')).toEqual({ name: 'plain', declared: null, decided: { riskLevel: 'high', needConfirm: true, mutating: true } });
  });

  it('"confirm every call" holds for every tool of the server at once, without a restart, and config.json holds it', async () => {
    const before = await tools();
    expect(before.get('alpha:meta')).toMatchObject({ needConfirm: false, riskLevel: 'medium' });
    const pid = gateway.host.mcp.pid('alpha');

    const saved = await setPolicy('alpha', { defaults: { needConfirm: true }, tools: { meta: { riskLevel: 'high' } }, acceptNewTools: true });
    expect(saved.status).toBe(200);
    const alpha = (saved.body.servers as Json[]).find((server) => server.name === 'alpha')!;
    expect(alpha.policy).toEqual({ defaults: { needConfirm: true }, tools: { meta: { riskLevel: 'high' } }, acceptNewTools: true });

    // At once: the answer came after the catalog was read again.
    const after = await tools();
    for (const [id, tool] of after) if (id.startsWith('alpha:')) expect(tool.needConfirm, id).toBe(true);
    // The per-tool floor is that tool's alone; the others keep theirs.
    expect(after.get('alpha:meta')).toMatchObject({ riskLevel: 'high', needConfirm: true });
    expect(after.get('alpha:shape')).toMatchObject({ riskLevel: 'low', needConfirm: true });
    // Another server is untouched.
    expect(after.get('beta:meta')).toMatchObject({ riskLevel: 'low', needConfirm: false });
    // A call is asked to confirm.
    expect((await gateway.call({ tool: 'alpha:meta', arguments: {} })).body.error).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });

    const config = readFile();
    expect(config.toolPolicy).toEqual([OTHER_RULE, { pattern: 'alpha:*', needConfirm: true }, { pattern: 'alpha:meta', riskLevel: 'high' }]);
    expect(config.mcpServers.alpha).toEqual({ ...fixtureStdio(), acceptNewTools: true });
    expect(gateway.host.config.toolPolicy).toEqual(config.toolPolicy);
    expect(gateway.host.mcp.entry('alpha')?.acceptNewTools).toBe(true);
    // Not reconnected for it.
    expect(gateway.host.mcp.pid('alpha')).toBe(pid);

    // The watcher reads the file back and finds nothing to apply.
    const logged = gateway.logs.length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(gateway.logs.slice(logged).filter((line) => typeof line.msg === 'string' && line.msg.startsWith('config.json'))).toEqual([]);
    expect(gateway.host.mcp.pid('alpha')).toBe(pid);
  }, 60_000);

  it('clearing the policy gives back what the annotations decide, and leaves every other rule', async () => {
    const saved = await setPolicy('alpha', { defaults: {}, tools: {}, acceptNewTools: false });
    expect(saved.status).toBe(200);
    const after = await tools();
    expect(after.get('alpha:meta')).toMatchObject({ riskLevel: 'low', needConfirm: false });
    // Nothing goes below the annotations' conservative reading.
    expect(after.get('alpha:plain')).toMatchObject({ riskLevel: 'high', needConfirm: true, mutating: true });
    expect(after.get('builtin:time_now')).toMatchObject({ needConfirm: true });
    const config = readFile();
    expect(config.toolPolicy).toEqual([OTHER_RULE]);
    expect(config.mcpServers.alpha).toEqual(fixtureStdio());
  }, 60_000);

  it('a request that would loosen is refused, and changes nothing', async () => {
    const before = readFileSync(join(dataDir, 'config.json'), 'utf8');
    const unconfirm = await setPolicy('alpha', { defaults: {}, tools: { plain: { needConfirm: false } } });
    expect(unconfirm.status).toBe(400);
    expect(unconfirm.body.error.code).toBe('BAD_REQUEST');

    const lower = await setPolicy('alpha', { defaults: {}, tools: { plain: { riskLevel: 'low' } } });
    expect(lower.status).toBe(400);
    expect(lower.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'tools.plain.riskLevel' });
    expect(lower.body.error.message).toMatch(/annotations make it high risk/);

    const unknown = await setPolicy('nobody', { defaults: { needConfirm: true }, tools: {} });
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect(readFileSync(join(dataDir, 'config.json'), 'utf8')).toBe(before);
    expect((await tools()).get('alpha:plain')).toMatchObject({ riskLevel: 'high', needConfirm: true });
  }, 60_000);

  it('an edit of config.json by hand shows in the server policy', async () => {
    const config = readFile();
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ ...config, toolPolicy: [...config.toolPolicy, { pattern: 'beta:meta', mutating: true }] }, null, 2));
    const deadline = Date.now() + 10_000;
    let beta: Json | undefined;
    while (Date.now() < deadline) {
      beta = ((await send(gateway, 'GET', '/mcp-servers')).body.servers as Json[]).find((server) => server.name === 'beta');
      if (beta?.policy.tools.meta) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(beta?.policy).toEqual({ defaults: {}, tools: { meta: { mutating: true } }, acceptNewTools: false });
    expect((await tools()).get('beta:meta')).toMatchObject({ mutating: true });
  }, 60_000);
});
