/**
 * Follow-ups waiting their turn, in the order they will run. A blocked one waits for the
 * operator: Resume runs it anyway, Cancel drops it, Supersede replaces it. Cancel asks first,
 * as every task action that cannot be undone does: a dropped follow-up never runs.
 */
import { useState } from 'react';
import type { TaskView } from '../../../shared/tasks';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { TaskStateBadge } from './TaskStateBadge';
import { useTaskCommand } from './useTasks';

export function TaskQueue({ tasks, titleOf }: { tasks: readonly TaskView[]; titleOf(id: string | null): string | undefined }) {
  if (tasks.length === 0) return <p className="muted">No follow-ups waiting.</p>;
  return (
    <ol className="task-list" aria-label="Queued and blocked tasks">
      {tasks.map((task) => (
        <QueuedTask key={task.id} task={task} predecessorTitle={titleOf(task.predecessorId)} />
      ))}
    </ol>
  );
}

function QueuedTask({ task, predecessorTitle }: { task: TaskView; predecessorTitle: string | undefined }) {
  const resume = useTaskCommand();
  const cancel = useTaskCommand();
  const [confirming, setConfirming] = useState(false);
  const failure = resume.error ?? cancel.error;
  const error = failure && toErrorBody(failure);
  const blocked = task.state === 'blocked';
  return (
    <li className={`task-row task-row--${task.state}`} aria-label={task.title} data-task-id={task.id}>
      <div className="task-row__head">
        <TaskStateBadge state={task.state} />
        <span className="task-row__title">{task.title}</span>
      </div>
      <p className="muted task-row__note">
        {blocked
          ? `Blocked: it runs only if “${predecessorTitle ?? 'its predecessor'}” succeeds, and that did not happen.`
          : task.requiresSuccess
            ? `Runs after “${predecessorTitle ?? 'its predecessor'}”, only if that succeeds.`
            : `Runs after “${predecessorTitle ?? 'its predecessor'}” ends.`}
      </p>
      <div className="task-row__actions">
        {blocked && (
          <button type="button" className="button button--small button--primary" onClick={() => !resume.isPending && resume.mutate({ type: 'resume', id: task.id })} aria-disabled={resume.isPending}>
            <Icon name="play" />
            Resume
          </button>
        )}
        {!confirming && (
          <button type="button" className="button button--small button--danger" onClick={() => setConfirming(true)}>
            <Icon name="ban" />
            Cancel…
          </button>
        )}
      </div>
      {confirming && (
        <div className="notice notice--error" role="group" aria-label={`Confirm: cancel ${task.title}`}>
          <Icon name="ban" />
          <div>
            <p>Cancel “{task.title}”? It leaves the queue and never runs.</p>
            <div className="revoke__actions">
              <button type="button" className="button" onClick={() => setConfirming(false)} autoFocus>
                Keep it
              </button>
              <button
                type="button"
                className="button button--danger-solid"
                aria-disabled={cancel.isPending}
                onClick={() => !cancel.isPending && cancel.mutate({ type: 'cancel', id: task.id }, { onSettled: () => setConfirming(false) })}
              >
                {cancel.isPending ? 'Cancelling…' : 'Cancel follow-up'}
              </button>
            </div>
          </div>
        </div>
      )}
      {error && <ErrorNotice what={resume.error ? 'Resume failed' : 'Cancel failed'} error={error} />}
    </li>
  );
}
