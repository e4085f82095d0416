/**
 * The activity dock along the bottom of the window: the Tasks, Ledger, Approvals and Agent calls views, beside
 * the registry rather than over it, so an operator can run a tool and watch its entries arrive.
 * The Approvals tab counts the agents' calls waiting for the operator, even while collapsed.
 * Collapsed it is a bar of tabs; open it takes part of the window, maximized most of it.
 * Tabs follow the ARIA pattern: one Tab stop, arrow keys move between them.
 */
import { useId, useRef, type KeyboardEvent } from 'react';
import { ACTIVE_STATES, DEFAULT_SESSION } from '../../../shared/tasks';
import { useConsoleUi, type DockTab } from '../../state/uiStore';
import { AgentCallsView } from '../agent-calls/AgentCallsView';
import { APPROVALS_SHORTCUT } from '../approvals/ApprovalsIndicator';
import { ApprovalsView } from '../approvals/ApprovalsView';
import { useApprovals } from '../approvals/useApprovals';
import { Icon, type IconName } from '../../ui/Icon';
import { LedgerView } from '../ledger/LedgerView';
import { TaskStateBadge } from '../tasks/TaskStateBadge';
import { TasksView } from '../tasks/TasksView';
import { useTasksView } from '../tasks/useTasks';

const tabs: { id: DockTab; label: string; icon: IconName }[] = [
  { id: 'tasks', label: 'Tasks', icon: 'tasks' },
  { id: 'ledger', label: 'Ledger', icon: 'list' },
  { id: 'approvals', label: 'Approvals', icon: 'shield' },
  { id: 'agent-calls', label: 'Agent calls', icon: 'plug' },
];

export function ActivityDock() {
  const tab = useConsoleUi((ui) => ui.dockTab);
  const size = useConsoleUi((ui) => ui.dockSize);
  const openDock = useConsoleUi((ui) => ui.openDock);
  const setSize = useConsoleUi((ui) => ui.setDockSize);
  const baseId = useId();
  const tabRefs = useRef(new Map<DockTab, HTMLButtonElement>());
  const collapsed = size === 'collapsed';

  const onTabKey = (event: KeyboardEvent) => {
    const index = tabs.findIndex((candidate) => candidate.id === tab);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length]!;
    openDock(target.id);
    tabRefs.current.get(target.id)?.focus();
  };

  return (
    <section className={`dock dock--${size}`} aria-label="Activity">
      <div className="dock__bar">
        <div className="dock__tabs" role="tablist" aria-label="Activity views" onKeyDown={onTabKey}>
          {tabs.map(({ id, label, icon }) => (
            <button
              key={id}
              ref={(element) => {
                if (element) tabRefs.current.set(id, element);
                else tabRefs.current.delete(id);
              }}
              type="button"
              role="tab"
              id={`${baseId}-${id}-tab`}
              className="dock__tab"
              aria-selected={id === tab}
              aria-controls={!collapsed && id === tab ? `${baseId}-${id}-panel` : undefined}
              tabIndex={id === tab ? 0 : -1}
              aria-keyshortcuts={id === 'approvals' ? APPROVALS_SHORTCUT : undefined}
              onClick={() => openDock(id)}
            >
              <Icon name={icon} />
              {label}
              {id === 'tasks' && <ActiveTaskHint />}
              {id === 'approvals' && <PendingApprovalsHint />}
            </button>
          ))}
        </div>
        <div className="dock__controls">
          {size === 'open' && (
            <button type="button" className="button button--small button--quiet" onClick={() => setSize('maximized')}>
              <Icon name="maximize" />
              Maximize<span className="visually-hidden"> the activity dock</span>
            </button>
          )}
          {size === 'maximized' && (
            <button type="button" className="button button--small button--quiet" onClick={() => setSize('open')}>
              <Icon name="restore" />
              Restore<span className="visually-hidden"> the activity dock&apos;s size</span>
            </button>
          )}
          <button
            type="button"
            className="button button--small button--quiet"
            aria-expanded={!collapsed}
            onClick={() => setSize(collapsed ? 'open' : 'collapsed')}
          >
            <Icon name={collapsed ? 'chevronUp' : 'chevronDown'} />
            {collapsed ? 'Expand' : 'Collapse'}
            <span className="visually-hidden"> the activity dock</span>
          </button>
        </div>
      </div>
      {!collapsed && (
        <div className={`dock__panel dock__panel--${tab}`} role="tabpanel" id={`${baseId}-${tab}-panel`} aria-labelledby={`${baseId}-${tab}-tab`}>
          <DockView tab={tab} />
        </div>
      )}
    </section>
  );
}

function DockView({ tab }: { tab: DockTab }) {
  switch (tab) {
    case 'tasks':
      return <TasksView />;
    case 'ledger':
      return <LedgerView />;
    case 'agent-calls':
      return <AgentCallsView />;
    case 'approvals':
      return <ApprovalsView />;
  }
}

/** How many agents' calls wait for the operator, on the Approvals tab. */
function PendingApprovalsHint() {
  const waiting = useApprovals().data?.pending.length ?? 0;
  if (waiting === 0) return null;
  return (
    <span className="count-badge count-badge--warn" title={`${waiting} agent ${waiting === 1 ? 'call waits' : 'calls wait'} for your approval`} data-testid="approvals-count">
      {waiting}
    </span>
  );
}

/** The console session's active task state on the Tasks tab, and a warning while mutations are blocked. */
function ActiveTaskHint() {
  const { data } = useTasksView();
  const active = data?.tasks.find((task) => task.sessionId === DEFAULT_SESSION && ACTIVE_STATES.includes(task.state));
  const blocked = data?.sessions.find((session) => session.id === DEFAULT_SESSION)?.unknownOutcomes.length ?? 0;
  return (
    <>
      {active && <TaskStateBadge state={active.state} />}
      {blocked > 0 && (
        <span className="count-badge count-badge--warn" title="Unknown outcomes to acknowledge: mutating calls are blocked">
          {blocked}
        </span>
      )}
    </>
  );
}
