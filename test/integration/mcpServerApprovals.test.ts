/**
 * An agent's MCP call to a tool that needs confirmation (http_check, against a loopback server
 * config.json allows) waits for the operator; meanwhile the MCP client hears progress
 * notifications, in both protocol eras. Approved, the call runs and answers; denied, it is a tool
 * error with CONFIRMATION_DENIED and the operator's note. The agent cannot confirm it itself.
 */
import type { Progress } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalsView, ApprovalView } from '../../shared/approvals';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { waitFor } from '../support/mcp';
import { connectHttp, type Era, type McpTestClient } from '../support/mcpClient';

let gw: TestGateway;
let target: LoopbackServer;
let agentToken: string;
const open: McpTestClient[] = [];

beforeAll(async () => {
  target = await startLoopbackServer();
  gw = await startTestGateway({ config: { httpCheck: { allow: ['127.0.0.1/32'] }, approvals: { timeoutMs: 20_000 } } });
  agentToken = gw.host.agents.create('mcp-approver').token;
});
afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => undefined)));
  await gw.stop();
  await target.close();
});

/** An agent's client with http_check loaded, and a call of it started with a progress token. */
async function waitingCall(era: Era, path: string) {
  const mcp = await connectHttp(gw.url, agentToken, era);
  open.push(mcp);
  const found = await mcp.call('capabilities_search', { query: 'http_check' });
  const reference = found.structuredContent!.items[0].reference;
  expect(reference.id).toBe('builtin:http_check');
  await mcp.call('tools_load', { reference });
  const progress: Progress[] = [];
  const result = mcp.client.callTool(
    { name: 'capability_call', arguments: { reference, arguments: { url: `${target.url}${path}`, method: 'GET' } } },
    { onprogress: (update) => void progress.push(update) },
  );
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

  it('denied, it is a tool error with CONFIRMATION_DENIED and the note; nothing ran', async () => {
    target.hits.length = 0;
    const { result, pending } = await waitingCall('legacy', '/denied');
    expect((await decide(pending.id, { decision: 'deny', note: 'not today' })).status).toBe(200);
    const answer = await result;
    expect(answer).toMatchObject({ isError: true, structuredContent: { error: { code: 'CONFIRMATION_DENIED', message: expect.stringContaining('not today') } } });
    expect(target.hits).toEqual([]);
  });
});
