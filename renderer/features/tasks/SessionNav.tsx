/**
 * The sessions the Tasks view can show, grouped (./sessionGroups.ts): the operator's own, then
 * one group per agent with its counts. Ended agent sessions are folded under a disclosure, and
 * an agent with no active session is collapsed; folded rows are not rendered at all, so an
 * hour of MCP clients (hundreds of sessions) costs a heading per agent. Rows are memoized on
 * what they show, so a task event re-renders only the rows it changes.
 */
import { memo, useId, useState } from 'react';
import { DEFAULT_SESSION } from '../../../shared/tasks';
import { clockTime } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { sameSummaries, sameSummary, type AgentSessionGroup, type SessionGroups, type SessionSummary } from './sessionGroups';
import { taskStateLook } from './TaskStateBadge';
import './sessions.css';

interface SessionNavProps {
  groups: SessionGroups;
  selected: string;
  onSelect(sessionId: string): void;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export function SessionNav({ groups, selected, onSelect }: SessionNavProps) {
  const ownHeading = useId();
  return (
    <nav className="session-nav" aria-label="Task sessions">
      <h3 className="pane-heading">Sessions</h3>
      <section className="session-group" aria-labelledby={ownHeading}>
        <h4 id={ownHeading} className="session-group__title">
          Your sessions
        </h4>
        <SessionList label="Your sessions" sessions={groups.own} selected={selected} onSelect={onSelect} />
      </section>
      {groups.agents.map((group) => (
        <AgentGroup key={group.agent} group={group} selected={selected} onSelect={onSelect} />
      ))}
    </nav>
  );
}

interface AgentGroupProps {
  group: AgentSessionGroup;
  selected: string;
  onSelect(sessionId: string): void;
}

const AgentGroup = memo(
  function AgentGroup({ group, selected, onSelect }: AgentGroupProps) {
    const hasActive = group.active.length > 0;
    // Until the operator opens or closes it, a group is open while one of its sessions is active.
    const [opened, setOpened] = useState<boolean | null>(null);
    const [endedShown, setEndedShown] = useState(false);
    const open = opened ?? hasActive;
    const bodyId = useId();
    const endedId = useId();
    const endedCount = group.ended.length;
    return (
      <section className="session-group" aria-label={`Sessions of ${group.agent}`} data-agent={group.agent}>
        <h4 className="session-group__title">
          <button
            type="button"
            className="session-group__toggle"
            aria-expanded={open}
            aria-controls={open ? bodyId : undefined}
            onClick={() => setOpened(!open)}
          >
            <Icon name="chevronDown" className={`session-group__chevron${open ? '' : ' session-group__chevron--closed'}`} />
            <span className="session-group__agent">{group.agent}</span>
            <span className="session-group__counts">
              <span data-session-count="active">{group.active.length} active</span>
              {' · '}
              <span data-session-count="ended">{endedCount} ended</span>
              {' · '}
              <span data-session-count="running">{group.running} running</span>
              {' · '}
              <span data-session-count="waiting">{group.waiting} waiting</span>
            </span>
          </button>
        </h4>
        {open && (
          <div id={bodyId} className="session-group__body">
            {hasActive ? (
              <SessionList label={`Active sessions of ${group.agent}`} sessions={group.active} selected={selected} onSelect={onSelect} />
            ) : (
              <p className="muted session-group__note">No active session.</p>
            )}
            {endedCount > 0 && (
              <>
                <button
                  type="button"
                  className="session-group__fold"
                  aria-expanded={endedShown}
                  aria-controls={endedShown ? endedId : undefined}
                  onClick={() => setEndedShown(!endedShown)}
                >
                  <Icon name="chevronDown" className={`session-group__chevron${endedShown ? '' : ' session-group__chevron--closed'}`} />
                  {plural(endedCount, 'ended session')}
                </button>
                {endedShown && (
                  <div id={endedId}>
                    <SessionList label={`Ended sessions of ${group.agent}`} sessions={group.ended} selected={selected} onSelect={onSelect} />
                  </div>
                )}
              </>
            )}
          </div>
        )}
      </section>
    );
  },
  (before, after) =>
    before.onSelect === after.onSelect &&
    // The selection matters to a group only if it held or holds the selected session.
    (before.selected === after.selected || !(holds(before.group, before.selected) || holds(after.group, after.selected))) &&
    before.group.agent === after.group.agent &&
    before.group.running === after.group.running &&
    before.group.waiting === after.group.waiting &&
    sameSummaries(before.group.active, after.group.active) &&
    sameSummaries(before.group.ended, after.group.ended),
);

const holds = (group: AgentSessionGroup, sessionId: string) => sessionId.startsWith(`${group.agent}/`) || sessionId === group.agent;

function SessionList({ label, sessions, selected, onSelect }: { label: string; sessions: readonly SessionSummary[]; selected: string; onSelect(sessionId: string): void }) {
  return (
    <ul className="session-list" aria-label={label}>
      {sessions.map((session) => (
        <SessionRow key={session.id} session={session} selected={session.id === selected} onSelect={onSelect} />
      ))}
    </ul>
  );
}

interface SessionRowProps {
  session: SessionSummary;
  selected: boolean;
  onSelect(sessionId: string): void;
}

const SessionRow = memo(
  function SessionRow({ session, selected, onSelect }: SessionRowProps) {
    const slash = session.id.indexOf('/');
    // An agent's sessions share its name: the part that tells them apart stands out.
    const [head, tail] = slash > 0 ? [session.id.slice(0, slash + 1), session.id.slice(slash + 1)] : ['', session.id];
    return (
      <li className={`session-row${session.ended ? ' session-row--ended' : ''}`} data-session-id={session.id}>
        <button type="button" className="session-row__button" aria-current={selected ? 'true' : undefined} onClick={() => onSelect(session.id)} title={session.id}>
          <span className="session-row__id">
            {head && <span className="muted">{head}</span>}
            {tail}
            {session.id === DEFAULT_SESSION && <span className="muted"> (this console)</span>}
          </span>
          <SessionStatus session={session} />
        </button>
      </li>
    );
  },
  (before, after) => before.selected === after.selected && before.onSelect === after.onSelect && sameSummary(before.session, after.session),
);

function SessionStatus({ session }: { session: SessionSummary }) {
  const parts: string[] = [];
  if (session.activeState && session.activeTitle !== null) parts.push(`${taskStateLook[session.activeState].label}: ${session.activeTitle}`);
  if (session.waiting > 0) parts.push(`${session.waiting} waiting`);
  if (session.unknownOutcomes > 0) parts.push(plural(session.unknownOutcomes, 'unknown outcome'));
  if (parts.length === 0) {
    if (session.lastAt) parts.push(`${session.finished > 0 ? 'Ended' : 'Last change'} ${clockTime(session.lastAt)}`);
    else parts.push('No task');
  }
  return (
    <span className="session-row__status muted">
      {session.activeState && <Icon name={taskStateLook[session.activeState].icon} />}
      <span className="session-row__status-text">{parts.join(' · ')}</span>
    </span>
  );
}
