/**
 * An agent's MCP call to a tool that needs confirmation (http_check, against a loopback server
 * config.json allows) waits for the operator; meanwhile the MCP client hears progress
 * notifications, in both protocol eras. Approved, the call runs and answers; denied, it is a tool
 * error with CONFIRMATION_DENIED and the operator's note. The agent cannot confirm it itself.
 * A tool's own progress (an MCP server's) reaches the client too, after the wait, still increasing.
 */
import type { Progress } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalsView, ApprovalView } from '../../shared/approvals';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { fixtureStdio, waitFor, waitForProvider } from '../support/mcp';
import { connectHttp, type Era, type McpTestClient } from '../support/mcpClient';

let gw: TestGateway;
let target: LoopbackServer;
let agentToken: string;
const open: McpTestClient[] = [];

beforeAll(async () => {
  target = await startLoopbackServer();
  gw = await startTestGateway({
    config: {
      httpCheck: { allow: ['127.0.0.1/32'] },
      approvals: { timeoutMs: 20_000 },
      mcpServers: { fixture: fixtureStdio() },
      // The fixture's slow tool is read-only; the operator makes it need an approval, to see both phases.
      toolPolicy: [{ pattern: 'fixture:slow', needConfirm: true }],
    },
  });
  agentToken = gw.host.agents.create('mcp-approver').token;
});
afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => undefined)));
  await gw.stop();
  await target.close();
});

/** An agent's client with a tool loaded, and a call of it started with a progress token. */
async function waitingCall(era: Era, path: string, tool = 'builtin:http_check', args: Record<string, unknown> = { url: `${target.url}${path}`, method: 'GET' }) {
  const mcp = await connectHttp(gw.url, agentToken, era);
  open.push(mcp);
  const found = await mcp.call('capabilities_search', { query: tool.split(':')[1]! });
  const reference = found.structuredContent!.items.find((item: { reference: { id: string } }) => item.reference.id === tool).reference;
  await mcp.call('tools_load', { reference });
  const progress: Progress[] = [];
  const result = mcp.client.callTool({ name: 'capability_call', arguments: { reference, arguments: args } }, { onprogress: (update) => void progress.push(update) });
  const pending = await waitFor('the call to wait for approval', () => progress.length > 0 ? true : undefined, 10_000).then(pendingApproval);
  return { result, progress, pending };
}

async function pendingApproval(): Promise<ApprovalView> {
  const view = (await (await gw.request('/approvals')).json()) as ApprovalsView;
  const pending = view.pending.filter((approval) => approval.principal === 'agent:mcp-approver');
  expect(pending).toHaveLength(1);
  return pending[0]!;
}

const decide = (id: string, body: Record<string, unknown>) => gw.request(`/approvals/${id}`, { method: 'POST', body });

describe('an agent’s MCP call that needs confirmation', () => {
  it.each<Era>(['legacy', 'modern'])('%s era: waits with progress notifications; approved, it runs once', async (era) => {
    target.hits.length = 0;
    const { result, progress, pending } = await waitingCall(era, `/approved-${era}`);
    expect(progress[0]).toMatchObject({ progress: expect.any(Number), total: 20_000, message: expect.stringMatching(/approv/i) });
    expect(pending).toMatchObject({ status: 'pending', sessionId: expect.stringMatching(/^agent:mcp-approver\/mcp/), tool: { id: 'builtin:http_check' } });
    expect(target.hits).toEqual([]);
    expect((await decide(pending.id, { decision: 'approve', argumentsDigest: pending.argumentsDigest })).status).toBe(200);
    const answer = await result;
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ ok: true, taskId: pending.taskId, requestId: pending.requestId, result: { reachable: true, status: 200 } });
    expect(target.hits).toEqual([{ method: 'GET', url: `/approved-${era}` }]);
  });

  it('hears the wait, then the MCP server’s own progress, as one increasing count', async () => {
    await waitForProvider(gw.host, 'fixture');
    const { result, progress, pending } = await waitingCall('legacy', '', 'fixture:slow', { steps: 3, everyMs: 100 });
    expect((await decide(pending.id, { decision: 'approve', argumentsDigest: pending.argumentsDigest })).status).toBe(200);
    const answer = await result;
    expect(answer.isError).toBeFalsy();
    const waited = progress.filter((update) => update.total === 20_000);
    const steps = progress.slice(waited.length);
    expect(waited.length).toBeGreaterThan(0);
    const floor = waited.at(-1)!.progress + 1;
    // The SDK clients hand a notification to its handler a microtask after it arrives, and drop a
    // progress notification whose request has already been answered: the server's last step,
    // sent just before its answer, can be lost on the way (on the gateway's side or the agent's).
    // So the steps heard are the first of the server's, in order, on top of the wait.
    const heard = steps.map((update) => [update.progress - floor, update.total! - floor]);
    expect(heard.length).toBeGreaterThanOrEqual(1);
    expect(heard).toEqual(
      [
        [1, 3],
        [2, 3],
        [3, 3],
      ].slice(0, heard.length),
    );
    expect(progress.every((update, i) => i === 0 || update.progress > progress[i - 1]!.progress)).toBe(true);
  });

  it('denied, it is a tool error with CONFIRMATION_DENIED and the note; nothing ran', async () => {
    target.hits.length = 0;
    const { result, pending } = await waitingCall('legacy', '/denied');
    expect((await decide(pending.id, { decision: 'deny', note: 'not today' })).status).toBe(200);
    const answer = await result;
    expect(answer).toMatchObject({ isError: true, structuredContent: { error: { code: 'CONFIRMATION_DENIED', message: expect.stringContaining('not today') } } });
    expect(target.hits).toEqual([]);
  });
});

describe('how a 2025-era call’s answer travels', () => {
  const post = (body: unknown, session?: string) =>
    fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agentToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(body),
    });
  const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  it('is one JSON body when ready at once; a call waiting for approval is an SSE stream opened by its priming event, then its answer', async () => {
    const initialized = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(initialized.headers.get('content-type')).toMatch(/^application\/json/);
    const session = initialized.headers.get('mcp-session-id')!;
    expect(((await initialized.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');

    const found = await post(call(2, 'capabilities_search', { query: 'http_check' }), session);
    expect(found.headers.get('content-type')).toMatch(/^application\/json/);
    const reference = ((await found.json()) as { result: { structuredContent: { items: { reference: { id: string } }[] } } }).result.structuredContent.items.find(
      (item) => item.reference.id === 'builtin:http_check',
    )!.reference;
    // Loading a tool changes this client's tools/list: the notification goes first, so the answer streams.
    const loaded = await post(call(3, 'tools_load', { reference }), session);
    expect(loaded.headers.get('content-type')).toBe('text/event-stream');
    const streamed = (await loaded.text()).split('\n\n').filter(Boolean);
    expect(streamed[0]).toMatch(/^id: \S+\nretry: 1000\ndata: $/);
    expect(streamed.slice(1).map((event) => (JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { method?: string; id?: number }).method ?? 'answer')).toEqual([
      'notifications/tools/list_changed',
      'answer',
    ]);

    // No progress token: nothing is sent before the answer, so the stream opens on its own.
    const started = Date.now();
    const waiting = await post(call(4, 'capability_call', { reference, arguments: { url: `${target.url}/streamed`, method: 'GET' } }), session);
    expect(waiting.headers.get('content-type')).toBe('text/event-stream');
    expect(Date.now() - started).toBeLessThan(10_000);
    const reader = waiting.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^id: \S+\nretry: 1000\ndata: \n\n$/);

    const pending = await pendingApproval();
    expect((await decide(pending.id, { decision: 'approve', argumentsDigest: pending.argumentsDigest })).status).toBe(200);
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    const events = rest.split('\n\n').filter((event) => event.startsWith('event: message'));
    expect(events).toHaveLength(1);
    const answer = JSON.parse(events[0]!.slice(events[0]!.indexOf('data: ') + 6)) as { id: number; result: { structuredContent: unknown } };
    expect(answer).toMatchObject({ id: 4, result: { structuredContent: { ok: true, requestId: pending.requestId, result: { reachable: true } } } });
  });
});
