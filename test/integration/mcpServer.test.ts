/**
 * Capstan's MCP server on /mcp, driven by the official SDK v2 client over Streamable HTTP on
 * loopback: the discovery flow in both protocol eras, sessions, the dynamic tools/list of a
 * 2025-era client, agents' tokens and the ledger, and the gateway's defences in front of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { waitFor } from '../support/mcp';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectHttp, type McpTestClient } from '../support/mcpClient';
import { CAPSTAN_TOOL_NAMES, walkDiscovery, writeFlowSkill } from '../support/mcpFlow';
import { skillsDir, type SkillsDir } from '../support/skills';

let gw: TestGateway;
let skills: SkillsDir;
let agentToken: string;
const open: McpTestClient[] = [];

async function client(era: 'legacy' | 'modern', token = agentToken): Promise<McpTestClient> {
  const connected = await connectHttp(gw.url, token, era);
  open.push(connected);
  return connected;
}

const flowSkill = (name: string) => `${skills.dir}/${name}/SKILL.md`;
let generation = 0;
/**
 * A flow ends by changing its SKILL.md; the skills provider picks that up a moment later and
 * every reference to a skill goes stale. The next flow starts after that, not during it.
 */
async function skillsRescanned(): Promise<void> {
  await waitFor('the skills provider to rescan', () => (gw.host.catalog.generation > generation ? true : undefined), 10_000);
  generation = gw.host.catalog.generation;
}

async function taskView(taskId: string): Promise<{ sessionId: string; state: string } | undefined> {
  const view = (await (await gw.request('/tasks')).json()) as { tasks: { id: string; sessionId: string; state: string }[] };
  return view.tasks.find((task) => task.id === taskId);
}
/** The session a task runs in, as the operator's GET /tasks shows it. */
const sessionOf = async (taskId: string) => (await taskView(taskId))?.sessionId;
const taskState = async (taskId: string) => (await taskView(taskId))?.state;

beforeAll(async () => {
  skills = skillsDir();
  for (const name of ['legacy-drill', 'modern-drill']) {
    skills.write(name, '');
    writeFlowSkill(skills.dir, name);
  }
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
  generation = gw.host.catalog.generation;
  const created = await gw.request('/agents', { method: 'POST', body: { name: 'http-agent' } });
  agentToken = ((await created.json()) as { token: string }).token;
});
afterAll(async () => {
  await Promise.all(open.map((connected) => connected.close().catch(() => undefined)));
  await gw.stop();
  skills.cleanup();
});

describe('the discovery flow over Streamable HTTP', { timeout: 60_000 }, () => {
  it('2025 era: list, pages, search, inspect, load, call, a skill, stale references; loaded tools join this client’s tools/list', async () => {
    const path = flowSkill('legacy-drill');
    const mcp = await client('legacy');
    expect(mcp.client.getProtocolEra()).toBe('legacy');
    expect(mcp.client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const { taskId, reference } = await walkDiscovery(mcp, 'legacy-drill', path);
    await skillsRescanned();

    // tools_load announced the new list on its own response, and the list has the tool under its own name.
    expect(mcp.listChanged()).toBeGreaterThanOrEqual(1);
    const { tools } = await mcp.client.listTools();
    const timeNow = tools.find((tool) => tool.name === 'time_now');
    expect(timeNow).toMatchObject({ title: 'Current time', annotations: { readOnlyHint: true, destructiveHint: false }, inputSchema: { type: 'object' } });
    const byName = await mcp.call('time_now', { timezone: 'Europe/Paris' });
    expect(byName.structuredContent).toMatchObject({ ok: true, taskId, result: { timezone: 'Europe/Paris' } });

    // Another client has a session of its own: another task, and nothing loaded.
    const other = await client('legacy');
    const otherList = await other.call('capabilities_list', { limit: 1 });
    expect(otherList.structuredContent!.taskId).not.toBe(taskId);
    expect((await other.client.listTools()).tools.map((tool) => tool.name)).toEqual(CAPSTAN_TOOL_NAMES);
    expect(await other.call('capability_call', { reference, arguments: {} })).toMatchObject({ isError: true, structuredContent: { error: { code: expect.stringMatching(/TOOL_NOT_LOADED|STALE_CAPABILITY/) } } });
    await expect(other.call('time_now')).rejects.toMatchObject({ code: -32602 });
  });

  it('2026-07-28: the same flow; tools/list never varies, loaded tools are called through capability_call', async () => {
    const path = flowSkill('modern-drill');
    const mcp = await client('modern');
    expect(mcp.client.getProtocolEra()).toBe('modern');
    await walkDiscovery(mcp, 'modern-drill', path);
    await skillsRescanned();
    expect(mcp.listChanged()).toBe(0);
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(CAPSTAN_TOOL_NAMES);
    await expect(mcp.call('time_now')).rejects.toMatchObject({ code: -32602 });
  });

  it('runs an agent in sessions of its own, and its calls are in the ledger under its name', async () => {
    const mcp = await client('legacy');
    const found = await mcp.call('capabilities_search', { query: 'local status' });
    const reference = found.structuredContent!.items[0].reference;
    await mcp.call('tools_load', { reference });
    const called = await mcp.call('capability_call', { reference, arguments: {} });
    const { requestId, taskId } = called.structuredContent!;
    expect(await sessionOf(taskId)).toMatch(/^agent:http-agent\/mcp-[A-Za-z0-9_-]{22}$/);
    const ledger = (await (await gw.request(`/ledger?requestId=${requestId}`)).json()) as { entries: { kind: string; principal: string }[] };
    expect(ledger.entries.map((entry) => [entry.kind, entry.principal])).toEqual([
      ['call_started', 'agent:http-agent'],
      ['call_finished', 'agent:http-agent'],
    ]);

    // Ending its session (DELETE with the Mcp-Session-Id) finishes the session's task.
    await (mcp.client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(await taskState(taskId)).toBe('succeeded');

    // A 2026-07-28 client presents no session: it works in the agent's own `…/mcp` session.
    const modern = await client('modern');
    const listed = await modern.call('capabilities_list', { limit: 1 });
    expect(await sessionOf(listed.structuredContent!.taskId)).toBe('agent:http-agent/mcp');
  });

  it('works for the operator token too, in the operator’s own MCP sessions', async () => {
    const mcp = await client('legacy', gw.token);
    const listed = await mcp.call('capabilities_list', { limit: 1 });
    expect(listed.isError).toBeFalsy();
    expect(await sessionOf(listed.structuredContent!.taskId)).toMatch(/^operator\/mcp-/);
    // A call that needs confirmation gets the operator's 428 challenge, which no MCP tool answers.
    const found = await mcp.call('capabilities_search', { query: 'http_check' });
    const reference = found.structuredContent!.items[0].reference;
    await mcp.call('tools_load', { reference });
    const refused = await mcp.call('capability_call', { reference, arguments: { url: 'http://127.0.0.1:9/', method: 'GET' } });
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: 'CONFIRMATION_REQUIRED', challenge: { tool: expect.any(String) } } } });
  });
});

describe('a server lent from request to request', () => {
  it('answers interleaved requests of two agents and the operator each as itself: its session, its loaded tools', async () => {
    const other = ((await (await gw.request('/agents', { method: 'POST', body: { name: 'other-agent' } })).json()) as { token: string }).token;
    const [mine, theirs, operator] = [await client('legacy'), await client('legacy', other), await client('legacy', gw.token)];
    const found = await mine.call('capabilities_search', { query: 'local status' });
    const loaded = (await mine.call('tools_load', { reference: found.structuredContent!.items[0].reference })).structuredContent!;
    const loadedName = ((await mine.client.listTools()).tools.map((tool) => tool.name) as string[]).find((name) => !CAPSTAN_TOOL_NAMES.includes(name));
    expect(loadedName).toBeTruthy();
    const sessions = { mine: await sessionOf(loaded.taskId), theirs: undefined as string | undefined, operator: undefined as string | undefined };

    // Each round's requests are in flight together, so the servers that answered one caller's
    // requests answer the others' next.
    const tasks: { mine: string[]; theirs: string[]; operator: string[] } = { mine: [], theirs: [], operator: [] };
    for (let round = 0; round < 12; round += 1) {
      const [a, b, o, aTools, bTools] = await Promise.all([
        mine.call('capabilities_list', { limit: 1 }),
        theirs.call('capabilities_list', { limit: 1 }),
        operator.call('capabilities_list', { limit: 1 }),
        mine.client.listTools(),
        theirs.client.listTools(),
      ]);
      tasks.mine.push(a.structuredContent!.taskId);
      tasks.theirs.push(b.structuredContent!.taskId);
      tasks.operator.push(o.structuredContent!.taskId);
      expect(aTools.tools.map((tool) => tool.name)).toContain(loadedName);
      expect(bTools.tools.map((tool) => tool.name)).not.toContain(loadedName);
    }
    sessions.theirs = await sessionOf(tasks.theirs[0]!);
    sessions.operator = await sessionOf(tasks.operator[0]!);
    expect(sessions.mine).toMatch(/^agent:http-agent\/mcp-/);
    expect(sessions.theirs).toMatch(/^agent:other-agent\/mcp-/);
    expect(sessions.operator).toMatch(/^operator\/mcp-/);
    for (const who of ['mine', 'theirs', 'operator'] as const) expect(new Set(await Promise.all(tasks[who].map(sessionOf)))).toEqual(new Set([sessions[who]]));
  });
});

describe('the gateway in front of /mcp', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  it('refuses a request without a valid token, and a foreign Host or Origin, in the envelope', async () => {
    expect(await post({})).toMatchObject({ status: 401 });
    const wrong = await post({ authorization: 'Bearer not-a-token-at-all' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    const rebound = await post({ authorization: `Bearer ${agentToken}`, origin: 'http://evil.example' });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN_ORIGIN');
  });

  it('issues a session id with initialize, refuses a malformed one, and takes GET/POST/DELETE only', async () => {
    const answer = await post({ authorization: `Bearer ${agentToken}` });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(answer.headers.get('x-request-id')).toBeTruthy();
    await answer.body?.cancel();
    const malformed = await post({ authorization: `Bearer ${agentToken}`, 'mcp-session-id': 'no spaces allowed' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(malformed.status).toBe(400);
    // Ending a session that never ran anything is fine: there is nothing to finish.
    const ended = await fetch(`${gw.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${agentToken}`, 'mcp-session-id': answer.headers.get('mcp-session-id')! } });
    expect(ended.status).toBe(200);
    expect(await ended.text()).toBe('');
    const put = await fetch(`${gw.url}/mcp`, { method: 'PUT', headers: { authorization: `Bearer ${agentToken}` } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('answers as the Streamable HTTP transport does: 406 without SSE in Accept, 202 for notifications alone, a batch in one JSON array', async () => {
    const agent = { authorization: `Bearer ${agentToken}` };
    const jsonOnly = await post({ ...agent, accept: 'application/json' });
    expect(jsonOnly.status).toBe(406);
    expect(await jsonOnly.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('text/event-stream') } });
    const session = (await post(agent)).headers.get('mcp-session-id')!;
    const later = { ...agent, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const notified = await post(later, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe('');
    const batch = await post(later, [
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
    ]);
    expect(batch.headers.get('content-type')).toMatch(/^application\/json/);
    const answers = (await batch.json()) as { id: string; result: Record<string, unknown> }[];
    expect(answers.map((answer) => answer.id)).toEqual(['a', 'b']);
    expect(answers[0]!.result.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'capability_call' })]));
    // initialize may not be batched (2025-03-26, the revision with batches): it would open no session.
    const batchedInitialize = await post(agent, [initialize]);
    expect(batchedInitialize.status).toBe(400);
    expect(batchedInitialize.headers.get('mcp-session-id')).toBeNull();
    expect(await batchedInitialize.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('batch') } });
    const unsupported = await post({ ...later, 'mcp-protocol-version': '1999-01-01' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(unsupported.status).toBe(400);
    // An initialize whose header and envelope name a date the SDK takes for no modern revision is
    // 2025-era, served by the gateway's own exchange: one JSON answer.
    const claimed = { ...initialize, params: { ...initialize.params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-01-01' } } };
    const odd = await post({ ...agent, 'mcp-protocol-version': '2026-01-01' }, claimed);
    expect(odd.status).toBe(200);
    expect(odd.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await odd.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
  });

  it('answers a lone tools/call, served without a pooled server, as a server answers the same call in a batch', async () => {
    const agent = { authorization: `Bearer ${agentToken}`, 'mcp-protocol-version': '2025-11-25' };
    const alone = async (message: Record<string, unknown>) => (await post(agent, message)).json() as Promise<Record<string, unknown>>;
    const batched = async (message: Record<string, unknown>) => ((await (await post(agent, [message])).json()) as Record<string, unknown>[])[0]!;
    const cases = [
      // An unknown tool is MCP's protocol error; a known one's refusal a result with isError.
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'capability_call', arguments: { reference: 'not an object' } } },
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'capabilities_list', arguments: { limit: 2 }, _meta: { progressToken: 'p-9' } } },
      // Not plainly well formed: the SDK's server words the refusal, whichever way it came.
      { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 42 } },
    ];
    // What names the request itself (its requestId, its task) differs from one request to the next.
    const comparable = (answer: Record<string, unknown>) => JSON.parse(JSON.stringify(answer).replace(/"(req|task)-[0-9a-f-]+"/g, '"…"').replace(/"requestId":"[^"]*"/g, '"requestId":"…"')) as unknown;
    for (const message of cases) {
      const [single, inBatch] = [await alone(message), await batched(message)];
      expect(single.id, JSON.stringify(message)).toBe(message.id);
      expect(comparable(single), JSON.stringify(message)).toEqual(comparable(inBatch));
    }
    expect(await alone(cases[0]!)).toMatchObject({ error: { code: -32602, message: 'Unknown tool: no_such_tool' } });
    expect(await alone(cases[3]!)).toMatchObject({ error: { code: -32602, message: expect.stringContaining('Invalid tools/call request') } });
  });
});
