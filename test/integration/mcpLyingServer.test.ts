/**
 * A server that says one thing of its tools and answers another (test/support/lyingMcpServer.ts),
 * or asks the operator without end:
 * a result is checked against the tool as the catalog holds it and as the operator and agents are
 * shown it, whatever the server listed later under the same name, and a task's result as strictly
 * as a plain call's. A result that does not hold is TOOL_FAILED, recorded as a failure. A server's
 * questions wait up to its share of the operator's attention, each of a readable size.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { waitForProvider } from '../support/mcp';
import type { ServerAskView } from '../../shared/serverAsks';
import type { CapstanEvent } from '../../shared/events';
import { MAX_ASK_BYTES, MAX_PENDING_ASKS_PER_SERVER } from '../../electron/services/serverAsks';
import { MAX_DECLARED_PER_LIST } from '../../electron/providers/mcp/resources';
import { MAX_TOOLS_PER_SERVER } from '../../electron/providers/mcp/provider';
import { DEFAULT_MCP_MAX_RESULT_BYTES, SECRET_MASK } from '../../shared/mcp';

const LYING = fileURLToPath(new URL('../support/lyingMcpServer.ts', import.meta.url));
let gw: TestGateway | undefined;
afterEach(() => gw?.stop());

async function lyingGateway(env: Record<string, string> = {}, others: Record<string, Record<string, string>> = {}): Promise<TestGateway> {
  const servers = Object.fromEntries(Object.entries({ lying: env, ...others }).map(([name, serverEnv]) => [name, { command: process.execPath, args: [LYING], env: serverEnv }]));
  gw = await startTestGateway({ config: { grants: [{ pattern: '*', authority: 'execute' }], mcpServers: servers } });
  for (const name of Object.keys(servers)) await waitForProvider(gw.host, name);
  return gw;
}

/** The tools the lying server lists of its own (`twice` twice, `shouty`, `leaky`, `tasked`). */
const LYING_OWN_TOOLS = 5;

const pendingAsks = async (server: string) => ((await (await gw!.request('/asks')).json()) as { pending: ServerAskView[] }).pending.filter((ask) => ask.server === server);

describe('a server whose answers do not hold to what it listed', () => {
  it('checks a result against the first of two tools of one name, the one the catalog keeps and shows', async () => {
    const { host, call } = await lyingGateway();
    expect(host.catalog.live('lying:twice')?.contract).toMatchObject({ outputSchema: { required: ['n'] } });
    const { body } = await call({ tool: 'lying:twice', arguments: {}, requestId: 'lying-twice' });
    expect(body.error).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringContaining('/n must be number') });
    expect(host.ledger.query({ requestId: 'lying-twice', kind: 'call_finished' })).toEqual([expect.objectContaining({ details: expect.objectContaining({ status: 'error', code: 'TOOL_FAILED' }) })]);
  });

  it("checks a task's result against the tool's outputSchema, as a plain call's", async () => {
    const { call } = await lyingGateway();
    const { body } = await call({ tool: 'lying:tasked', arguments: {} });
    expect(body.error).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringContaining("structured content does not match the tool's output schema: /n must be number") });
  });

  it("refuses a task's result that is no tools/call result: content blocks of no known type, or no blocks at all", async () => {
    for (const result of [{ content: [{ type: 'bogus', whatever: 1 }, 42], structuredContent: { n: 1 } }, { isError: true, content: [null] }]) {
      const { call } = await lyingGateway({ LYING_TASK_RESULT: JSON.stringify(result) });
      const { body } = await call({ tool: 'lying:tasked', arguments: {} });
      expect(body.error, JSON.stringify(result)).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringContaining('is not a tools/call result') });
      await gw!.stop();
      gw = undefined;
    }
  });

  it('still answers a task whose result holds', async () => {
    const { call } = await lyingGateway({ LYING_TASK_RESULT: JSON.stringify({ content: [{ type: 'text', text: 'seven' }], structuredContent: { n: 7 } }) });
    const { status, body } = await call({ tool: 'lying:tasked', arguments: {} });
    expect(status).toBe(200);
    expect(body.result).toEqual({ content: [{ type: 'text', text: 'seven' }], structuredContent: { n: 7 } });
  });
});

describe('a server that asks the operator without end', () => {
  /** Polls until `check` holds (each answer read afresh from the gateway). */
  const until = async (what: string, check: () => Promise<boolean>) => {
    for (const started = Date.now(); !(await check()); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() - started > 20_000) throw new Error(`timed out waiting for ${what}`);
    }
  };
  /** The refusals the gateway sent the server for its questions (its protocol view). */
  const refusals = async (server: string) =>
    ((await (await gw!.request(`/mcp-servers/${server}/protocol?q=elicitation`)).json()) as { messages: { direction: string; kind: string }[] }).messages.filter((message) => message.direction === 'out' && message.kind === 'error').length;

  it('waits with as many of its questions as its share allows, refuses the rest, and another server still asks', async () => {
    await lyingGateway({ LYING_ASKS: '60:10' }, { polite: { LYING_ASKS: '1:10' } });
    await until('the polite question', async () => (await pendingAsks('polite')).length === 1);
    await until('the flood refused', async () => (await refusals('lying')) === 60 - MAX_PENDING_ASKS_PER_SERVER);
    expect(await pendingAsks('lying')).toHaveLength(MAX_PENDING_ASKS_PER_SERVER);
  });

  it('refuses a question bigger than a person can read, and keeps a question of a fair size', async () => {
    await lyingGateway({ LYING_ASKS: `3:${MAX_ASK_BYTES}` }, { polite: { LYING_ASKS: '1:2000' } });
    await until('the fair question', async () => (await pendingAsks('polite')).length === 1);
    await until('the big ones refused', async () => (await refusals('lying')) === 3);
    expect(await pendingAsks('lying')).toEqual([]);
  });
});

describe('a server that lists without end', () => {
  it('has the first ten thousand of its tools kept, and a diagnostic says how many it listed', async () => {
    // Twenty past the bound, besides its own tools.
    const { host } = await lyingGateway({ LYING_TOOLS: String(MAX_TOOLS_PER_SERVER + 20) });
    // Less one: `twice`'s second listing is a duplicate name, a diagnostic rather than a tool.
    expect(host.catalog.entries().filter((entry) => entry.contract.provider === 'lying' && entry.contract.kind === 'tool')).toHaveLength(MAX_TOOLS_PER_SERVER - 1);
    const diagnostics = ((await (await gw!.request('/diagnostics')).json()) as { diagnostics: { provider: string; reason: string }[] }).diagnostics;
    const cut = diagnostics.find((diagnostic) => diagnostic.provider === 'lying' && diagnostic.reason.includes('tools: the first'))?.reason;
    expect(cut).toMatch(new RegExp(`^the server lists ${MAX_TOOLS_PER_SERVER + 20 + LYING_OWN_TOOLS} tools: the first ${MAX_TOOLS_PER_SERVER} are kept$`));
  }, 60_000);

  it('has the first ten thousand of its resources kept, and a diagnostic says how many it listed', async () => {
    const { host } = await lyingGateway({ LYING_RESOURCES: String(MAX_DECLARED_PER_LIST + 50) });
    const resources = () => host.catalog.entries().filter((entry) => entry.contract.provider === 'lying' && entry.contract.kind === 'resource');
    for (const started = Date.now(); resources().length === 0; await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() - started > 20_000) throw new Error('no resources listed');
    }
    expect(resources()).toHaveLength(MAX_DECLARED_PER_LIST);
    const diagnostics = ((await (await gw!.request('/diagnostics')).json()) as { diagnostics: { provider: string; reason: string }[] }).diagnostics;
    expect(diagnostics).toContainEqual(expect.objectContaining({ provider: 'lying', reason: expect.stringContaining(`the server lists ${MAX_DECLARED_PER_LIST + 50} resources: the first ${MAX_DECLARED_PER_LIST} are kept`) }));
  });
});

describe('a server that says a followed resource changed without pause', () => {
  it('has its changes announced at most once a second, not once a message', async () => {
    const { host } = await lyingGateway({ LYING_RESOURCES: '1', LYING_UPDATES: '5000' });
    const announced: CapstanEvent[] = [];
    host.events.subscribe((event) => void (event.type === 'resourceUpdated' && announced.push(event)));
    for (const started = Date.now(); !host.catalog.entries().some((entry) => entry.contract.kind === 'resource'); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() - started > 20_000) throw new Error('no resource listed');
    }
    const id = host.catalog.entries().find((entry) => entry.contract.kind === 'resource' && entry.contract.provider === 'lying')!.contract.id;
    expect((await gw!.request('/resources/subscriptions', { method: 'POST', body: { id, subscribed: true } })).status).toBe(200);
    // The flood is all sent at once: one announcement at once, the last of it a second later (or a
    // few, on a machine slow to read five thousand messages), never one per message.
    for (const started = Date.now(); announced.length < 2; await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() - started > 10_000) throw new Error(`${announced.length} announcements`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(announced.length).toBeLessThanOrEqual(6);
  });
});

describe("a server that quotes the operator's secret in an error", () => {
  it('has it masked in the failure any caller, an agent too, is told', async () => {
    const { host } = await lyingGateway({ LYING_API_KEY: 'ENVSECRET_1234567890' });
    const agent = host.agents.create('curious').token;
    const answer = await fetch(new URL('/tools/call', gw!.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'lying:leaky', arguments: {} }),
    });
    const { error } = (await answer.json()) as { error: { code: string; message: string } };
    expect(error.message).toContain('upstream refused key=');
    expect(JSON.stringify(error)).not.toContain('ENVSECRET_1234567890');
  });

  it('has it masked in a resource read the server answers with it', async () => {
    const { host } = await lyingGateway({ LYING_API_KEY: 'ENVSECRET_1234567890', LYING_RESOURCES: '1' });
    const resource = () => host.catalog.entries().find((entry) => entry.contract.kind === 'resource' && entry.contract.provider === 'lying');
    for (const started = Date.now(); !resource(); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() - started > 20_000) throw new Error('no resource listed');
    }
    const read = (await (await gw!.request('/resources/read', { method: 'POST', body: { id: resource()!.contract.id } })).json()) as { contents: { text: string }[] };
    expect(read.contents[0]!.text).toBe(`resource read with key=${SECRET_MASK}`);
  });
});

describe('a server that completes an argument without measure', () => {
  it('has an answer over its size limit refused as RESULT_TOO_LARGE, and a fair one given', async () => {
    await lyingGateway({ LYING_PROMPTS: '1' });
    const complete = async (value: string) =>
      (await gw!.request('/completions', { method: 'POST', body: { id: 'lying:prompt.pick', argument: { name: 'choice', value } } })).json() as Promise<{ values?: string[]; error?: { code: string; size: number; limit: number } }>;
    // A hundred values (MCP's most) of 50,000 characters: 5 MB, over the default 4 MiB.
    const huge = await complete('100:50000');
    expect(huge.error).toMatchObject({ code: 'RESULT_TOO_LARGE', limit: DEFAULT_MCP_MAX_RESULT_BYTES });
    expect((huge as { taskId?: string }).taskId).toMatch(/^task-/);
    expect(huge.error!.size).toBeGreaterThan(DEFAULT_MCP_MAX_RESULT_BYTES);
    expect((await complete('3:4')).values).toEqual(['0xxx', '1xxx', '2xxx']);
  });
});
