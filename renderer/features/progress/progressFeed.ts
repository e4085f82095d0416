/**
 * Feeds the progress store: `progress` events gathered once per animation frame (a server may
 * report many times a second; only each call's latest report is drawn), and the ends of calls
 * (their call_finished ledger entries, or the console's own answer) that take the bars away.
 */
import { oncePerFrame } from '../../api/oncePerFrame';
import { useProgress, type ProgressEvent, type ProgressReport } from '../../state/progressStore';

/** Ends remembered, so a report that trails its call's end cannot leave a bar behind for good. */
const REMEMBERED_ENDS = 500;

export interface ProgressFeed {
  push(event: ProgressEvent): void;
  ended(requestId: string): void;
  stop(): void;
}

export function createProgressFeed(): ProgressFeed {
  let reports = new Map<string, ProgressReport>();
  let ends: string[] = [];
  const recentEnds = new Set<string>();
  let stopped = false;
  const flush = oncePerFrame(() => {
    const batch = [...reports.values()];
    const ended = ends;
    reports = new Map();
    ends = [];
    if (stopped) return;
    if (batch.length > 0) useProgress.getState().report(batch);
    if (ended.length > 0) useProgress.getState().end(ended);
  });
  return {
    push: ({ type: _type, ...report }) => {
      if (recentEnds.has(report.requestId)) return;
      reports.set(report.requestId, report);
      flush();
    },
    ended: (requestId) => {
      reports.delete(requestId);
      ends.push(requestId);
      recentEnds.add(requestId);
      if (recentEnds.size > REMEMBERED_ENDS) recentEnds.delete(recentEnds.values().next().value as string);
      flush();
    },
    stop: () => {
      stopped = true;
      reports.clear();
      ends = [];
    },
  };
}
