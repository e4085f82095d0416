/**
 * Harn runs in the console's cache: the list of runs (which tasks are Harn runs) and, for each
 * run the page shows, its lines. `harn` events patch both: a run's summary replaces the held one,
 * its lines are merged by `seq` (a streamed message or a tool call's line grows in place) and
 * only the last HARN_UPDATES_KEPT are kept, as on the gateway. An event that skipped lines, or
 * that arrives while the run is being read, sends the page to read the run again.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { HARN_UPDATES_KEPT, type HarnRunsView, type HarnRunView, type HarnUpdate } from '../../../../shared/harn';
import type { HarnRunChanged } from '../../../../shared/events';

export const harnKeys = {
  runs: ['harnRuns'] as const,
  run: (taskId: string) => ['harnRun', taskId] as const,
};

export function applyHarnEvent(client: QueryClient, { run, updates, skipped }: z.infer<typeof HarnRunChanged>): void {
  client.setQueryData<HarnRunsView>(harnKeys.runs, (held) => (held ? { runs: [run, ...held.runs.filter((known) => known.taskId !== run.taskId)] } : held));
  const key = harnKeys.run(run.taskId);
  // A read of the run that is still on its way may have left the gateway before these lines
  // existed, and would overwrite them when it lands: drop that read and read again.
  if (client.getQueryState(key)?.fetchStatus === 'fetching') {
    void client.cancelQueries({ queryKey: key }).then(() => client.invalidateQueries({ queryKey: key }));
    return;
  }
  if (skipped > 0) {
    void client.invalidateQueries({ queryKey: key });
    return;
  }
  client.setQueryData<HarnRunView>(key, (held) => (held ? { ...held, ...run, ...mergeLines(held, updates) } : held));
}

/** The held lines with the new ones merged in by seq, cut to the last HARN_UPDATES_KEPT. */
export function mergeLines(held: Pick<HarnRunView, 'updates' | 'dropped'>, updates: readonly HarnUpdate[]): Pick<HarnRunView, 'updates' | 'dropped'> {
  if (updates.length === 0) return held;
  const bySeq = new Map(held.updates.map((line) => [line.seq, line]));
  for (const line of updates) bySeq.set(line.seq, line);
  const lines = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  const cut = Math.max(0, lines.length - HARN_UPDATES_KEPT);
  return { updates: lines.slice(cut), dropped: held.dropped + cut };
}
