/**
 * The Tasks view's sessions, grouped: the operator's own, then one group per agent
 * (`agent:<name>` and `agent:<name>/<suffix>` sessions), each split into active and ended
 * sessions. An agent session is ended when every task of it the console holds has ended (and
 * no unknown outcome waits in it): MCP clients leave such sessions behind by the dozen, so the
 * view folds them. Pure and linear in the tasks held, so the view memoizes it and tests need no page.
 */
import { agentNameOf, isAgent } from '../../../shared/principal';
import { ACTIVE_STATES, DEFAULT_SESSION, TERMINAL_STATES, type TasksView, type TaskState } from '../../../shared/tasks';

/** What a session's row shows; primitives only, so a row re-renders only when one of them changes. */
export interface SessionSummary {
  id: string;
  /** The active task's title and state, if the session has one. */
  activeTitle: string | null;
  activeState: TaskState | null;
  /** Tasks in an active state (running, cancelling, quiescing): at most one per session. */
  running: number;
  /** Queued and blocked follow-ups. */
  waiting: number;
  /** Tasks held that have ended (the console holds a page of the newest ended tasks). */
  finished: number;
  unknownOutcomes: number;
  /** Every task held has ended and nothing waits for an acknowledgement. */
  ended: boolean;
  /** When it last changed, as far as the tasks held tell (ISO); '' when none is held. */
  lastAt: string;
}

export interface AgentSessionGroup {
  /** The agent's principal, `agent:<name>`. */
  agent: string;
  active: SessionSummary[];
  ended: SessionSummary[];
  running: number;
  waiting: number;
}

export interface SessionGroups {
  /** The operator's sessions (and any other that is not an agent's), the console's own first. */
  own: SessionSummary[];
  /** One group per agent, by name. */
  agents: AgentSessionGroup[];
}

const isTerminal = (state: TaskState) => TERMINAL_STATES.includes(state);
const isActive = (state: TaskState) => ACTIVE_STATES.includes(state);

/** The agent principal a session belongs to (`agent:<name>` for `agent:<name>/…`), or undefined for the operator's. */
export function sessionAgent(sessionId: string): string | undefined {
  if (!isAgent(sessionId)) return undefined;
  const name = agentNameOf(sessionId)!.split('/')[0];
  return name ? `agent:${name}` : undefined;
}

const byId = (a: SessionSummary, b: SessionSummary) => a.id.localeCompare(b.id, undefined, { numeric: true });
const newestFirst = (a: SessionSummary, b: SessionSummary) => b.lastAt.localeCompare(a.lastAt) || byId(a, b);

export function groupSessions(sessions: TasksView['sessions'], tasks: TasksView['tasks']): SessionGroups {
  const summaries = new Map<string, SessionSummary>();
  const summaryOf = (id: string): SessionSummary => {
    let summary = summaries.get(id);
    if (!summary) {
      summary = { id, activeTitle: null, activeState: null, running: 0, waiting: 0, finished: 0, unknownOutcomes: 0, ended: true, lastAt: '' };
      summaries.set(id, summary);
    }
    return summary;
  };
  summaryOf(DEFAULT_SESSION);
  for (const session of sessions) summaryOf(session.id).unknownOutcomes = session.unknownOutcomes.length;
  for (const task of tasks) {
    const summary = summaryOf(task.sessionId);
    const at = task.endedAt ?? task.startedAt ?? task.createdAt;
    if (at > summary.lastAt) summary.lastAt = at;
    if (isTerminal(task.state)) {
      summary.finished += 1;
      continue;
    }
    if (isActive(task.state)) {
      summary.running += 1;
      summary.activeTitle = task.title;
      summary.activeState = task.state;
    } else {
      summary.waiting += 1;
    }
  }

  const own: SessionSummary[] = [];
  const byAgent = new Map<string, AgentSessionGroup>();
  for (const summary of summaries.values()) {
    summary.ended = summary.running === 0 && summary.waiting === 0 && summary.unknownOutcomes === 0;
    const agent = sessionAgent(summary.id);
    if (!agent) {
      own.push(summary);
      continue;
    }
    let group = byAgent.get(agent);
    if (!group) {
      group = { agent, active: [], ended: [], running: 0, waiting: 0 };
      byAgent.set(agent, group);
    }
    (summary.ended ? group.ended : group.active).push(summary);
    group.running += summary.running;
    group.waiting += summary.waiting;
  }
  own.sort((a, b) => (a.id === DEFAULT_SESSION ? -1 : b.id === DEFAULT_SESSION ? 1 : byId(a, b)));
  const agents = [...byAgent.values()].sort((a, b) => a.agent.localeCompare(b.agent));
  for (const group of agents) {
    group.active.sort(newestFirst);
    group.ended.sort(newestFirst);
  }
  return { own, agents };
}

/** Whether two summaries show the same thing (a row need not re-render). */
export function sameSummary(a: SessionSummary, b: SessionSummary): boolean {
  return (
    a.id === b.id &&
    a.activeTitle === b.activeTitle &&
    a.activeState === b.activeState &&
    a.running === b.running &&
    a.waiting === b.waiting &&
    a.finished === b.finished &&
    a.unknownOutcomes === b.unknownOutcomes &&
    a.ended === b.ended &&
    a.lastAt === b.lastAt
  );
}

export const sameSummaries = (a: readonly SessionSummary[], b: readonly SessionSummary[]) => a.length === b.length && a.every((summary, index) => sameSummary(summary, b[index]!));
