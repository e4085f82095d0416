/**
 * Agents over MCP, to the end of their sessions and calls, with the clients they ship with: the
 * v1 TypeScript SDK (what most MCP hosts embed) and v2, over Streamable HTTP and through
 * `capstan mcp` (the built CLI, `npm run build` first).
 *
 * - A session ends on DELETE (its task finished, on record) and its id then answers 404, as do
 *   ids the gateway never issued or issued to another agent; an idle session expires.
 * - A client's abort (`notifications/cancelled`) cancels the call through the runtime: the
 *   ledger shows the cancellation, and the call's end within the grace period.
 * - A client that gives up on a call waiting for approval (an MCP client's timeout, a REST client
 *   that disconnects) takes the approval with it: withdrawn, and the operator can no longer
 *   approve it.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalsView } from '../../shared/approvals';
import type { LedgerEntry } from '../../shared/ledger';
import type { TasksView } from '../../shared/tasks';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { fixtureStdio, waitForProvider, type Json } from '../support/mcp';
import { connectHttp, connectStdio, type McpTestClient } from '../support/mcpClient';
import { CLI } from '../support/serveProcess';

const GRACE_MS = 2000;
const IDLE_MS = 1500;

let gw: TestGateway;
let target: LoopbackServer;
const tokens: Record<string, string> = {};
const closing: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  target = await startLoopbackServer();
  gw = await startTestGateway({
    config: {
      httpCheck: { allow: ['127.0.0.1/32'] },
      cancellation: { graceMs: GRACE_MS },
      mcp: { sessionIdleMs: IDLE_MS },
      mcpServers: { fixture: fixtureStdio() },
    },
  });
  await waitForProvider(gw.host, 'fixture');
  for (const name of ['v1-agent', 'v2-agent', 'stdio-agent', 'other-agent', 'batch-agent', 'batching-agent', 'odd-reason-agent']) tokens[name] = gw.host.agents.create(name).token;
});
afterAll(async () => {
  await Promise.all(closing.map((close) => close().catch(() => undefined)));
  await gw.stop();
  await target.close();
});

/** The v1 SDK's client, as shipped by most hosts, with an agent's token. */
async function connectV1(agent: string): Promise<{ client: ClientV1; transport: HttpTransportV1 }> {
  const client = new ClientV1({ name: 'capstan-test-v1', version: '1.0.0' });
  const transport = new HttpTransportV1(new URL('/mcp', gw.url), { requestInit: { headers: { authorization: `Bearer ${tokens[agent]}` } } });
  await client.connect(transport);
  closing.push(() => client.close());
  return { client, transport };
}

type CallTool = (params: { name: string; arguments: Record<string, unknown> }) => Promise<{ structuredContent?: unknown }>;

/** Finds and loads a tool in the client's session; returns its reference. */
async function load(callTool: CallTool, tool: string): Promise<Json> {
  const found = (await callTool({ name: 'capabilities_search', arguments: { query: tool.split(':')[1]! } })).structuredContent as Json;
  const reference = found.items.find((item: Json) => item.reference.id === tool).reference as Json;
  await callTool({ name: 'tools_load', arguments: { reference } });
  return reference;
}

const ledger = async (query: string): Promise<LedgerEntry[]> => ((await (await gw.request(`/ledger?${query}&limit=1000`)).json()) as { entries: LedgerEntry[] }).entries;
const tasks = async (): Promise<TasksView> => (await (await gw.request('/tasks')).json()) as TasksView;

/** A raw request on an MCP session, as any client would send it: `tools/list` unless told. */
const onSession = (agent: string, sessionId: string, body: unknown = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }) =>
  fetch(new URL('/mcp', gw.url), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens[agent]}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    // A string goes as it is: a body too deep for this worker's JSON.stringify is written by hand.
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The one cancellation a principal's call of `capability` got, and how that call ended. */
async function cancelledCall(principal: string, capability: string): Promise<{ cancellation: LedgerEntry; finished: LedgerEntry }> {
  const entry = await pollFor(async () => (await ledger(`kind=cancellation&principal=${encodeURIComponent(principal)}`)).find((e) => e.capability === capability));
  const finished = await pollFor(async () => (await ledger(`requestId=${encodeURIComponent(entry.requestId!)}&kind=call_finished`))[0]);
  return { cancellation: entry, finished };
}

async function pollFor<T>(read: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('MCP sessions that end', () => {
  it('DELETE ends the session: its task finishes on record, and its id answers 404 from then on', async () => {
    const { client, transport } = await connectV1('v1-agent');
    await load((params) => client.callTool(params) as never, 'builtin:time_now');
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect((await onSession('v1-agent', sessionId)).status).toBe(200);

    await transport.terminateSession();
    const task = (await tasks()).tasks.find((candidate) => candidate.sessionId === `agent:v1-agent/mcp-${sessionId}`);
    expect(task).toMatchObject({ state: 'succeeded', finalMessage: 'The MCP client ended its session.' });
    const answer = await onSession('v1-agent', sessionId);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
  });

  it('answers 404 for an id the gateway never issued, and for one issued to another agent', async () => {
    expect((await onSession('v1-agent', 'madeUpSession1234')).status).toBe(404);
    const { transport } = await connectV1('other-agent');
    const theirs = transport.sessionId!;
    expect((await onSession('other-agent', theirs)).status).toBe(200);
    expect((await onSession('v1-agent', theirs)).status).toBe(404);
  });

  it('expires a session idle for mcp.sessionIdleMs: its task is finished by the gateway, and the id answers 404', async () => {
    const { client, transport } = await connectV1('v1-agent');
    await load((params) => client.callTool(params) as never, 'builtin:time_now');
    const sessionId = transport.sessionId!;
    const task = await pollFor(async () => (await tasks()).tasks.find((candidate) => candidate.sessionId === `agent:v1-agent/mcp-${sessionId}` && candidate.state === 'succeeded'), IDLE_MS * 5);
    expect(task.finalMessage).toMatch(/^The MCP session expired after 1.5 s without a request\.$/);
    const ended = (await ledger(`taskId=${task.id}&kind=task_transition`)).at(-1)!;
    expect(ended).toMatchObject({ principal: 'system', details: { to: 'succeeded' } });
    expect((await onSession('v1-agent', sessionId)).status).toBe(404);
  });
});

describe("an agent's cancellation cancels its call", () => {
  const slow = { steps: 100, everyMs: 100 };

  it('v1 SDK over HTTP: an abort reaches the runtime; the call ends cancelled within the grace period', async () => {
    const { client } = await connectV1('v1-agent');
    const reference = await load((params) => client.callTool(params) as never, 'fixture:slow');
    const abort = new AbortController();
    const call = client.callTool({ name: 'capability_call', arguments: { reference, arguments: slow } }, undefined, { signal: abort.signal });
    await pollFor(async () => (await ledger('kind=call_started&principal=agent%3Av1-agent')).find((entry) => entry.capability === 'fixture:slow'));
    const abortedAt = Date.now();
    abort.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    const { cancellation, finished } = await cancelledCall('agent:v1-agent', 'fixture:slow');
    expect(cancellation.details).toMatchObject({ scope: 'call', reason: expect.stringMatching(/^cancelled by the client/) });
    expect(finished.details.status).toBe('cancelled');
    expect(Date.parse(finished.at) - abortedAt).toBeLessThan(GRACE_MS);
  });

  it('v2 SDK through capstan mcp: the relay passes the host’s cancellation on', async () => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`).toBe(true);
    const mcp: McpTestClient = await connectStdio(process.execPath, [CLI, 'mcp', '--data-dir', gw.dataDir], { PATH: process.env.PATH ?? '', CAPSTAN_TOKEN: tokens['stdio-agent']! });
    closing.push(() => mcp.close());
    const reference = await load((params) => mcp.client.callTool(params) as never, 'fixture:slow');
    const abort = new AbortController();
    const call = mcp.client.callTool({ name: 'capability_call', arguments: { reference, arguments: slow } }, { signal: abort.signal });
    await pollFor(async () => (await ledger('kind=call_started&principal=agent%3Astdio-agent')).find((entry) => entry.capability === 'fixture:slow'));
    const abortedAt = Date.now();
    abort.abort();
    await expect(call).rejects.toThrow();
    const { finished } = await cancelledCall('agent:stdio-agent', 'fixture:slow');
    expect(finished.details.status).toBe('cancelled');
    expect(Date.parse(finished.at) - abortedAt).toBeLessThan(GRACE_MS);
  });

  it('a cancellation in a batch reaches the call another request of the session runs, once the batch is accepted', async () => {
    const { client, transport } = await connectV1('batch-agent');
    const reference = await load((params) => client.callTool(params) as never, 'fixture:slow');
    const call = onSession('batch-agent', transport.sessionId!, { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'capability_call', arguments: { reference, arguments: slow } } });
    await pollFor(async () => (await ledger('kind=call_started&principal=agent%3Abatch-agent')).find((entry) => entry.capability === 'fixture:slow'));
    const cancel = (reason: string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 41, reason } });
    // Refused whole (two requests under one id): nothing of it has effect, its cancellation neither.
    const refused = [cancel('refused batch'), { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { jsonrpc: '2.0', id: 7, method: 'tools/list' }];
    expect((await onSession('batch-agent', transport.sessionId!, refused)).status).toBe(400);
    // A response under the same id is no request of its batch: the call in flight stays the one under 41.
    expect((await onSession('batch-agent', transport.sessionId!, [{ jsonrpc: '2.0', id: 41, result: {} }, { jsonrpc: '2.0', id: 9, method: 'tools/list' }])).status).toBe(200);
    expect((await onSession('batch-agent', transport.sessionId!, [cancel('batched')])).status).toBe(202);
    const { cancellation, finished } = await cancelledCall('agent:batch-agent', 'fixture:slow');
    expect(cancellation.details).toMatchObject({ scope: 'call', reason: 'cancelled by the client: batched' });
    expect(finished.details.status).toBe('cancelled');
    expect(await ledger('kind=cancellation&principal=agent%3Abatch-agent')).toHaveLength(1);
    await (await call).text();
  });

  it('a cancellation whose reason is cut inside an emoji, or holds a lone surrogate, still cancels, recorded as well-formed text; an id nested thousands deep is no fault', async () => {
    const { client, transport } = await connectV1('odd-reason-agent');
    const reference = await load((params) => client.callTool(params) as never, 'fixture:slow');
    const call = onSession('odd-reason-agent', transport.sessionId!, { jsonrpc: '2.0', id: 61, method: 'tools/call', params: { name: 'capability_call', arguments: { reference, arguments: slow } } });
    await pollFor(async () => (await ledger('kind=call_started&principal=agent%3Aodd-reason-agent')).find((entry) => entry.capability === 'fixture:slow'));
    const deep = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${'['.repeat(5_000)}${']'.repeat(5_000)}}}`;
    expect((await onSession('odd-reason-agent', transport.sessionId!, deep)).status).toBe(202);
    // A lone surrogate first, and character 200 is the first half of 😀: a plain cut leaves two lone surrogates, which the ledger cannot hash.
    const reason = `\ud800${'x'.repeat(198)}😀 tail`;
    expect((await onSession('odd-reason-agent', transport.sessionId!, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 61, reason } })).status).toBe(202);
    const { cancellation, finished } = await cancelledCall('agent:odd-reason-agent', 'fixture:slow');
    expect(cancellation.details).toMatchObject({ scope: 'call', reason: `cancelled by the client: \ufffd${'x'.repeat(198)}` });
    expect(finished.details.status).toBe('cancelled');
    await (await call).text();
    expect(gw.host.ledger.verify()).toMatchObject({ ok: true });
  });

  it("a batch's requests are cancelled one by one: the cancelled call ends cancelled, the other runs to its end", async () => {
    const { client, transport } = await connectV1('batching-agent');
    const reference = await load((params) => client.callTool(params) as never, 'fixture:slow');
    const call = (id: number, steps: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'capability_call', arguments: { reference, arguments: { steps, everyMs: 100 } } } });
    const batch = onSession('batching-agent', transport.sessionId!, [call(51, 100), call(52, 15)]);
    await pollFor(async () => ((await ledger('kind=call_started&principal=agent%3Abatching-agent')).length === 2 ? true : undefined));
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 51 } };
    expect((await onSession('batching-agent', transport.sessionId!, cancel)).status).toBe(202);
    // Not answered within a second, the batch's answer is a stream: one event per answer.
    const events = (await (await batch).text()).split('\n').filter((line) => line.startsWith('data: {'));
    const answers = new Map(events.map((line) => JSON.parse(line.slice('data: '.length)) as Json).map((answer) => [answer.id, answer.result]));
    expect(answers.get(51)).toMatchObject({ isError: true, structuredContent: { error: { code: 'CALL_CANCELLED' } } });
    expect(answers.get(52)).toMatchObject({ content: [{ type: 'text', text: 'slow finished 15 steps' }] });
    // Each call of the batch is on record under a requestId of its own: the POST's, numbered in the batch's order.
    const [first = '', second] = [51, 52].map((id) => String((answers.get(id).structuredContent as Json).requestId));
    expect(first).toMatch(/^req-.+\.1$/);
    expect(second).toBe(`${first.slice(0, -2)}.2`);
  });

  it('v2 SDK over HTTP (2026-07-28, no session): closing the request cancels its call', async () => {
    const mcp = await connectHttp(gw.url, tokens['v2-agent']!, 'modern');
    closing.push(() => mcp.close());
    const reference = await load((params) => mcp.client.callTool(params) as never, 'fixture:slow');
    const abort = new AbortController();
    const call = mcp.client.callTool({ name: 'capability_call', arguments: { reference, arguments: slow } }, { signal: abort.signal });
    await pollFor(async () => (await ledger('kind=call_started&principal=agent%3Av2-agent')).find((entry) => entry.capability === 'fixture:slow'));
    abort.abort();
    await expect(call).rejects.toThrow();
    const { finished } = await cancelledCall('agent:v2-agent', 'fixture:slow');
    expect(finished.details.status).toBe('cancelled');
  });
});

describe('approvals follow their caller', () => {
  it('a v1 client that times out waiting for approval leaves the approval withdrawn; approving it is refused and nothing runs', async () => {
    const { client } = await connectV1('v1-agent');
    const reference = await load((params) => client.callTool(params) as never, 'builtin:http_check');
    // The v1 SDK's own request timeout (60 s by default), shortened: it then sends notifications/cancelled.
    const call = client.callTool({ name: 'capability_call', arguments: { reference, arguments: { url: `${target.url}/approve-me`, method: 'GET' } } }, undefined, { timeout: 1500 });
    await expect(call).rejects.toThrow(/timed out/i);
    const withdrawn = await pollFor(async () => {
      const view = (await (await gw.request('/approvals')).json()) as ApprovalsView;
      return view.recent.find((approval) => approval.principal === 'agent:v1-agent' && approval.status === 'withdrawn');
    });
    expect(withdrawn.reason).toMatch(/^cancelled by the client/);
    const approve = await gw.request(`/approvals/${withdrawn.id}`, { method: 'POST', body: { decision: 'approve' } });
    expect(approve.status).toBe(409);
    expect(await approve.json()).toMatchObject({ error: { code: 'APPROVAL_NOT_PENDING' } });
    expect(target.hits.filter((hit) => hit.url === '/approve-me')).toEqual([]);
    const decided = (await ledger(`requestId=${encodeURIComponent(withdrawn.requestId)}&kind=approval_decided`))[0];
    expect(decided?.details).toMatchObject({ decision: 'withdrawn', reason: expect.stringMatching(/^cancelled by the client/) });
    // Withdrawn by the agent's own cancellation: recorded as the agent's act, not the gateway's.
    expect(decided?.principal).toBe('agent:v1-agent');
  });

  it('an agent whose POST /tools/call goes away while it waits for approval takes the approval with it', async () => {
    const abort = new AbortController();
    const call = fetch(new URL('/tools/call', gw.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens['other-agent']}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'http_check', arguments: { url: `${target.url}/rest-approve-me`, method: 'GET' } }),
      signal: abort.signal,
    });
    const pending = await pollFor(async () => {
      const view = (await (await gw.request('/approvals')).json()) as ApprovalsView;
      return view.pending.find((approval) => approval.principal === 'agent:other-agent');
    });
    abort.abort();
    await expect(call).rejects.toThrow();
    const ended = await pollFor(async () => {
      const view = (await (await gw.request('/approvals')).json()) as ApprovalsView;
      return view.recent.find((approval) => approval.id === pending.id);
    });
    expect(ended).toMatchObject({ status: 'withdrawn', reason: 'the client went away before its answer' });
    const decided = (await ledger(`requestId=${encodeURIComponent(pending.requestId)}&kind=approval_decided`))[0];
    expect(decided?.principal).toBe('agent:other-agent');
    expect(target.hits.filter((hit) => hit.url === '/rest-approve-me')).toEqual([]);
  });
});
