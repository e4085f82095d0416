import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../electron/runtime/task';
import { CapstanError } from '../../shared/errors';
import { ACTIVE_STATES, TaskView, type TaskState } from '../../shared/tasks';
import { politeRead, quickWrite, runtimeFixture, stubbornWrite, type RuntimeFixture } from '../support/runtime';

let fixture: RuntimeFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

const states = (tasks: Task[]) => tasks.map((task) => task.state);
const transitions = (f: RuntimeFixture, taskId: string) =>
  f.ledger.query({ taskId, kind: 'task_transition', limit: 1000 }).map((entry) => entry.details.to);

/** Runs a test tool in a task through the runtime's one call path, as every entry does. */
function runCall(f: RuntimeFixture, task: Task, tool: 'stubborn_write' | 'polite_read' | 'quick_write', requestId: string) {
  const { contract, tool: compiled } = f.catalog.resolveTool(tool);
  const spec = { requestId, capability: contract.id, mutating: contract.mutating, timeoutMs: 60_000 };
  return f.runtime.runCall(task.running(), spec, (signal) => compiled.definition.run({}, { signal, requestId }));
}

describe('the task state machine', () => {
  it('starts, steers and finishes a task, recording every transition', async () => {
    fixture = await runtimeFixture();
    const { runtime } = fixture!;
    const task = runtime.start('s', 'printer offline on floor 3', 'The printer on floor 3 is offline');
    expect(task.state).toBe('running');
    expect(() => runtime.start('s', 'another')).toThrow(expect.objectContaining({ code: 'TASK_ACTIVE' }));
    task.context!.admit('skills:printer-runbook', 120, 'step');
    task.context!.admit('skills:site-map', 80, 'task');
    runtime.steer('s', undefined, 'It shows error E-41');
    // A steer starts a new step: step-scoped items leave, task-scoped ones stay.
    expect(task.view().context?.items.map((item) => item.id)).toEqual(['skills:site-map']);
    await runtime.finish('s', task.id, 'Replaced the fuser; printing again.', 'succeeded');
    expect(task.state).toBe('succeeded');
    expect(transitions(fixture!, task.id)).toEqual(['queued', 'running', 'quiescing', 'succeeded']);
    expect(runtime.view().sessions[0]!.conversation.map((m) => [m.role, m.text])).toEqual([
      ['operator', 'The printer on floor 3 is offline'],
      ['operator', 'It shows error E-41'],
      ['task', 'Replaced the fuser; printing again.'],
    ]);
    expect(() => runtime.steer('s', task.id, 'too late')).toThrow(expect.objectContaining({ code: 'TASK_NOT_ACTIVE' }));
  });

  it('queues a follow-up and runs it after its predecessor, with the redacted handoff', async () => {
    fixture = await runtimeFixture({ tools: [quickWrite] });
    const { runtime } = fixture!;
    const first = runtime.start('s', 'first', 'do the first thing');
    await runCall(fixture!, first, 'quick_write', 'r1');
    const second = runtime.followUp('s', 'second', 'then the second', false);
    runtime.steer('s', undefined, 'a steer after the follow-up was submitted');
    expect(second.state).toBe('queued');
    await runtime.finish('s', first.id, 'first done', 'failed');
    // Not dependent: it runs even though the first failed.
    expect(second.state).toBe('running');
    expect(second.handoff).toEqual({
      predecessorId: first.id,
      terminalStatus: 'failed',
      finalMessage: 'first done',
      callCounts: { ok: 1, error: 0, refused: 0, confirmation_requested: 0, cancelled: 0, outcome_unknown: 0 },
      discoverable: ['test:quick_write'],
      conversation: [expect.objectContaining({ text: 'do the first thing' })],
    });
    expect(second.snapshot).not.toBe(undefined);
    expect(second.grants).not.toBe(first.grants);
  });

  it('keeps a dependent follow-up blocked after a failure until the operator resumes it', async () => {
    fixture = await runtimeFixture();
    const { runtime } = fixture!;
    const first = runtime.start('s', 'first');
    const dependent = runtime.followUp('s', 'dependent', undefined, true);
    const after = runtime.followUp('s', 'after', undefined, false);
    await runtime.cancel(first.id);
    expect(states([first, dependent, after])).toEqual(['cancelled', 'blocked', 'queued']);
    runtime.resume(dependent.id);
    expect(dependent.state).toBe('running');
    await runtime.finish('s', dependent.id, 'done', 'succeeded');
    expect(after.state).toBe('running');
  });

  it('gives a task started beside a blocked follow-up the last ended task as predecessor', async () => {
    fixture = await runtimeFixture();
    const { runtime } = fixture;
    const first = runtime.start('s', 'first');
    const blocked = runtime.followUp('s', 'dependent', undefined, true);
    await runtime.finish('s', first.id, 'no luck', 'failed');
    const manual = runtime.taskForCall({ sessionId: 's' });
    expect(manual.predecessorId).toBe(first.id);
    expect(blocked.state).toBe('blocked');
    await runtime.finish('s', manual.id, 'checked', 'succeeded');
    // The blocked follow-up still waits for the operator.
    expect(blocked.state).toBe('blocked');
  });

  it('lets the operator cancel or replace a blocked follow-up', async () => {
    fixture = await runtimeFixture();
    const { runtime } = fixture!;
    const first = runtime.start('s', 'first');
    const blocked = runtime.followUp('s', 'dependent', undefined, true);
    await runtime.finish('s', first.id, 'no luck', 'failed');
    expect(blocked.state).toBe('blocked');
    const replacement = await runtime.supersede('s', 'a better plan');
    expect(blocked.state).toBe('superseded');
    expect(replacement.state).toBe('running');
  });

  it('supersede discards the waiting follow-ups, and the replacement hands over from the task it replaced', async () => {
    for (const requiresSuccess of [false, true]) {
      fixture = await runtimeFixture({ tools: [quickWrite] });
      const { runtime } = fixture;
      const active = runtime.start('s', 'active', 'do the thing');
      await runCall(fixture, active, 'quick_write', 'w-1');
      const queued = runtime.followUp('s', 'queued', undefined, requiresSuccess);
      const replacement = await runtime.supersede('s', 'replacement');
      expect(states([active, queued, replacement]), `requiresSuccess: ${requiresSuccess}`).toEqual(['superseded', 'superseded', 'running']);
      // The follow-up never ran: it went from queued straight to superseded.
      expect(transitions(fixture, queued.id)).toEqual(['queued', 'superseded']);
      expect(replacement.predecessorId).toBe(active.id);
      expect(replacement.handoff).toMatchObject({ predecessorId: active.id, terminalStatus: 'superseded', callCounts: { ok: 1 } });
      fixture.close();
      fixture = undefined;
    }
  });

  it('a supersede that replaces a blocked follow-up hands over from the last task that ran, not from the follow-up', async () => {
    fixture = await runtimeFixture({ tools: [quickWrite] });
    const { runtime } = fixture;
    const first = runtime.start('s', 'first');
    await runCall(fixture, first, 'quick_write', 'w-1');
    const blocked = runtime.followUp('s', 'dependent', undefined, true);
    await runtime.finish('s', first.id, 'no luck', 'failed');
    const replacement = await runtime.supersede('s', 'a better plan');
    expect(blocked.state).toBe('superseded');
    expect(replacement.handoff).toMatchObject({ predecessorId: first.id, terminalStatus: 'failed', finalMessage: 'no luck', callCounts: { ok: 1 } });
    // Nor does a task started later hand over from a follow-up cancelled before it ran.
    const dropped = runtime.followUp('s', 'dropped', undefined, true);
    await runtime.finish('s', replacement.id, 'also no luck', 'failed');
    await runtime.cancel(dropped.id);
    expect(transitions(fixture, dropped.id)).toEqual(['queued', 'blocked', 'cancelled']);
    expect(runtime.start('s', 'next').predecessorId).toBe(replacement.id);
  });
});

describe('cancellation', () => {
  it('stops new calls at once, aborts running ones, and waits for the barrier', async () => {
    fixture = await runtimeFixture({ tools: [politeRead] });
    const { runtime } = fixture!;
    const task = runtime.start('s', 'slow reads');
    const pending = runCall(fixture!, task, 'polite_read', 'read-1');
    const cancelling = runtime.cancel(task.id);
    expect(task.state).toBe('quiescing');
    expect(() => runtime.taskForCall({ sessionId: 's' })).toThrow(expect.objectContaining({ code: 'TASK_NOT_ACTIVE' }));
    expect(await pending).toMatchObject({ status: 'cancelled' });
    await cancelling;
    expect(task.state).toBe('cancelled');
    const ends = fixture!.ledger.query({ requestId: 'read-1', kind: 'call_finished' });
    expect(ends.map((e) => e.details.status)).toEqual(['cancelled']);
  });

  it('supersedes only after the barrier, and a stubborn mutating call blocks later mutations', async () => {
    fixture = await runtimeFixture({ tools: [stubbornWrite, quickWrite, politeRead], graceMs: 150 });
    const { runtime } = fixture!;
    const task = runtime.start('s', 'write things');
    const stubborn = runCall(fixture!, task, 'stubborn_write', 'w-1');
    const started = Date.now();
    const replacement = await runtime.supersede('s', 'start over');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(await stubborn).toMatchObject({ status: 'outcome_unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    expect(task.state).toBe('superseded');
    // The barrier held: the replacement started only after the unknown outcome was recorded.
    const seqOf = (kind: string, where: (details: Record<string, unknown>) => boolean) =>
      fixture!.ledger.query({ kind: kind as never, limit: 1000 }).find((e) => where(e.details))!.seq;
    expect(seqOf('call_finished', (d) => d.status === 'outcome_unknown')).toBeLessThan(
      fixture!.ledger.query({ taskId: replacement.id, kind: 'task_transition' }).find((e) => e.details.to === 'running')!.seq,
    );

    await expect(runCall(fixture!, replacement, 'quick_write', 'w-blocked')).rejects.toMatchObject({ code: 'MUTATION_BLOCKED', taskId: replacement.id });
    // Reads still run in the successor.
    const read = runCall(fixture!, replacement, 'polite_read', 'r-1');
    const cancelled = runtime.cancel(replacement.id);
    expect((await read).status).toBe('cancelled');
    await cancelled;

    runtime.acknowledge(task.id, 'w-1');
    expect(await runCall(fixture!, runtime.start('s', 'after the acknowledgement'), 'quick_write', 'w-2')).toMatchObject({ status: 'ok' });
    expect(fixture!.ledger.query({ kind: 'acknowledgement' })).toMatchObject([{ requestId: 'w-1', capability: 'test:stubborn_write' }]);
    expect(() => runtime.acknowledge(task.id, 'w-1')).toThrow(expect.objectContaining({ code: 'NOTHING_TO_ACKNOWLEDGE' }));
  });
});

describe('call statuses', () => {
  it('counts a confirmation round trip as a confirmation request, not a refusal, before and after a restart', async () => {
    fixture = await runtimeFixture({ tools: [quickWrite] });
    const task = fixture.runtime.start('s', 'confirmations');
    const { contract, tool } = fixture.catalog.resolveTool('quick_write');
    const call = (requestId: string, confirm: () => Record<string, unknown>) =>
      fixture!.runtime.runCall(task.running(), { requestId, capability: contract.id, mutating: true, timeoutMs: 5_000, confirm }, (signal) =>
        tool.definition.run({}, { signal, requestId }),
      );
    const refuse = (code: 'CONFIRMATION_REQUIRED' | 'CONFIRMATION_DENIED') => () => {
      throw new CapstanError(code, 'not confirmed');
    };
    // The HTTP round trip: a challenge, then the same call confirmed; and an approval the operator denied.
    await expect(call('asked', refuse('CONFIRMATION_REQUIRED'))).rejects.toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect(await call('confirmed', () => ({ challengeId: 'c-1' }))).toMatchObject({ status: 'ok' });
    await expect(call('denied', refuse('CONFIRMATION_DENIED'))).rejects.toMatchObject({ code: 'CONFIRMATION_DENIED' });
    const counts = { ok: 1, error: 0, refused: 1, confirmation_requested: 1, cancelled: 0, outcome_unknown: 0 };
    expect(task.view().callCounts).toEqual(counts);
    expect(fixture.ledger.query({ requestId: 'asked' }).map((entry) => entry.details)).toEqual([
      { confirmationRequested: true },
      { status: 'confirmation_requested', code: 'CONFIRMATION_REQUIRED', durationMs: 0 },
    ]);
    expect(fixture.ledger.query({ requestId: 'denied', kind: 'call_finished' })[0]!.details).toMatchObject({ status: 'refused', code: 'CONFIRMATION_DENIED' });

    await fixture.runtime.finish('s', task.id, 'done', 'succeeded');
    const next = fixture.runtime.followUp('s', 'next', undefined, false);
    expect(next.handoff?.callCounts).toEqual(counts);
    await fixture.ledger.durable();
    fixture = await fixture.restart();
    expect(fixture.runtime.get(task.id).view().callCounts).toEqual(counts);
    // A view stored before confirmation requests had a count of their own reads it as none.
    const { confirmation_requested: _new, ...before } = counts;
    expect(TaskView.parse({ ...task.view(), callCounts: before }).callCounts.confirmation_requested).toBe(0);
  });
});

describe('changes and their ledger entries', () => {
  it('applies no change whose entry could not be written', async () => {
    fixture = await runtimeFixture();
    const { runtime, ledger } = fixture!;
    // A lone surrogate cannot be canonicalized, so the ledger refuses the entry.
    expect(() => runtime.start('s', 'printer \ud800')).toThrow();
    expect(runtime.view().tasks).toEqual([]);
    expect(ledger.lastSeq).toBe(0);

    const task = runtime.start('s', 'printer');
    const before = { view: task.view(), seq: ledger.lastSeq };
    expect(() => runtime.reduceGrant(task.id, { pattern: 'test:\ud800*', authority: 'none' })).toThrow();
    expect(() => runtime.steer('s', task.id, 'E-41 \ud800')).toThrow();
    expect(task.view()).toEqual(before.view);
    expect(task.grants!.reductions).toEqual([]);
    expect(ledger.lastSeq).toBe(before.seq);
  });

  it('announces a call in flight with the task view of its recorded start', async () => {
    fixture = await runtimeFixture({ tools: [politeRead] });
    const { runtime } = fixture!;
    const task = runtime.start('s', 'reads');
    const seen: number[] = [];
    runtime.onChange((view) => seen.push(view.callsInFlight));
    const read = runCall(fixture!, task, 'polite_read', 'in-flight');
    expect(seen).toEqual([1]);
    await runtime.cancel(task.id);
    expect((await read).status).toBe('cancelled');
    expect(task.view().callsInFlight).toBe(0);
  });

  it('versions each task and session view with the seq of the entry that last changed it', async () => {
    fixture = await runtimeFixture({ tools: [quickWrite] });
    const { runtime, ledger } = fixture!;
    const task = runtime.start('s', 'versions');
    expect(task.version).toBe(ledger.lastSeq);
    await runCall(fixture!, task, 'quick_write', 'v-1');
    expect(task.view().version).toBe(ledger.query({ requestId: 'v-1', kind: 'call_finished' })[0]!.seq);
    runtime.steer('s', task.id, 'next step');
    const steer = ledger.query({ taskId: task.id, kind: 'steer' });
    expect(steer).toHaveLength(1);
    expect(steer[0]!.details).toEqual({ textDigest: ledger.digest('next step') });
    expect(task.version).toBe(steer[0]!.seq);
    expect(runtime.view().sessions[0]!.version).toBe(steer[0]!.seq);
  });
});

describe('concurrent actions', () => {
  it('lets two supersedes and a cancel race without an illegal transition', async () => {
    fixture = await runtimeFixture({ tools: [politeRead] });
    const { runtime } = fixture;
    const task = runtime.start('s', 'busy');
    const read = runCall(fixture, task, 'polite_read', 'read-race');
    const [a, b] = await Promise.all([runtime.supersede('s', 'plan A'), runtime.supersede('s', 'plan B'), runtime.cancel(task.id)]);
    expect((await read).status).toBe('cancelled');
    expect(task.state).toBe('superseded');
    expect(runtime.view().tasks.filter((t) => ACTIVE_STATES.includes(t.state))).toHaveLength(1);
    // The later supersede discarded the earlier one's replacement before it ran.
    expect([a!.state, b!.state].sort()).toEqual(['running', 'superseded']);
  });
});

describe('runtime invariants under random action sequences', () => {
  type Action =
    | { kind: 'start' | 'followUp' | 'supersede'; dependent: boolean }
    | { kind: 'finish'; failed: boolean }
    | { kind: 'cancelActive' | 'cancelWaiting' | 'resume' | 'call' | 'steer' };
  const action: fc.Arbitrary<Action> = fc.oneof(
    fc.record({ kind: fc.constantFrom('start', 'followUp', 'supersede' as const), dependent: fc.boolean() }),
    fc.record({ kind: fc.constant('finish' as const), failed: fc.boolean() }),
    fc.record({ kind: fc.constantFrom('cancelActive', 'cancelWaiting', 'resume', 'call', 'steer' as const) }),
  );

  it('one active task per session, every started call ends once, increasing sequence, a verified chain, no blocked task runs by itself', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 25 }), async (actions) => {
        const f = await runtimeFixture({ tools: [quickWrite] });
        const blockedSeen = new Set<string>();
        const resumed = new Set<string>();
        try {
          for (const [i, a] of actions.entries()) {
            const session = f.runtime.view().sessions.find((s) => s.id === 's');
            const tasks = f.runtime.view().tasks;
            const active = tasks.find((t) => ACTIVE_STATES.includes(t.state));
            const waiting = tasks.find((t) => t.state === 'queued' || t.state === 'blocked');
            try {
              if (a.kind === 'start') f.runtime.start('s', `t${i}`);
              if (a.kind === 'followUp') f.runtime.followUp('s', `t${i}`, undefined, a.dependent);
              if (a.kind === 'supersede') await f.runtime.supersede('s', `t${i}`);
              if (a.kind === 'finish' && active) await f.runtime.finish('s', active.id, 'done', a.failed ? 'failed' : 'succeeded');
              if (a.kind === 'cancelActive' && active) await f.runtime.cancel(active.id);
              if (a.kind === 'cancelWaiting' && waiting) await f.runtime.cancel(waiting.id);
              if (a.kind === 'resume' && waiting?.state === 'blocked') {
                resumed.add(waiting.id);
                f.runtime.resume(waiting.id);
              }
              if (a.kind === 'call' && active?.state === 'running') await runCall(f, f.runtime.get(active.id), 'quick_write', `c${i}`);
              if (a.kind === 'steer') f.runtime.steer('s', undefined, `note ${i}`);
            } catch (error) {
              expect(['TASK_ACTIVE', 'TASK_NOT_ACTIVE', 'TASK_NOT_FOUND']).toContain((error as { code?: string }).code);
            }
            void session;
            const now = f.runtime.view().tasks;
            expect(now.filter((t) => ACTIVE_STATES.includes(t.state)).length).toBeLessThanOrEqual(1);
            for (const t of now) {
              if (t.state === 'blocked') blockedSeen.add(t.id);
              // A task seen blocked runs only after the operator resumed it (or never).
              if (blockedSeen.has(t.id) && (['running', 'quiescing', 'succeeded', 'failed'] as TaskState[]).includes(t.state)) {
                expect(resumed.has(t.id)).toBe(true);
              }
            }
          }
          await Promise.all(f.runtime.view().tasks.filter((t) => t.state === 'running').map((t) => f.runtime.cancel(t.id)));
          const entries = f.ledger.query({ limit: 1000 });
          entries.forEach((entry, index) => expect(entry.seq).toBe(index + 1));
          const started = entries.filter((e) => e.kind === 'call_started').map((e) => e.requestId);
          const finished = entries.filter((e) => e.kind === 'call_finished').map((e) => e.requestId);
          expect(finished.sort()).toEqual(started.sort());
          expect(new Set(finished).size).toBe(finished.length);
          expect(f.ledger.verify()).toMatchObject({ ok: true, entries: entries.length });
        } finally {
          f.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('restarts', () => {
  it('closes what the last process left unfinished, lists its unknown outcome and keeps mutations blocked until acknowledged', async () => {
    fixture = await runtimeFixture({ tools: [stubbornWrite, quickWrite, politeRead] });
    const first = fixture.runtime.start('s', 'write things', 'Write the report');
    void runCall(fixture, first, 'stubborn_write', 'w-lost');
    void runCall(fixture, first, 'polite_read', 'r-lost');
    const queued = fixture.runtime.followUp('s', 'then this', undefined, false);
    await fixture.ledger.durable();

    fixture = await fixture.restart();
    const { runtime, ledger } = fixture;
    const view = runtime.view();
    const closed = view.tasks.find((t) => t.id === first.id)!;
    expect(closed).toMatchObject({ state: 'failed', callCounts: { outcome_unknown: 2 }, callsInFlight: 0 });
    expect(view.tasks.find((t) => t.id === queued.id)).toMatchObject({ state: 'failed' });
    expect(ledger.query({ taskId: first.id, kind: 'task_transition' }).at(-1)!.details).toEqual({ from: 'running', to: 'failed', reason: 'gateway restarted' });
    expect(ledger.query({ requestId: 'w-lost', kind: 'call_finished' }).map((e) => e.details)).toEqual([
      { status: 'outcome_unknown', code: 'OUTCOME_UNKNOWN', reason: 'gateway restarted' },
    ]);
    // Only the mutating call arms the gate; the read's unknown end is recorded but blocks nothing.
    const session = view.sessions.find((s) => s.id === 's')!;
    expect(session.unknownOutcomes.map((u) => u.requestId)).toEqual(['w-lost']);
    expect(session.conversation.map((m) => m.text)).toEqual(['Write the report']);

    // A follow-up runs at once, handed off from the last task that ran, which the restart closed
    // (not from the queued one it closed too: that never ran).
    const next = runtime.followUp('s', 'after the restart', undefined, false);
    expect(next.handoff).toMatchObject({ predecessorId: first.id, terminalStatus: 'failed', callCounts: { outcome_unknown: 2 } });
    await expect(runCall(fixture, next, 'quick_write', 'w-blocked')).rejects.toMatchObject({ code: 'MUTATION_BLOCKED' });
    runtime.acknowledge(first.id, 'w-lost');
    expect(await runCall(fixture, next, 'quick_write', 'w-after')).toMatchObject({ status: 'ok' });
    expect(ledger.verify()).toMatchObject({ ok: true });

    // A second restart closes only the follow-up still running, and the acknowledgement holds.
    await ledger.durable();
    fixture = await fixture.restart();
    expect(fixture.runtime.view().sessions.find((s) => s.id === 's')!.unknownOutcomes).toEqual([]);
    const closedByRestarts = fixture.ledger.query({ kind: 'task_transition', limit: 1000 }).filter((e) => e.details.reason === 'gateway restarted');
    expect(closedByRestarts.map((e) => e.taskId)).toEqual([first.id, queued.id, next.id]);
  });

  it('shows the same tasks, steers, handoffs and conversation after a restart, paging ended tasks newest first', async () => {
    fixture = await runtimeFixture({ tools: [quickWrite] });
    for (let i = 0; i < 5; i += 1) {
      const task = fixture.runtime.start('s', `task ${i}`, `input ${i}`);
      fixture.runtime.steer('s', task.id, `steer ${i}`);
      await runCall(fixture, task, 'quick_write', `w-${i}`);
      await fixture.runtime.finish('s', task.id, `done ${i}`, 'succeeded');
    }
    // As the gateway does before it answers: what the client hears of is on disk.
    await fixture.ledger.durable();
    const before = fixture.runtime.view();
    fixture = await fixture.restart();
    const after = fixture.runtime.view();
    for (const [index, task] of after.tasks.entries()) expect(task, task.title).toEqual(before.tasks[index]);
    expect(after.sessions).toEqual(before.sessions);
    expect(after.finishedTotal).toBe(5);

    const newest = fixture.runtime.view({ finishedLimit: 2 });
    expect(newest.tasks.map((t) => t.title)).toEqual(['task 4', 'task 3']);
    const older = fixture.runtime.view({ finishedLimit: 2, finishedBefore: newest.finishedBefore! });
    expect(older.tasks.map((t) => t.title)).toEqual(['task 2', 'task 1']);
    const oldest = fixture.runtime.view({ finishedLimit: 2, finishedBefore: older.finishedBefore! });
    expect(oldest).toMatchObject({ finishedBefore: null });
    expect(oldest.tasks.map((t) => t.title)).toEqual(['task 0']);
  });
});

describe('memory stays bounded', () => {
  it('lets ended tasks and idle sessions leave memory, and reads them back from the store', async () => {
    fixture = await runtimeFixture({ limits: { finishedTasks: 3, sessions: 4 } });
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const task = fixture.runtime.start(`session-${i}`, `task ${i}`, `hello ${i}`);
      ids.push(task.id);
      await fixture.runtime.finish(`session-${i}`, task.id, `bye ${i}`, 'succeeded');
    }
    // The view reads ended tasks from the store, so nothing is missing...
    expect(fixture.runtime.view().finishedTotal).toBe(12);
    // ...and any task or session comes back on demand, whole.
    expect(fixture.runtime.get(ids[0]!).view()).toMatchObject({ title: 'task 0', state: 'succeeded', finalMessage: 'bye 0' });
    const next = fixture.runtime.followUp('session-0', 'again', undefined, false);
    expect(next.handoff).toMatchObject({ predecessorId: ids[0], finalMessage: 'bye 0' });
    expect(next.handoff!.conversation.map((m) => m.text)).toEqual(['hello 0', 'bye 0']);
  });

  it('refuses a steer or a grant reduction past its limit with LIMIT_REACHED', async () => {
    fixture = await runtimeFixture({ limits: { steersPerTask: 2, reductionsPerTask: 1 } });
    const task = fixture.runtime.start('s', 'chatty');
    fixture.runtime.steer('s', task.id, 'one');
    fixture.runtime.steer('s', task.id, 'two');
    expect(() => fixture!.runtime.steer('s', task.id, 'three')).toThrow(expect.objectContaining({ code: 'LIMIT_REACHED', details: { what: 'steers', limit: 2 } }));
    expect(task.view().steers).toHaveLength(2);
    fixture.runtime.reduceGrant(task.id, { pattern: 'test:a*', authority: 'inspect' });
    expect(() => fixture!.runtime.reduceGrant(task.id, { pattern: 'test:b*', authority: 'inspect' })).toThrow(
      expect.objectContaining({ code: 'LIMIT_REACHED', details: { what: 'grant reductions', limit: 1 } }),
    );
  });
});
