/**
 * The task's running calls, whoever made them (the console, an agent over MCP, a script): each
 * with its progress as its tool reports it, or else its time against its deadline, and Cancel
 * call, which stops that call alone while the task runs on.
 */
import type { TaskView } from '../../../shared/tasks';
import { useProgress } from '../../state/progressStore';
import { CallProgressBar } from '../progress/CallProgressBar';
import { CallClock } from './CallClock';
import { CancelCallButton } from './CancelCallButton';

export function TaskProgress({ task }: { task: TaskView }) {
  const byRequest = useProgress((state) => state.byRequest);
  if (task.calls.length === 0) return null;
  return (
    <div className="task-card__progress">
      <h4 className="subheading">Running calls ({task.calls.length})</h4>
      <ul className="task-progress" aria-label="Running calls">
        {task.calls.map((call) => {
          const report = byRequest.get(call.requestId);
          return (
            <li key={call.requestId} aria-label={call.requestId}>
              <code className="muted">
                {call.capability} · {call.requestId}
                {call.principal !== 'operator' && ` · by ${call.principal}`}
              </code>
              {report ? <CallProgressBar report={report} label={call.capability} /> : <CallClock call={call} label={call.capability} />}
              {task.state === 'running' && <CancelCallButton requestId={call.requestId} tool={call.capability} mutating={call.mutating} />}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
