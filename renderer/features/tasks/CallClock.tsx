/**
 * A running call's elapsed time against its deadline (its tool's timeout, from the task view), ticking,
 * for a call whose tool reports no progress (one that does shows CallProgressBar, whose clock
 * follows the deadline the progress moves).
 */
import type { RunningCallView } from '../../../shared/tasks';
import { useNow } from '../../ui/useNow';
import { formatSpan } from '../progress/progressFigures';

interface CallClockProps {
  call: Pick<RunningCallView, 'startedAt' | 'deadlineAt'>;
  /** What the call is, for screen readers ("echo"). */
  label: string;
  /** When the console started the call itself, on this machine's clock: elapsed time is then measured here alone. */
  localStartedAt?: number;
}

export function CallClock({ call, label, localStartedAt }: CallClockProps) {
  const now = useNow(500);
  const startedAt = Date.parse(call.startedAt);
  const allowedMs = Math.max(0, Date.parse(call.deadlineAt) - startedAt);
  const elapsedMs = Math.max(0, now - (localStartedAt ?? startedAt));
  const remainingMs = allowedMs - elapsedMs;
  const overdue = remainingMs < 0;
  return (
    <div className="call-progress" data-testid="call-clock">
      <div className="call-progress__bar-row">
        <progress className="call-progress__bar" aria-label={`Time ${label} has used of its deadline`} max={allowedMs || 1} value={Math.min(elapsedMs, allowedMs)} />
      </div>
      <p className={`call-progress__clock ${overdue ? 'call-progress__clock--overdue' : ''}`}>
        <span>{formatSpan(elapsedMs)} elapsed</span>
        {' · '}
        <span title={`Deadline ${new Date(call.deadlineAt).toLocaleTimeString()}`}>
          {overdue ? `deadline passed ${formatSpan(remainingMs)} ago` : `deadline in ${formatSpan(remainingMs)}`} ({formatSpan(allowedMs)} allowed)
        </span>
      </p>
    </div>
  );
}
