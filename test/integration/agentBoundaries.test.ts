/**
 * Issue 18, the low items about what one agent can do to or learn of others' work, through the
 * real gateway with agent tokens: a revoked agent's calls waiting for approval are withdrawn with
 * its token (10); an agent cancelling a call that is not its own, running or ended, learns nothing
 * of it: CALL_NOT_FOUND, as for a requestId never used (11); a requestId names one principal's
 * calls: another principal reusing it is refused REQUEST_ID_IN_USE, and an evidence check compares
 * only the caller's own entries (12).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalsView, ApprovalView } from '../../shared/approvals';
import type { LedgerEntry } from '../../shared/ledger';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { politeRead } from '../support/runtime';

let gw: TestGateway;
let target: LoopbackServer;

beforeAll(async () => {
  target = await startLoopbackServer();
  gw = await startTestGateway({
    config: {
      httpCheck: { allow: ['127.0.0.1/32'] },
      approvals: { timeoutMs: 30_000 },
      cancellation: { graceMs: 300 },
      grants: [
        { pattern: 'builtin:*', authority: 'execute' },
        { pattern: 'test:*', authority: 'execute' },
      ],
    },
  });
  await gw.host.catalog.addProvider({ name: 'test', kind: 'builtin', load: () => ({ tools: [politeRead], skills: [], diagnostics: [] }) });
});
afterAll(async () => {
  await gw.stop();
  await target.close();
});

type Answer = { status: number; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function as(token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}
const operator = (method: string, path: string, body?: unknown) => as(gw.token, method, path, body);
const check = (path: string) => ({ tool: 'http_check', arguments: { url: `${target.url}${path}`, method: 'GET' } });
const ledgerOf = async (requestId: string) => (await operator('GET', `/ledger?requestId=${requestId}`)).body.entries as LedgerEntry[];

async function pendingFor(requestId: string): Promise<ApprovalView> {
  for (let tries = 0; tries < 250; tries += 1) {
    const found = ((await operator('GET', '/approvals')).body as ApprovalsView).pending.find((approval) => approval.requestId === requestId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${requestId} never waited for approval`);
}

describe('revoking an agent (item 10)', () => {
  it("withdraws its pending approvals with its token: approving one is refused and nothing runs; another agent's stay", async () => {
    const doomed = gw.host.agents.create('doomed').token;
    const other = gw.host.agents.create('bystander').token;
    target.hits.length = 0;
    const first = as(doomed, 'POST', '/tools/call', { ...check('/revoked-1'), requestId: 'revoke-1' });
    const second = as(doomed, 'POST', '/tools/call', { ...check('/revoked-2'), requestId: 'revoke-2', sessionId: 'agent:doomed/second' });
    const theirs = as(other, 'POST', '/tools/call', { ...check('/bystander'), requestId: 'revoke-bystander' });
    const [one, two, bystander] = [await pendingFor('revoke-1'), await pendingFor('revoke-2'), await pendingFor('revoke-bystander')];

    expect((await operator('DELETE', '/agents/doomed')).status).toBe(200);
    const pending = ((await operator('GET', '/approvals')).body as ApprovalsView).pending.map((approval) => approval.id);
    expect(pending).not.toContain(one.id);
    expect(pending).not.toContain(two.id);
    expect(pending).toContain(bystander.id);

    for (const [approval, answer] of [[one, first], [two, second]] as const) {
      const decided = await operator('POST', `/approvals/${approval.id}`, { decision: 'approve', argumentsDigest: approval.argumentsDigest });
      expect(decided).toMatchObject({ status: 409, body: { error: { code: 'APPROVAL_NOT_PENDING', status: 'withdrawn' } } });
      expect((await answer).body).toMatchObject({ ok: false, error: { code: 'CALL_CANCELLED' } });
      expect((await answer).body.error.message).toContain("the agent's token was revoked");
    }
    const recent = ((await operator('GET', '/approvals')).body as ApprovalsView).recent.find((approval) => approval.id === one.id);
    expect(recent).toMatchObject({ status: 'withdrawn', reason: "the agent's token was revoked" });
    const entries = await ledgerOf('revoke-1');
    expect(entries.find((entry) => entry.kind === 'approval_decided')).toMatchObject({ principal: 'operator', details: { decision: 'withdrawn', reason: "the agent's token was revoked" } });
    // Recorded as a call refused before it ran: no confirmation, no run.
    expect(entries.some((entry) => entry.kind === 'confirmation')).toBe(false);
    expect(entries.find((entry) => entry.kind === 'call_started')?.details).toMatchObject({ refused: true });
    expect(entries.at(-1)).toMatchObject({ kind: 'call_finished', details: { status: 'refused', code: 'CALL_CANCELLED' } });
    expect(target.hits).toEqual([]);

    // The bystander's call still runs once approved.
    expect((await operator('POST', `/approvals/${bystander.id}`, { decision: 'approve' })).status).toBe(200);
    expect((await theirs).body).toMatchObject({ ok: true, result: { reachable: true } });
    expect(target.hits).toEqual([{ method: 'GET', url: '/bystander' }]);
  });
});

describe("an agent cancelling another principal's call (item 11)", () => {
  it('gets CALL_NOT_FOUND, the answer for a made-up requestId, whether the call is running or ended, and changes nothing', async () => {
    const snoop = gw.host.agents.create('snoop').token;
    const worker = gw.host.agents.create('worker').token;
    const operatorsRunning = operator('POST', '/tools/call', { tool: 'polite_read', sessionId: 'ops', requestId: 'op-running' });
    const workersRunning = as(worker, 'POST', '/tools/call', { tool: 'polite_read', requestId: 'worker-running' });
    expect((await operator('POST', '/tools/call', { tool: 'time_now', sessionId: 'ops', requestId: 'op-ended' })).status).toBe(200);
    expect((await as(worker, 'POST', '/tools/call', { tool: 'time_now', requestId: 'worker-ended' })).status).toBe(200);
    await expect.poll(async () => ((await operator('GET', '/tasks')).body.tasks as { calls: unknown[] }[]).flatMap((task) => task.calls).length).toBeGreaterThanOrEqual(2);

    /** The answer without the requestIds, which differ by construction. */
    const answer = async (requestId: string) => {
      const { status, body } = await as(snoop, 'POST', `/calls/${requestId}/cancel`, {});
      return JSON.parse(JSON.stringify({ status, error: body.error }).replaceAll(requestId, 'ID')) as unknown;
    };
    const madeUp = await answer('never-made');
    expect(madeUp).toEqual({ status: 404, error: { code: 'CALL_NOT_FOUND', message: 'CALL_NOT_FOUND: no call "ID" is running' } });
    for (const requestId of ['op-running', 'worker-running', 'op-ended', 'worker-ended']) expect(await answer(requestId), requestId).toEqual(madeUp);

    // Nothing was cancelled or recorded in the snoop's name.
    expect((await operator('GET', '/ledger?principal=agent:snoop&kind=cancellation')).body.entries).toEqual([]);
    // The owners still see their own: the worker's ended call is CALL_NOT_RUNNING to the worker, its running one cancellable.
    expect(await as(worker, 'POST', '/calls/worker-ended/cancel', {})).toMatchObject({ status: 409, body: { error: { code: 'CALL_NOT_RUNNING', callStatus: 'ok' } } });
    expect(await as(worker, 'POST', '/calls/worker-running/cancel', {})).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect((await workersRunning).body.error.code).toBe('CALL_CANCELLED');
    expect((await operator('POST', '/calls/op-running/cancel', {})).body).toMatchObject({ status: 'cancelled' });
    expect((await operatorsRunning).body.error.code).toBe('CALL_CANCELLED');
  });
});

describe('a requestId another principal already used (item 12)', () => {
  it('is refused REQUEST_ID_IN_USE before anything runs or is recorded; the owner may use it again', async () => {
    const intruder = gw.host.agents.create('intruder').token;
    const owner = gw.host.agents.create('owner').token;
    const operators = await operator('POST', '/tools/call', { tool: 'local_status', sessionId: 'ops', requestId: 'taken-by-operator' });
    expect(operators.status).toBe(200);
    const before = await ledgerOf('taken-by-operator');

    const reused = await as(intruder, 'POST', '/tools/call', { tool: 'time_now', requestId: 'taken-by-operator' });
    expect(reused).toMatchObject({ status: 409, body: { ok: false, requestId: 'taken-by-operator', error: { code: 'REQUEST_ID_IN_USE', field: 'requestId' } } });
    // It says neither whose it is nor how that call went.
    expect(reused.body.error.message.replace('taken-by-operator', 'ID')).not.toMatch(/operator|local_status|ok\b/);
    expect(await ledgerOf('taken-by-operator')).toEqual(before);
    // The operator's evidence check still compares the operator's own entry.
    const evidence = await operator('POST', '/ledger/evidence', { requestId: 'taken-by-operator', result: operators.body.result });
    expect(evidence.body).toMatchObject({ matches: true, seq: before.at(-1)!.seq });

    // Between agents alike, a refused call and an approval wait included; the owner itself may reuse its own.
    expect((await as(owner, 'POST', '/tools/call', { tool: 'time_now', requestId: 'agent-owned' })).status).toBe(200);
    expect((await as(intruder, 'POST', '/tools/call', { tool: 'time_now', requestId: 'agent-owned' })).body.error.code).toBe('REQUEST_ID_IN_USE');
    expect((await operator('POST', '/tools/call', { tool: 'time_now', requestId: 'agent-owned' })).body.error.code).toBe('REQUEST_ID_IN_USE');
    expect((await as(owner, 'POST', '/tools/call', { tool: 'time_now', requestId: 'agent-owned' })).status).toBe(200);
    const waiting = as(owner, 'POST', '/tools/call', { ...check('/owned'), requestId: 'owner-waits' });
    const approval = await pendingFor('owner-waits');
    expect((await as(intruder, 'POST', '/tools/call', { ...check('/stolen'), requestId: 'owner-waits' })).body.error.code).toBe('REQUEST_ID_IN_USE');
    expect(((await operator('GET', '/approvals')).body as ApprovalsView).pending.filter((pending) => pending.requestId === 'owner-waits')).toHaveLength(1);
    expect((await operator('POST', `/approvals/${approval.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await waiting).body.error.code).toBe('CONFIRMATION_DENIED');
    expect((await ledgerOf('agent-owned')).every((entry) => entry.principal === 'agent:owner')).toBe(true);

    // Chosen in the x-request-id header rather than the body, it is checked the same; only an id the gateway makes itself is not (no one can have used it).
    const byHeader = await fetch(`${gw.url}/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${intruder}`, 'content-type': 'application/json', 'x-request-id': 'agent-owned' },
      body: JSON.stringify({ tool: 'time_now' }),
    });
    expect(byHeader.status).toBe(409);
    expect(((await byHeader.json()) as Answer['body']).error.code).toBe('REQUEST_ID_IN_USE');
    const issued = await as(intruder, 'POST', '/tools/call', { tool: 'time_now' });
    expect(issued).toMatchObject({ status: 200, body: { requestId: expect.stringMatching(/^req-[0-9a-f-]{36}$/) } });
  });

  it("has the evidence check compare only the caller's own entries, whatever else the ledger holds under that requestId", async () => {
    const first = await operator('POST', '/tools/call', { tool: 'local_status', sessionId: 'ops', requestId: 'evidence-shared' });
    const own = (await ledgerOf('evidence-shared')).at(-1)!;
    // An agent's entry under the same requestId, as a ledger written before REQUEST_ID_IN_USE may hold.
    gw.host.ledger.append({
      kind: 'call_finished',
      requestId: 'evidence-shared',
      capability: 'builtin:time_now',
      details: { status: 'ok', resultDigest: gw.host.ledger.digest({ forged: true }) },
      principal: 'agent:intruder',
    });
    await gw.host.ledger.durable();
    const evidence = await operator('POST', '/ledger/evidence', { requestId: 'evidence-shared', result: first.body.result });
    expect(evidence.body).toMatchObject({ matches: true, seq: own.seq });
    const forged = await operator('POST', '/ledger/evidence', { requestId: 'evidence-shared', result: { forged: true } });
    expect(forged.body).toMatchObject({ matches: false, seq: own.seq });
  });
});
