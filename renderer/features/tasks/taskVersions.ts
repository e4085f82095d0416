/**
 * Which view of a task or session the console keeps. Answers (a read of GET /tasks, an
 * action's reply) and events travel on different connections, so they can arrive out of order;
 * each view carries a version, the ledger `seq` of its last change, and the higher version wins
 * whatever arrived last. An older answer therefore never overwrites a newer event, and answers
 * and events go through the same rule. Pure, so it is tested without a page.
 */
import type { TasksView, TaskView } from '../../../shared/tasks';

export type SessionView = TasksView['sessions'][number];

interface Versioned {
  id: string;
  version: number;
}

export interface TaskViews {
  tasks?: readonly TaskView[];
  sessions?: readonly SessionView[];
}

/**
 * Puts the arrived views into the held ones, keeping for each id the higher version. On a tie the
 * arrived view wins: both describe the same change.
 */
function keepNewer<T extends Versioned>(held: readonly T[], arrived: readonly T[]): T[] {
  const byId = new Map(held.map((view) => [view.id, view]));
  for (const view of arrived) {
    const known = byId.get(view.id);
    if (!known || known.version <= view.version) byId.set(view.id, view);
  }
  return [...byId.values()];
}

/** A session only known from a task event so far; version 0, so any real view of it wins. */
const placeholderSession = (id: string): SessionView => ({ id, version: 0, activeTaskId: null, unknownOutcomes: [], conversation: [] });

/** The held view with the arrived task and session views applied, each only if it is not older than the one held. */
export function patchTasks(held: TasksView | undefined, { tasks = [], sessions = [] }: TaskViews): TasksView {
  const nextTasks = keepNewer(held?.tasks ?? [], tasks);
  const nextSessions = keepNewer(held?.sessions ?? [], sessions);
  // Every task's session is listed, even before the gateway has said anything about it.
  const known = new Set(nextSessions.map((session) => session.id));
  for (const task of nextTasks) {
    if (known.has(task.sessionId)) continue;
    known.add(task.sessionId);
    nextSessions.push(placeholderSession(task.sessionId));
  }
  return { sessions: nextSessions, tasks: nextTasks };
}

/**
 * A full listing from the gateway, taken at ledger seq `asOf`, merged with the held view. A held
 * view newer than `asOf` came from an event that overtook the answer and is kept (over the
 * listing's own, if that is older); any other held view the listing lacks is not in its page
 * (an older ended task) and goes.
 */
export function mergeListing(held: TasksView | undefined, listing: TasksView, asOf: number): TasksView {
  if (!held) return listing;
  const overtook = <T extends Versioned>(views: readonly T[]) => views.filter((view) => view.version > asOf);
  return patchTasks(listing, { tasks: overtook(held.tasks), sessions: overtook(held.sessions) });
}
