/**
 * The forms behind Start, Follow-up, Supersede, Finish and Cancel: each asks for what its action
 * needs, says what will happen (Supersede names the follow-ups it discards; Cancel asks before it
 * acts), and shows the gateway's refusal (code and message) in place.
 */
import { useId, useState, type FormEvent } from 'react';
import type { TaskAction, TaskView } from '../../../shared/tasks';
import { Dialog } from '../../ui/Dialog';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { TaskStateBadge } from './TaskStateBadge';
import { useTaskCommand } from './useTasks';

export type DialogAction = 'start' | 'follow_up' | 'supersede' | 'finish' | 'cancel';

const titles: Record<DialogAction, string> = {
  start: 'Start a task',
  follow_up: 'Queue a follow-up',
  supersede: 'Supersede the active task',
  finish: 'Finish the active task',
  cancel: 'Cancel the active task',
};

const submitLabels: Record<DialogAction, [idle: string, busy: string]> = {
  start: ['Start', 'Starting…'],
  follow_up: ['Queue follow-up', 'Queueing…'],
  supersede: ['Cancel it and start', 'Superseding…'],
  finish: ['Finish', 'Finishing…'],
  cancel: ['Cancel task', 'Cancelling…'],
};

interface TaskActionDialogProps {
  /** null while closed. */
  action: DialogAction | null;
  sessionId: string;
  /** The task Finish ends, Cancel stops and Supersede replaces. */
  active: TaskView | undefined;
  /** The follow-ups waiting behind it, in order: Supersede discards them. */
  waiting: readonly TaskView[];
  onClose(): void;
}

export function TaskActionDialog({ action, sessionId, active, waiting, onClose }: TaskActionDialogProps) {
  return (
    <Dialog open={action !== null} onClose={onClose} title={action ? titles[action] : ''} className="task-dialog">
      {/* A fresh form per opening: nothing typed for one action leaks into the next. */}
      {action && <TaskActionForm key={action} action={action} sessionId={sessionId} active={active} waiting={waiting} onDone={onClose} />}
    </Dialog>
  );
}

interface TaskActionFormProps {
  action: DialogAction;
  sessionId: string;
  active: TaskView | undefined;
  waiting: readonly TaskView[];
  onDone(): void;
}

function TaskActionForm({ action, sessionId, active, waiting, onDone }: TaskActionFormProps) {
  const command = useTaskCommand();
  const [title, setTitle] = useState('');
  const [input, setInput] = useState('');
  const [requiresSuccess, setRequiresSuccess] = useState(false);
  const [outcome, setOutcome] = useState<'succeeded' | 'failed'>('succeeded');
  const ids = { title: useId(), input: useId(), outcome: useId(), discarded: useId() };
  const error = command.error && toErrorBody(command.error);
  const [idle, busy] = submitLabels[action];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (command.isPending) return;
    if (action === 'cancel') {
      if (active) command.mutate({ type: 'cancel', id: active.id }, { onSuccess: onDone });
      return;
    }
    const text = input.trim() === '' ? undefined : input;
    const request: TaskAction =
      action === 'finish'
        ? { action, sessionId, taskId: active?.id, message: input, outcome }
        : action === 'follow_up'
          ? { action, sessionId, title, input: text, requiresSuccess }
          : { action, sessionId, title, input: text };
    command.mutate({ type: 'action', action: request }, { onSuccess: onDone });
  };

  return (
    <form className="task-form" onSubmit={submit}>
      {action === 'supersede' &&
        (active ? (
          <p className="notice notice--locked">
            Supersede first cancels “{active.title}”: new calls are refused at once, running calls are told to stop and get the grace period to
            end, and only then does the new task start, handed over from “{active.title}”. Side effects already made are not rolled back.
          </p>
        ) : (
          <p className="notice notice--locked">No task is running: the new task starts at once, handed over from the last task that ran.</p>
        ))}
      {action === 'supersede' && waiting.length > 0 && (
        <div className="notice notice--locked" id={ids.discarded}>
          <p>
            It also discards {waiting.length === 1 ? 'the follow-up' : `the ${waiting.length} follow-ups`} waiting in this session; they never
            run:
          </p>
          <ul aria-label="Follow-ups it discards">
            {waiting.map((task) => (
              <li key={task.id}>
                <TaskStateBadge state={task.state} /> {task.title}
              </li>
            ))}
          </ul>
        </div>
      )}
      {action === 'cancel' && (
        <p className="notice notice--locked">
          Cancels {active ? `“${active.title}”` : 'the active task'}: new calls are refused at once; {runningCalls(active?.callsInFlight ?? 0)}. Side
          effects already made are not rolled back: a call that writes data and does not stop ends with an unknown outcome, and further writes in
          this session wait until you acknowledge it.{waiting.length > 0 && ' Then the follow-ups waiting behind it run, unless they need it to succeed.'}
        </p>
      )}
      {action === 'follow_up' && <p className="muted">A follow-up waits until the tasks ahead of it end, then runs with their handoff.</p>}
      {action === 'finish' && active && (
        <p className="muted">
          Ends “{active.title}” once its running calls have ended. A queued follow-up runs next.
        </p>
      )}

      {action !== 'finish' && action !== 'cancel' && (
        <div className="field">
          <label htmlFor={ids.title}>Title</label>
          <input
            id={ids.title}
            className="input"
            value={title}
            onChange={(event) => setTitle(event.target.value)}
            required
            maxLength={200}
            placeholder="printer offline on floor 3"
            autoFocus
          />
        </div>
      )}
      {action !== 'cancel' && (
        <div className="field">
          <label htmlFor={ids.input}>{action === 'finish' ? 'Final message' : 'Input (optional)'}</label>
          <textarea
            id={ids.input}
            className="input"
            value={input}
            onChange={(event) => setInput(event.target.value)}
            required={action === 'finish'}
            maxLength={10_000}
            rows={3}
            autoFocus={action === 'finish'}
          />
          {action === 'finish' && <p className="field__hint muted">The successor receives it in its handoff.</p>}
        </div>
      )}
      {action === 'follow_up' && (
        <label className="checkbox">
          <input type="checkbox" checked={requiresSuccess} onChange={(event) => setRequiresSuccess(event.target.checked)} />
          Run only if the task before it succeeds
          <span className="muted">(otherwise it waits, blocked, for you to resume, cancel or replace it)</span>
        </label>
      )}
      {action === 'finish' && (
        <fieldset className="field field--inline">
          <legend>Outcome</legend>
          {(['succeeded', 'failed'] as const).map((value) => (
            <label key={value} className="checkbox">
              <input type="radio" name={ids.outcome} value={value} checked={outcome === value} onChange={() => setOutcome(value)} />
              {value === 'succeeded' ? 'Succeeded' : 'Failed'}
            </label>
          ))}
        </fieldset>
      )}

      {error && <ErrorNotice what={`${titles[action]} failed`} error={error} />}
      <div className="dialog__footer">
        <button type="button" className="button" onClick={onDone} autoFocus={action === 'cancel'}>
          {action === 'cancel' ? 'Keep it running' : 'Close'}
        </button>
        <button
          type="submit"
          className={`button ${action === 'cancel' ? 'button--danger' : `button--primary ${action === 'supersede' ? 'button--warning' : ''}`}`}
          aria-disabled={command.isPending}
          aria-describedby={action === 'supersede' && waiting.length > 0 ? ids.discarded : undefined}
        >
          {command.isPending ? busy : idle}
        </button>
      </div>
    </form>
  );
}

const runningCalls = (count: number) =>
  count === 0
    ? 'no call is running'
    : `${count === 1 ? 'its running call is' : `its ${count} running calls are`} told to stop and get the grace period to end`;
