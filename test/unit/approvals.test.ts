/**
 * The approvals queue with the real runtime and ledger: an agent's call waits as its
 * `spec.confirm` until the operator approves (it runs once, with those arguments), denies, lets
 * it expire, or its task stops (withdrawn, and the task's barrier does not wait on a person).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalView } from '../../shared/approvals';
import { Approvals, MAX_PENDING_APPROVALS, type ApprovalWait } from '../../electron/services/approvals';
import type { RunningTask } from '../../electron/runtime/task';
import { runtimeFixture, testTool, type RuntimeFixture } from '../support/runtime';

let fixture: RuntimeFixture | undefined;
let approvals: Approvals | undefined;
afterEach(() => {
  approvals?.close();
  fixture?.close();
  fixture = approvals = undefined;
});

const ran: unknown[] = [];
const guardedWrite = testTool({
  name: 'guarded_write',
  description: 'Writes once an operator agrees',
  riskLevel: 'medium',
  needConfirm: true,
  mutating: true,
  run: (args) => {
    ran.push(args);
    return { written: true };
  },
});

async function setup(options: { timeoutMs?: number; progressMs?: number } = {}) {
  ran.length = 0;
  fixture = await runtimeFixture({ tools: [guardedWrite] });
  const published: ApprovalView[] = [];
  approvals = new Approvals({ ledger: fixture.ledger, timeoutMs: options.timeoutMs ?? 60_000, progressMs: options.progressMs, publish: (view) => published.push(view) });
  return { f: fixture, queue: approvals, published };
}

/** An agent's call to guarded_write through the runtime's one call path, its confirmation the approvals queue. */
function agentCall(f: RuntimeFixture, queue: Approvals, task: RunningTask, requestId: string, args: Record<string, unknown>, onWaiting?: (wait: ApprovalWait) => void) {
  const { contract, tool } = f.catalog.resolveTool('guarded_write');
  const { id, name, title, description, riskLevel, mutating } = contract;
  const request = { requestId, principal: 'agent:claude', taskId: task.id, sessionId: task.sessionId, tool: { id, name, title, description, riskLevel, mutating }, arguments: args };
  return f.runtime.runCall(
    task,
    { requestId, capability: id, mutating, timeoutMs: 10_000, confirm: (stopped) => queue.wait(request, { signal: stopped, onWaiting }) },
    (signal) => tool.definition.run(args, { signal, requestId }),
  );
}

const kinds = (f: RuntimeFixture, requestId: string) => f.ledger.query({ requestId, limit: 1000 }).map((entry) => [entry.kind, entry.details.decision ?? entry.details.status ?? null]);
/** A call's end either way, so a test can start it, decide, then look. */
const settled = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error: error as { code: string; message: string } }),
  );

describe('an agent’s call to a tool that needs confirmation', () => {
  it('waits until the operator approves, then runs once with exactly the arguments shown', async () => {
    const { f, queue, published } = await setup();
    const task = f.runtime.start('agent-s', 'agent work');
    const call = agentCall(f, queue, task, 'r-approve', { path: '/tmp/x', text: 'hello' });
    const [pending] = queue.list().pending;
    expect(pending).toMatchObject({ requestId: 'r-approve', principal: 'agent:claude', taskId: task.id, sessionId: 'agent-s', status: 'pending', arguments: { path: '/tmp/x', text: 'hello' } });
    expect(pending!.tool).toMatchObject({ name: 'guarded_write', riskLevel: 'medium', mutating: true });
    expect(ran).toEqual([]);

    const approved = queue.decide({ id: pending!.id, decision: 'approve', argumentsDigest: pending!.argumentsDigest });
    expect(approved).toMatchObject({ status: 'approved', decidedAt: expect.any(String) });
    const outcome = await call;
    expect(outcome).toMatchObject({ status: 'ok', result: { written: true } });
    expect(ran).toEqual([{ path: '/tmp/x', text: 'hello' }]);
    expect(kinds(f, 'r-approve')).toEqual([
      ['approval_requested', null],
      ['approval_decided', 'approved'],
      ['confirmation', null],
      ['call_started', null],
      ['call_finished', 'ok'],
    ]);
    const confirmation = f.ledger.query({ requestId: 'r-approve', kind: 'confirmation' })[0]!;
    expect(confirmation.details).toMatchObject({ approvalId: pending!.id, argumentsDigest: f.ledger.digest({ path: '/tmp/x', text: 'hello' }) });
    // Evidence only: the ledger never holds the arguments themselves.
    expect(JSON.stringify(f.ledger.query({ requestId: 'r-approve' }))).not.toContain('/tmp/x');
    expect(published.map((view) => view.status)).toEqual(['pending', 'approved']);
    expect(queue.list()).toMatchObject({ pending: [], recent: [{ id: pending!.id, status: 'approved' }] });
    // Decided once: a second decision changes nothing.
    expect(() => queue.decide({ id: pending!.id, decision: 'approve' })).toThrow(expect.objectContaining({ code: 'APPROVAL_NOT_PENDING', details: { status: 'approved' } }));
    expect(() => queue.decide({ id: 'approval-nope', decision: 'deny' })).toThrow(expect.objectContaining({ code: 'APPROVAL_NOT_FOUND' }));
  });

  it('is refused with CONFIRMATION_DENIED and the operator’s note when denied; nothing runs', async () => {
    const { f, queue } = await setup();
    const task = f.runtime.start('agent-s', 'agent work');
    const call = settled(agentCall(f, queue, task, 'r-deny', { path: '/etc/passwd' }));
    const [pending] = queue.list().pending;
    queue.decide({ id: pending!.id, decision: 'deny', note: '  not that file  ' });
    const { error } = await call;
    expect(error).toMatchObject({ code: 'CONFIRMATION_DENIED', message: expect.stringContaining('not that file') });
    expect(ran).toEqual([]);
    expect(kinds(f, 'r-deny')).toEqual([
      ['approval_requested', null],
      ['approval_decided', 'denied'],
      ['call_started', null],
      ['call_finished', 'refused'],
    ]);
    const decided = f.ledger.query({ requestId: 'r-deny', kind: 'approval_decided' })[0]!;
    expect(decided.details).toMatchObject({ noteDigest: f.ledger.digest('not that file') });
    expect(JSON.stringify(decided)).not.toContain('not that file');
    expect(f.ledger.query({ requestId: 'r-deny', kind: 'call_finished' })[0]!.details.code).toBe('CONFIRMATION_DENIED');
    expect(queue.list().recent[0]).toMatchObject({ status: 'denied', note: 'not that file' });
  });

  it('expires with CONFIRMATION_EXPIRED, recorded by the gateway itself', async () => {
    const { f, queue } = await setup({ timeoutMs: 50 });
    const task = f.runtime.start('agent-s', 'agent work');
    const { error } = await settled(agentCall(f, queue, task, 'r-expire', { text: 'late' }));
    expect(error).toMatchObject({ code: 'CONFIRMATION_EXPIRED' });
    expect(ran).toEqual([]);
    const decided = f.ledger.query({ requestId: 'r-expire', kind: 'approval_decided' })[0]!;
    expect(decided).toMatchObject({ principal: 'system', details: { decision: 'expired', reason: expect.stringContaining('no decision') } });
    expect(queue.list()).toMatchObject({ pending: [], recent: [{ status: 'expired' }] });
  });

  it('holds an approval only for the arguments the operator reviewed', async () => {
    const { f, queue } = await setup();
    const task = f.runtime.start('agent-s', 'agent work');
    void settled(agentCall(f, queue, task, 'r-digest', { text: 'a' }));
    const [pending] = queue.list().pending;
    expect(() => queue.decide({ id: pending!.id, decision: 'approve', argumentsDigest: 'f'.repeat(64) })).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    expect(queue.list().pending).toHaveLength(1);
  });

  it('tells its entry that it waits, at once and then every interval, and stops when it ends', async () => {
    const { f, queue } = await setup({ progressMs: 20 });
    const task = f.runtime.start('agent-s', 'agent work');
    const waits: ApprovalWait[] = [];
    const call = settled(agentCall(f, queue, task, 'r-progress', {}, (wait) => waits.push(wait)));
    expect(waits).toHaveLength(1);
    await vi.waitFor(() => expect(waits.length).toBeGreaterThanOrEqual(3));
    expect(waits.at(-1)).toMatchObject({ requestId: 'r-progress', timeoutMs: 60_000, message: expect.stringContaining('waiting for the operator') });
    queue.decide({ id: waits[0]!.approvalId, decision: 'deny' });
    await call;
    const told = waits.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(waits).toHaveLength(told);
  });

  it('re-checks the grant after the wait: a grant lowered meanwhile refuses the approved call', async () => {
    const { f, queue } = await setup();
    const task = f.runtime.start('agent-s', 'agent work');
    const call = settled(agentCall(f, queue, task, 'r-grant', {}));
    f.runtime.reduceGrant(task.id, { pattern: 'test:guarded_write', authority: 'inspect' });
    queue.decide({ id: queue.list().pending[0]!.id, decision: 'approve' });
    expect((await call).error).toMatchObject({ code: 'NOT_GRANTED' });
    expect(ran).toEqual([]);
  });
});

describe('a task that stops while a call waits for approval', () => {
  it.each(['cancel', 'finish'] as const)('withdraws it on %s: refused and recorded before the task ends, and the barrier does not wait', async (how) => {
    const { f, queue, published } = await setup();
    const task = f.runtime.start('agent-s', 'agent work');
    const call = settled(agentCall(f, queue, task, `r-${how}`, {}));
    const stopped = how === 'cancel' ? f.runtime.cancel(task.id) : f.runtime.finish('agent-s', task.id, 'done', 'succeeded');
    await stopped;
    expect(task.state).toBe(how === 'cancel' ? 'cancelled' : 'succeeded');
    expect((await call).error).toMatchObject({ code: 'CALL_CANCELLED', message: expect.stringContaining('withdrawn') });
    expect(ran).toEqual([]);
    expect(published.map((view) => view.status)).toEqual(['pending', 'withdrawn']);
    expect(queue.list().pending).toEqual([]);
    // Withdrawn and refused inside the task's life: its terminal transition comes last.
    const entries = f.ledger.query({ taskId: task.id, limit: 1000 }).map((entry) => entry.kind);
    expect(entries.slice(-3)).toEqual(['call_started', 'call_finished', 'task_transition']);
    expect(entries.indexOf('approval_decided')).toBeLessThan(entries.indexOf('call_started'));
    expect(task.view().callCounts.refused).toBe(1);
  });
});

describe('the queue', () => {
  it(`refuses more than ${MAX_PENDING_APPROVALS} pending approvals, and withdraws them all on close`, async () => {
    const { f, queue } = await setup();
    const task = f.runtime.start('agent-s', 'agent work');
    const calls = Array.from({ length: MAX_PENDING_APPROVALS }, (_, index) => settled(agentCall(f, queue, task, `r-many-${index}`, { index })));
    await expect(agentCall(f, queue, task, 'r-one-more', {})).rejects.toMatchObject({ code: 'LIMIT_REACHED' });
    queue.close();
    for (const { error } of await Promise.all(calls)) expect(error).toMatchObject({ code: 'CALL_CANCELLED', message: expect.stringContaining('the gateway stopped') });
    expect(ran).toEqual([]);
  });
});
