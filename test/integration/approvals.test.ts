/**
 * Approvals through real HTTP: an agent's token calls http_check (the builtin that needs
 * confirmation) against a loopback server config.json allows; the call waits, and the operator
 * approves, denies, lets it expire, or cancels its task. Only the approved call reaches the server,
 * once, with the arguments the operator saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalsView, ApprovalView } from '../../shared/approvals';
import type { LedgerEntry } from '../../shared/ledger';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';

const TIMEOUT_MS = 3000;
let gw: TestGateway;
let target: LoopbackServer;
let agentToken: string;

beforeAll(async () => {
  target = await startLoopbackServer();
  gw = await startTestGateway({ config: { httpCheck: { allow: ['127.0.0.1/32'] }, approvals: { timeoutMs: TIMEOUT_MS } } });
  agentToken = gw.host.agents.create('claude').token;
});
afterAll(async () => {
  await gw.stop();
  await target.close();
});

type Answer = { status: number; body: Record<string, unknown> & { error?: Record<string, unknown> } };

async function asAgent(path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${gw.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${agentToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const check = (path: string) => ({ tool: 'http_check', arguments: { url: `${target.url}${path}`, method: 'GET' } });
const approvals = async () => (await (await gw.request('/approvals')).json()) as ApprovalsView;

/** Waits until the call with this requestId is pending, as the operator's console would see it. */
async function pendingFor(requestId: string): Promise<ApprovalView> {
  for (let tries = 0; tries < 200; tries += 1) {
    const found = (await approvals()).pending.find((approval) => approval.requestId === requestId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${requestId} never waited for approval`);
}

const decide = async (id: string, body: Record<string, unknown>) => {
  const response = await gw.request(`/approvals/${id}`, { method: 'POST', body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const ledgerOf = async (requestId: string) => ((await (await gw.request(`/ledger?requestId=${requestId}`)).json()) as { entries: LedgerEntry[] }).entries;

describe('an agent’s call to http_check', () => {
  it('waits for the operator, who alone may see and decide it; approved, it runs once with exactly those arguments', async () => {
    target.hits.length = 0;
    const call = asAgent('/tools/call', { ...check('/approved?x=1'), requestId: 'appr-ok' });
    const pending = await pendingFor('appr-ok');
    expect(pending).toMatchObject({
      principal: 'agent:claude',
      sessionId: 'agent:claude',
      status: 'pending',
      tool: { id: 'builtin:http_check', name: 'http_check', riskLevel: 'medium' },
      arguments: { url: `${target.url}/approved?x=1`, method: 'GET' },
    });
    expect(Date.parse(pending.expiresAt) - Date.parse(pending.requestedAt)).toBe(TIMEOUT_MS);
    expect(target.hits).toEqual([]);

    // The agent can neither read the queue nor decide its own call.
    expect(await asAgent('/approvals')).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN_FOR_AGENT' } } });
    expect(await asAgent(`/approvals/${pending.id}`, { decision: 'approve' })).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN_FOR_AGENT' } } });
    expect((await approvals()).pending.map((approval) => approval.id)).toContain(pending.id);

    const approved = await decide(pending.id, { decision: 'approve', argumentsDigest: pending.argumentsDigest });
    expect(approved).toMatchObject({ status: 200, body: { id: pending.id, status: 'approved' } });
    const answer = await call;
    expect(answer).toMatchObject({ status: 200, body: { ok: true, requestId: 'appr-ok', taskId: pending.taskId, result: { reachable: true, status: 200 } } });
    expect(target.hits).toEqual([{ method: 'GET', url: '/approved?x=1' }]);

    const entries = await ledgerOf('appr-ok');
    expect(entries.map((entry) => [entry.kind, entry.principal])).toEqual([
      ['approval_requested', 'agent:claude'],
      ['approval_decided', 'operator'],
      ['confirmation', 'agent:claude'],
      ['call_started', 'agent:claude'],
      ['call_finished', 'agent:claude'],
    ]);
    expect(JSON.stringify(entries)).not.toContain('/approved');
    expect(await decide(pending.id, { decision: 'deny' })).toMatchObject({ status: 409, body: { error: { code: 'APPROVAL_NOT_PENDING', status: 'approved' } } });
  });

  it('is refused with CONFIRMATION_DENIED and the note when the operator denies it; nothing reaches the server', async () => {
    target.hits.length = 0;
    const call = asAgent('/tools/call', { ...check('/denied'), requestId: 'appr-deny' });
    const pending = await pendingFor('appr-deny');
    expect(await decide(pending.id, { decision: 'deny', note: 'use the staging host' })).toMatchObject({ status: 200, body: { status: 'denied', note: 'use the staging host' } });
    const answer = await call;
    expect(answer).toMatchObject({ status: 403, body: { ok: false, taskId: pending.taskId, error: { code: 'CONFIRMATION_DENIED', note: 'use the staging host' } } });
    expect(answer.body.error?.message).toContain('use the staging host');
    expect(target.hits).toEqual([]);
    expect((await ledgerOf('appr-deny')).at(-1)).toMatchObject({ kind: 'call_finished', details: { status: 'refused', code: 'CONFIRMATION_DENIED' } });
  });

  it(`expires with CONFIRMATION_EXPIRED after approvals.timeoutMs (${TIMEOUT_MS} ms)`, async () => {
    target.hits.length = 0;
    const started = Date.now();
    const answer = await asAgent('/tools/call', { ...check('/expired'), requestId: 'appr-expire' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(answer).toMatchObject({ status: 408, body: { error: { code: 'CONFIRMATION_EXPIRED' } } });
    expect(target.hits).toEqual([]);
    expect((await approvals()).recent.find((approval) => approval.requestId === 'appr-expire')).toMatchObject({ status: 'expired' });
    expect((await ledgerOf('appr-expire')).find((entry) => entry.kind === 'approval_decided')).toMatchObject({ principal: 'system', details: { decision: 'expired' } });
  });

  it('is withdrawn when the operator cancels its task, and the cancellation does not wait for anyone', async () => {
    target.hits.length = 0;
    const call = asAgent('/tools/call', { ...check('/cancelled'), requestId: 'appr-cancel' });
    const pending = await pendingFor('appr-cancel');
    const cancelled = await gw.request(`/tasks/${pending.taskId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id: pending.taskId, state: 'cancelled' });
    expect(await call).toMatchObject({ status: 409, body: { error: { code: 'CALL_CANCELLED' } } });
    expect(target.hits).toEqual([]);
    const listed = await approvals();
    expect(listed.pending).toEqual([]);
    expect(listed.recent.find((approval) => approval.id === pending.id)).toMatchObject({ status: 'withdrawn', reason: 'its task stopped running' });
  });

  it('leaves the operator’s own calls to the challenge, as before', async () => {
    const asked = await gw.call({ ...check('/operator'), requestId: 'appr-operator' });
    expect(asked).toMatchObject({ status: 428, body: { error: { code: 'CONFIRMATION_REQUIRED', challenge: { id: expect.any(String) } } } });
    expect((await approvals()).pending).toEqual([]);
  });
});
