/**
 * A running call's progress as its tool reports it: a bar (or an indeterminate one when the
 * tool gives no total), its message, and the elapsed time against the call's deadline, ticking.
 * The deadline moves when the gateway extends it on progress, so it is read from each report.
 */
import type { ProgressReport } from '../../state/progressStore';
import { useNow } from '../../ui/useNow';
import { formatSpan, progressFigures } from './progressFigures';

interface CallProgressBarProps {
  report: ProgressReport;
  /** What the bar is for, for screen readers ("echo"). */
  label: string;
  /** When the console started the call, on this machine's clock (see progressFigures). */
  localStartedAt?: number;
}

export function CallProgressBar({ report, label, localStartedAt }: CallProgressBarProps) {
  const now = useNow(500);
  const figures = progressFigures(report, now, localStartedAt);
  const overdue = figures.remainingMs < 0;
  return (
    <div className="call-progress" data-testid="call-progress">
      <div className="call-progress__bar-row">
        <progress
          className="call-progress__bar"
          aria-label={`Progress of ${label}`}
          aria-valuetext={figures.fraction === null ? `step ${figures.steps}` : `${figures.steps} (${Math.round(figures.fraction * 100)}%)`}
          max={1}
          {...(figures.fraction === null ? {} : { value: figures.fraction })}
        />
        <span className="call-progress__steps" data-testid="progress-steps">
          {figures.steps}
        </span>
      </div>
      {report.message && <p className="call-progress__message">{report.message}</p>}
      <p className={`call-progress__clock ${overdue ? 'call-progress__clock--overdue' : ''}`} data-testid="progress-clock">
        <span>{formatSpan(figures.elapsedMs)} elapsed</span>
        {' · '}
        <span title={`Deadline ${new Date(report.deadlineAt).toLocaleTimeString()}`}>
          {overdue ? `deadline passed ${formatSpan(figures.remainingMs)} ago` : `deadline in ${formatSpan(figures.remainingMs)}`} (
          {formatSpan(figures.allowedMs)} allowed)
        </span>
      </p>
    </div>
  );
}
