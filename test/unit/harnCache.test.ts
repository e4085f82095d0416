/**
 * The console's cache of Harn runs, with a real QueryClient: lines arriving in `harn` events are
 * merged into the run the page holds, and none is lost to a read of the run that left the
 * gateway before the line existed (the race that once hid a script's first stderr line).
 */
import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { HarnRunSummary, HarnRunView, HarnUpdate } from '../../shared/harn';
import { applyHarnEvent, harnKeys } from '../../renderer/features/tasks/harn/harnCache';

const summary: HarnRunSummary = {
  taskId: 'task-1',
  sessionId: 'session-1',
  script: '/scripts/check.harn',
  state: 'running',
  outcome: null,
  agent: null,
  steerable: false,
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
};
const line = (seq: number, text: string): HarnUpdate => ({ seq, at: '2026-01-01T00:00:01.000Z', kind: 'stderr', text });
const view = (updates: HarnUpdate[]): HarnRunView => ({ ...summary, prompt: null, updates, dropped: 0 });

/** A gateway whose run gains lines over time, and whose reads answer when the test says so. */
function gateway() {
  const lines: HarnUpdate[] = [];
  const pending: Array<() => void> = [];
  return {
    lines,
    reads: 0,
    read(): Promise<HarnRunView> {
      this.reads += 1;
      const answer = view([...lines]);
      return new Promise((resolve) => pending.push(() => resolve(answer)));
    },
    answerAll() {
      for (const answer of pending.splice(0)) answer();
    },
  };
}

/** Answers every read the page makes until it holds the run and reads no more. */
async function answerUntilSettled(client: QueryClient, server: ReturnType<typeof gateway>, key: readonly unknown[]) {
  for (let turn = 0; turn < 50; turn += 1) {
    server.answerAll();
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (client.isFetching() === 0 && client.getQueryData(key) !== undefined) return;
  }
  throw new Error('the page never settled on the run');
}

describe('the Harn run cache', () => {
  it('merges an event\'s lines into the held run by seq: a streamed line grows in place', () => {
    const client = new QueryClient();
    client.setQueryData(harnKeys.run('task-1'), view([line(1, 'compiling'), line(2, 'Check')]));
    applyHarnEvent(client, { type: 'harn', run: summary, updates: [line(2, 'Checking'), line(3, 'done')], skipped: 0 });
    expect(client.getQueryData<HarnRunView>(harnKeys.run('task-1'))!.updates.map((held) => held.text)).toEqual(['compiling', 'Checking', 'done']);
  });

  it('keeps a line that arrives while the run is being read, though the read left before the line existed', async () => {
    const client = new QueryClient();
    const server = gateway();
    const observer = new QueryObserver(client, { queryKey: harnKeys.run('task-1'), queryFn: () => server.read(), staleTime: Infinity });
    const unsubscribe = observer.subscribe(() => {});
    expect(server.reads).toBe(1);

    // The script writes its first line after the read left; the event reaches the page first.
    server.lines.push(line(1, '[harn] compiling check_health'));
    applyHarnEvent(client, { type: 'harn', run: summary, updates: [line(1, '[harn] compiling check_health')], skipped: 0 });
    await answerUntilSettled(client, server, harnKeys.run('task-1'));

    expect(client.getQueryData<HarnRunView>(harnKeys.run('task-1'))!.updates.map((held) => held.text)).toEqual(['[harn] compiling check_health']);
    unsubscribe();
  });

  it('reads the run again when an event says lines were skipped', async () => {
    const client = new QueryClient();
    const server = gateway();
    const observer = new QueryObserver(client, { queryKey: harnKeys.run('task-1'), queryFn: () => server.read(), staleTime: Infinity });
    const unsubscribe = observer.subscribe(() => {});
    await answerUntilSettled(client, server, harnKeys.run('task-1'));
    server.lines.push(line(1, 'a'), line(2, 'b'));
    applyHarnEvent(client, { type: 'harn', run: summary, updates: [line(2, 'b')], skipped: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1));
    await answerUntilSettled(client, server, harnKeys.run('task-1'));
    expect(server.reads).toBe(2);
    expect(client.getQueryData<HarnRunView>(harnKeys.run('task-1'))!.updates.map((held) => held.text)).toEqual(['a', 'b']);
    unsubscribe();
  });
});
