/**
 * The runtime's hook for work a task does besides its calls (a Harn run): whatever stops the
 * task stops the work and waits for it in the barrier; a steer reaches it only if it takes one;
 * work that detached itself to finish its task is not stopped by that finish.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CapstanError } from '../../shared/errors';
import type { TaskWork } from '../../electron/runtime/runtime';
import { runtimeFixture, type RuntimeFixture } from '../support/runtime';

let fixture: RuntimeFixture | undefined;
afterEach(() => fixture?.close());

/** Work that stops when told, after `stopMs`, and records what it was given. */
function work({ stopMs = 50, steerable = true } = {}) {
  const seen = { stops: 0, stoppedAt: 0, steers: [] as string[] };
  const hook: TaskWork = {
    stop: async () => {
      seen.stops += 1;
      await new Promise((resolve) => setTimeout(resolve, stopMs));
      seen.stoppedAt = Date.now();
    },
    assertSteerable: () => {
      if (!steerable) throw new CapstanError('STEER_UNSUPPORTED', 'this work takes no steer');
    },
    steer: (text) => void seen.steers.push(text),
  };
  return { hook, seen };
}

describe('work attached to a task', () => {
  it('cancel stops the work and ends the task only once it has stopped', async () => {
    fixture = await runtimeFixture();
    const { runtime } = fixture;
    const task = runtime.start('s', 'a script');
    const { hook, seen } = work({ stopMs: 150 });
    runtime.attachWork(task.id, hook);
    const cancelled = await runtime.cancel(task.id);
    expect(cancelled.state).toBe('cancelled');
    expect(seen.stops).toBe(1);
    const ended = fixture.ledger.query({ taskId: task.id, kind: 'task_transition', limit: 20 }).at(-1)!;
    expect(Date.parse(ended.at)).toBeGreaterThanOrEqual(seen.stoppedAt - 5);
  });

  it('supersede and an operator finish stop it too; a failing stop does not hold the barrier up', async () => {
    fixture = await runtimeFixture();
    const { runtime } = fixture;
    const first = runtime.start('s', 'first');
    const one = work();
    runtime.attachWork(first.id, one.hook);
    const next = await runtime.supersede('s', 'second');
    expect(runtime.get(first.id).state).toBe('superseded');
    expect(one.seen.stops).toBe(1);
    runtime.attachWork(next.id, { ...work().hook, stop: () => Promise.reject(new Error('could not stop')) });
    expect((await runtime.finish('s', next.id, 'done', 'succeeded')).state).toBe('succeeded');
  });

  it('detached work finishing its own task is not stopped', async () => {
    fixture = await runtimeFixture();
    const { runtime } = fixture;
    const task = runtime.start('s', 'a script');
    const { hook, seen } = work();
    const detach = runtime.attachWork(task.id, hook);
    detach();
    await runtime.finish('s', task.id, 'the script ended', 'failed');
    expect(seen.stops).toBe(0);
    expect(runtime.get(task.id).state).toBe('failed');
  });

  it('a steer is refused, and not recorded, when the work takes none; otherwise recorded, then handed over', async () => {
    fixture = await runtimeFixture();
    const { runtime, ledger } = fixture;
    const task = runtime.start('s', 'a script');
    runtime.attachWork(task.id, work({ steerable: false }).hook);
    expect(() => runtime.steer('s', task.id, 'go left')).toThrow(/STEER_UNSUPPORTED/);
    expect(ledger.query({ taskId: task.id, kind: 'steer', limit: 5 })).toEqual([]);
    await runtime.cancel(task.id);

    const other = runtime.start('t', 'another script');
    const { hook, seen } = work();
    runtime.attachWork(other.id, hook);
    runtime.steer('t', other.id, 'go right');
    expect(seen.steers).toEqual(['go right']);
    expect(ledger.query({ taskId: other.id, kind: 'steer', limit: 5 })).toHaveLength(1);
    expect(() => runtime.attachWork(other.id, work().hook)).toThrow(/TASK_ACTIVE/);
    await runtime.cancel(other.id);
    expect(() => runtime.attachWork(other.id, work().hook)).toThrow(/TASK_NOT_ACTIVE/);
  });
});
