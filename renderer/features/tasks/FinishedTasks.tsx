/** Tasks that have ended, most recent first, each with its outcome and what it handed on. */
import type { TaskView } from '../../../shared/tasks';
import { useConsoleUi } from '../../state/uiStore';
import { clockTime } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { CallCounts } from './CallCounts';
import { HandoffDigest } from './HandoffDigest';
import { HarnRunPanel } from './harn/HarnRunPanel';
import { TaskFacts } from './TaskFacts';
import { TaskStateBadge } from './TaskStateBadge';

export function FinishedTasks({ tasks, titleOf }: { tasks: readonly TaskView[]; titleOf(id: string | null): string | undefined }) {
  const showLedger = useConsoleUi((ui) => ui.showLedger);
  if (tasks.length === 0) return <p className="muted">No task has ended yet.</p>;
  return (
    <ol className="task-list" aria-label="Finished tasks">
      {tasks.map((task) => (
        <li key={task.id} className={`task-row task-row--${task.state}`} aria-label={task.title} data-task-id={task.id}>
          <details>
            <summary className="task-row__head">
              <TaskStateBadge state={task.state} />
              <span className="task-row__title">{task.title}</span>
              {task.endedAt && (
                <time className="muted task-row__time" dateTime={task.endedAt}>
                  {clockTime(task.endedAt)}
                </time>
              )}
            </summary>
            <div className="task-row__body">
              <TaskFacts task={task} predecessorTitle={titleOf(task.predecessorId)} />
              <p>
                <span className="muted">Final message:</span> {task.finalMessage ?? <span className="muted">none</span>}
              </p>
              <CallCounts counts={task.callCounts} />
              {task.steers.length > 0 && (
                <p>
                  <span className="muted">Steers:</span> {task.steers.map((steer) => steer.text).join(' · ')}
                </p>
              )}
              {task.handoff && <HandoffDigest handoff={task.handoff} predecessorTitle={titleOf(task.handoff.predecessorId)} />}
              <HarnRunPanel taskId={task.id} />
              <button type="button" className="button button--small" onClick={() => showLedger({ taskId: task.id })}>
                <Icon name="list" />
                Show its ledger entries
              </button>
            </div>
          </details>
        </li>
      ))}
    </ol>
  );
}
