/**
 * The latest progress each running call reported (the gateway's `progress` events, from MCP
 * servers' progress notifications), keyed by requestId. Recent executions shows it on the
 * console's own calls and the Tasks view on every call of its task. A report is dropped when
 * its call ends, so the store holds running calls only.
 */
import { create } from 'zustand';
import type { CapstanEvent } from '../../shared/events';

export type ProgressEvent = Extract<CapstanEvent, { type: 'progress' }>;
export type ProgressReport = Omit<ProgressEvent, 'type'>;

/** Calls whose end was never heard of (a dropped stream) must not pile up; this many is plenty for one screen. */
export const MAX_REPORTS = 200;

interface ProgressState {
  byRequest: ReadonlyMap<string, ProgressReport>;
  /** The latest report of each call, gathered in one frame. */
  report(reports: readonly ProgressReport[]): void;
  /** The calls ended: their bars go. */
  end(requestIds: readonly string[]): void;
}

export const useProgress = create<ProgressState>()((set) => ({
  byRequest: new Map(),
  report: (reports) =>
    set((state) => {
      const next = new Map(state.byRequest);
      for (const report of reports) {
        // Re-inserting moves the call to the end, so the oldest silent ones are the ones dropped.
        next.delete(report.requestId);
        next.set(report.requestId, report);
      }
      while (next.size > MAX_REPORTS) next.delete(next.keys().next().value as string);
      return { byRequest: next };
    }),
  end: (requestIds) =>
    set((state) => {
      if (!requestIds.some((id) => state.byRequest.has(id))) return state;
      const next = new Map(state.byRequest);
      for (const id of requestIds) next.delete(id);
      return { byRequest: next };
    }),
}));

export const useCallProgress = (requestId: string) => useProgress((state) => state.byRequest.get(requestId));
