/**
 * A task's calls by outcome: every call started in a task ends in exactly one of these. A call
 * answered with a confirmation challenge is counted apart from the refused ones: it did not
 * run yet, and the confirmed call that follows counts as a call of its own.
 */
import type { CallStatus } from '../../../shared/tasks';

const labels: Record<CallStatus, [label: string, meaning: string]> = {
  ok: ['ok', 'ran and returned'],
  error: ['error', 'ran and failed'],
  refused: ['refused', 'stopped before it ran: not granted, mutations blocked, an approval denied or expired'],
  confirmation_requested: ['confirmation asked', 'answered with a confirmation challenge; it runs when sent again, confirmed'],
  cancelled: ['cancelled', 'stopped by a cancellation'],
  outcome_unknown: ['unknown outcome', 'did not end within the grace period after it was stopped'],
};

export function CallCounts({ counts, inFlight }: { counts: Partial<Record<CallStatus, number>>; inFlight?: number }) {
  return (
    <dl className="call-counts" aria-label="Calls by outcome">
      {(Object.keys(labels) as CallStatus[]).map((status) => (
        <div key={status} className={`call-counts__item call-counts__item--${status} ${(counts[status] ?? 0) > 0 ? 'call-counts__item--some' : ''}`} title={labels[status][1]}>
          <dt>{labels[status][0]}</dt>
          <dd data-call-count={status}>{counts[status] ?? 0}</dd>
        </div>
      ))}
      {inFlight !== undefined && (
        <div className="call-counts__item call-counts__item--in-flight">
          <dt>in flight</dt>
          <dd data-call-count="in-flight">{inFlight}</dd>
        </div>
      )}
    </dl>
  );
}
