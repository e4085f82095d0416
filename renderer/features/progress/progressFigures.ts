/**
 * What a running call's progress bar says, from its latest report and the time now. Pure, so
 * it is tested without a page.
 */
import type { ProgressReport } from '../../state/progressStore';

export interface ProgressFigures {
  /** Done so far, 0..1; null when the tool did not say how much there is (no total). */
  fraction: number | null;
  /** "3 of 5", or "3" without a total. */
  steps: string;
  elapsedMs: number;
  /** The time the call is allowed (deadline − start), as the gateway set it last. */
  allowedMs: number;
  /** Until the deadline; negative once it has passed (the gateway is then ending the call). */
  remainingMs: number;
}

/**
 * `localStartedAt`, when the console started the call itself, measures elapsed time on this
 * machine's clock alone; the gateway's startedAt/deadlineAt are then used only as a span, so a
 * browser on another clock still reads the right figures.
 */
export function progressFigures(report: ProgressReport, now: number, localStartedAt?: number): ProgressFigures {
  const startedAt = Date.parse(report.startedAt);
  const allowedMs = Math.max(0, Date.parse(report.deadlineAt) - startedAt);
  const elapsedMs = Math.max(0, now - (localStartedAt ?? startedAt));
  const { progress, total } = report;
  const fraction = total !== null && total > 0 ? Math.min(1, Math.max(0, progress / total)) : null;
  return {
    fraction,
    steps: total !== null ? `${formatNumber(progress)} of ${formatNumber(total)}` : formatNumber(progress),
    elapsedMs,
    allowedMs,
    remainingMs: allowedMs - elapsedMs,
  };
}

const formatNumber = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, ''));

/** Seconds read best for calls of a minute or so; minutes after that. */
export function formatSpan(ms: number): string {
  const seconds = Math.floor(Math.abs(ms) / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
