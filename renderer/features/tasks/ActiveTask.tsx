/**
 * The session's active task: its state and what it is doing (steers, calls, capability
 * context, the handoff it started with) and what the operator can do to it now.
 */
import type { TaskView } from '../../../shared/tasks';
import { useConsoleUi } from '../../state/uiStore';
import { clockTime } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { CallCounts } from './CallCounts';
import { ContextUsage } from './ContextUsage';
import { HandoffDigest } from './HandoffDigest';
import { HarnRunPanel } from './harn/HarnRunPanel';
import { SteerForm } from './SteerForm';
import type { DialogAction } from './TaskActionDialog';
import { TaskFacts } from './TaskFacts';
import { TaskProgress } from './TaskProgress';
import { TaskStateBadge } from './TaskStateBadge';

/** The title of the task the runtime starts for calls that name none (the console's Execute among them). */
const MANUAL_CALLS = 'Manual calls';

interface ActiveTaskProps {
  task: TaskView;
  titleOf(id: string | null): string | undefined;
  onDialog(action: DialogAction): void;
}

export function ActiveTask({ task, titleOf, onDialog }: ActiveTaskProps) {
  const showLedger = useConsoleUi((ui) => ui.showLedger);
  const running = task.state === 'running';

  return (
    <section className={`task-card task-card--${task.state}`} aria-labelledby="active-task-title" data-task-id={task.id}>
      <header className="task-card__header">
        <TaskStateBadge state={task.state} />
        <h3 id="active-task-title" className="task-card__title">
          {task.title}
        </h3>
        <button type="button" className="button button--small button--quiet" onClick={() => showLedger({ taskId: task.id })}>
          <Icon name="list" />
          Ledger
        </button>
      </header>
      {task.title === MANUAL_CALLS && (
        // What the operator did, first: the runtime's words (steer, supersede, budget) come after, explained where they are.
        <p className="task-card__lead">
          The tools you ran from this console. Nothing to finish: once the catalog changes (a server added, say), your next call continues in a new task.
        </p>
      )}
      <TaskFacts task={task} predecessorTitle={titleOf(task.predecessorId)} />
      {!running && (
        <p className="muted" role="status">
          {task.state === 'cancelling'
            ? 'Cancelling: new calls are refused and running calls have been told to stop.'
            : `Waiting for ${task.callsInFlight} started call${task.callsInFlight === 1 ? '' : 's'} to end.`}
        </p>
      )}

      <CallCounts counts={task.callCounts} inFlight={task.callsInFlight} />
      <TaskProgress task={task} />
      <HarnRunPanel taskId={task.id} />
      {task.context && <ContextUsage context={task.context} />}

      <div className="task-card__steers">
        <h4 className="subheading">Steers ({task.steers.length})</h4>
        {task.steers.length > 0 && (
          <ol className="steer-list">
            {task.steers.map((steer, index) => (
              <li key={index}>
                <time className="muted" dateTime={steer.at}>
                  {clockTime(steer.at)}
                </time>{' '}
                {steer.text}
              </li>
            ))}
          </ol>
        )}
        {running && <SteerForm sessionId={task.sessionId} taskId={task.id} />}
      </div>

      <div className="task-card__actions" role="group" aria-label="Active task actions">
        <button type="button" className="button" onClick={() => onDialog('finish')} disabled={!running} title="End this task with a final message, once its calls have ended">
          <Icon name="check" />
          Finish…
        </button>
        <button
          type="button"
          className="button"
          onClick={() => onDialog('supersede')}
          disabled={!running}
          title="Cancel this task and start a new one in its place (follow-ups waiting behind it are dropped)"
        >
          <Icon name="forward" />
          Supersede…
        </button>
        <button
          type="button"
          className="button button--danger"
          onClick={() => onDialog('cancel')}
          disabled={!running}
          title="Stop this task: new calls are refused, running calls are told to stop"
        >
          <Icon name="stop" />
          Cancel task…
        </button>
      </div>

      {task.handoff && <HandoffDigest handoff={task.handoff} predecessorTitle={titleOf(task.handoff.predecessorId)} />}
    </section>
  );
}
