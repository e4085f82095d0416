/** A task's calls by outcome: every call started in a task ends in exactly one of these. */
import type { CallStatus } from '../../../shared/tasks';

const labels: Record<CallStatus, string> = {
  ok: 'ok',
  error: 'error',
  refused: 'refused',
  cancelled: 'cancelled',
  outcome_unknown: 'unknown outcome',
};

export function CallCounts({ counts, inFlight }: { counts: Partial<Record<CallStatus, number>>; inFlight?: number }) {
  return (
    <dl className="call-counts" aria-label="Calls by outcome">
      {(Object.keys(labels) as CallStatus[]).map((status) => (
        <div key={status} className={`call-counts__item call-counts__item--${status} ${(counts[status] ?? 0) > 0 ? 'call-counts__item--some' : ''}`}>
          <dt>{labels[status]}</dt>
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
