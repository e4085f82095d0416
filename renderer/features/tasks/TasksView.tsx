/**
 * The Tasks view: the console's session (or one the operator picks), its active task, the
 * follow-ups waiting behind it, unknown outcomes to acknowledge, and finished tasks. Manual
 * executions join the session's running task, or start one called "Manual calls". When other
 * sessions exist, they are listed beside it, grouped by agent with ended ones folded (SessionNav).
 */
import { useMemo, useState } from 'react';
import { ACTIVE_STATES, DEFAULT_SESSION, TERMINAL_STATES, type TaskView } from '../../../shared/tasks';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { ActiveTask } from './ActiveTask';
import { FinishedTasks } from './FinishedTasks';
import { HarnRunDialog } from './harn/HarnRunDialog';
import { groupSessions } from './sessionGroups';
import { SessionNav } from './SessionNav';
import { TaskActionDialog, type DialogAction } from './TaskActionDialog';
import { TaskQueue } from './TaskQueue';
import { UnknownOutcomes } from './UnknownOutcomes';
import { useTasksView } from './useTasks';

const byEndDesc = (a: TaskView, b: TaskView) => (b.endedAt ?? b.createdAt).localeCompare(a.endedAt ?? a.createdAt);

export function TasksView() {
  const query = useTasksView();
  const sessionId = useConsoleUi((ui) => ui.taskSession);
  const setSession = useConsoleUi((ui) => ui.setTaskSession);
  const [dialog, setDialog] = useState<DialogAction | null>(null);
  const [harnOpen, setHarnOpen] = useState(false);
  // Grouped again only when the view changes (a listing, an event, an action's answer), not on every render.
  const data = query.data;
  const groups = useMemo(() => (data ? groupSessions(data.sessions, data.tasks) : null), [data]);

  if (!query.data) {
    return query.error ? (
      <ErrorNotice what="Could not read the tasks" error={toErrorBody(query.error)} />
    ) : (
      <p className="loading" role="status">
        <Icon name="spinner" className="spin" /> Reading tasks…
      </p>
    );
  }

  const { sessions, tasks: allTasks } = query.data;
  const session = sessions.find((candidate) => candidate.id === sessionId);
  const tasks = allTasks.filter((task) => task.sessionId === sessionId);
  const titles = new Map(allTasks.map((task) => [task.id, task.title]));
  const titleOf = (id: string | null) => (id === null ? undefined : titles.get(id));
  // Derived from the tasks, which events keep current, rather than from the session's last read.
  const active = tasks.find((task) => ACTIVE_STATES.includes(task.state));
  const waiting = tasks.filter((task) => task.state === 'queued' || task.state === 'blocked');
  const finished = tasks.filter((task) => TERMINAL_STATES.includes(task.state)).sort(byEndDesc);
  const otherSessions = groups !== null && (groups.own.length > 1 || groups.agents.length > 0);

  return (
    <div className="tasks-view">
      <div className={`tasks-view__layout${otherSessions ? ' tasks-view__layout--sessions' : ''}`}>
        {otherSessions && <SessionNav groups={groups} selected={sessionId} onSelect={setSession} />}
        <div className="tasks-view__main">
          {otherSessions && (
            <p className="tasks-view__current-session" data-testid="current-session">
              Session <code>{sessionId}</code>
              {sessionId === DEFAULT_SESSION && ' (this console)'}
            </p>
          )}
          <div className="tasks-view__toolbar">
            {!active && (
              <button type="button" className="button button--primary" onClick={() => setDialog('start')}>
                <Icon name="play" />
                Start task…
              </button>
            )}
            {!active && (
              <button type="button" className="button" onClick={() => setHarnOpen(true)}>
                <Icon name="play" />
                Run Harn script…
              </button>
            )}
            <button type="button" className="button" onClick={() => setDialog('follow_up')} title="Queue a task that runs once the active one has ended">
              <Icon name="clock" />
              Follow-up…
            </button>
            {!active && waiting.some((task) => task.state === 'blocked') && (
              <button type="button" className="button" onClick={() => setDialog('supersede')}>
                <Icon name="forward" />
                Supersede…
              </button>
            )}
          </div>

          <details className="tasks-view__words">
            <summary>What these words mean</summary>
            <dl>
              <dt>Task</dt>
              <dd>One piece of work in a session, with the tools it may use and what it did. Your console calls run in one called “Manual calls”.</dd>
              <dt>Steer</dt>
              <dd>A note for whoever does the running task’s work (a Harn script, an agent’s model); it starts a new step.</dd>
              <dt>Follow-up</dt>
              <dd>A task queued to run once the active one has ended (or only if it succeeded).</dd>
              <dt>Supersede</dt>
              <dd>Cancel the active task and run a new one in its place.</dd>
              <dt>Context budget</dt>
              <dd>How much of a model’s input the tools and skills a task loaded take; past it, more are refused rather than others dropped.</dd>
            </dl>
          </details>

          {session && session.unknownOutcomes.length > 0 && <UnknownOutcomes outcomes={session.unknownOutcomes} />}

          <div className="tasks-view__columns">
            <div className="tasks-view__column">
              <h3 className="pane-heading">Active task</h3>
              {active ? (
                <ActiveTask key={active.id} task={active} titleOf={titleOf} onDialog={setDialog} />
              ) : (
                <div className="placeholder">
                  <p>No task is running in this session.</p>
                  <p className="muted">
                    Start a titled task, or run a tool: a manual execution with no running task starts one called “Manual calls”.
                  </p>
                </div>
              )}
            </div>
            <div className="tasks-view__column">
              <h3 className="pane-heading">Waiting ({waiting.length})</h3>
              <TaskQueue tasks={waiting} titleOf={titleOf} />
              <h3 className="pane-heading">Finished ({finished.length})</h3>
              <FinishedTasks tasks={finished} titleOf={titleOf} />
            </div>
          </div>
        </div>
      </div>

      <TaskActionDialog action={dialog} sessionId={sessionId} active={active} waiting={waiting} onClose={() => setDialog(null)} />
      <HarnRunDialog open={harnOpen} sessionId={sessionId} onClose={() => setHarnOpen(false)} />
    </div>
  );
}
