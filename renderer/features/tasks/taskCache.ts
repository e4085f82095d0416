/**
 * The sessions and tasks the console shows, kept current by `task` events rather than polling.
 * GET /tasks is read once, and again after the event stream reconnects; events and action
 * answers patch the cached view in between.
 *
 * An answer (a read of GET /tasks, or an action's reply) and the event stream travel on
 * different connections, so an answer can be older than events already applied. Every apply
 * ticks a clock and stamps the tasks it touched; an answer does not overwrite a task that an
 * event touched after the answer was asked for. Events arrive in order, so the newest one wins.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { TasksView, TaskView } from '../../../shared/tasks';
import { oncePerFrame } from '../../api/oncePerFrame';
import type { ConsoleTransport } from '../../api/transport';

export const tasksQueryKey = ['tasks'] as const;

type SessionView = TasksView['sessions'][number];

interface Stamps {
  clock: number;
  touched: Map<string, number>;
}

const stampsByClient = new WeakMap<QueryClient, Stamps>();

function stampsOf(client: QueryClient): Stamps {
  let stamps = stampsByClient.get(client);
  if (!stamps) stampsByClient.set(client, (stamps = { clock: 0, touched: new Map() }));
  return stamps;
}

/** The moment an answer is asked for: pass it back with the answer. */
export const askedAt = (client: QueryClient) => stampsOf(client).clock;

const emptySession = (id: string): SessionView => ({ id, activeTaskId: null, unknownOutcomes: [], conversation: [] });

/** Puts task views into the cached view, replacing older views of the same tasks. */
function patch(view: TasksView | undefined, tasks: readonly TaskView[]): TasksView {
  const next = new Map((view?.tasks ?? []).map((task) => [task.id, task]));
  for (const task of tasks) next.set(task.id, task);
  const sessions = [...(view?.sessions ?? [])];
  for (const task of tasks) if (!sessions.some((session) => session.id === task.sessionId)) sessions.push(emptySession(task.sessionId));
  return { sessions, tasks: [...next.values()] };
}

/** Applies live task views (events). */
export function applyTaskEvents(client: QueryClient, tasks: readonly TaskView[]): void {
  const stamps = stampsOf(client);
  stamps.clock += 1;
  for (const task of tasks) stamps.touched.set(task.id, stamps.clock);
  client.setQueryData<TasksView>(tasksQueryKey, (view) => patch(view, tasks));
}

const touchedSince = (client: QueryClient, taskId: string, asked: number) => (stampsOf(client).touched.get(taskId) ?? -1) >= asked;

/** Applies an action's answer, unless an event has told of that task since the action was sent. */
export function applyTaskAnswer(client: QueryClient, task: TaskView, asked: number): void {
  if (touchedSince(client, task.id, asked)) return;
  client.setQueryData<TasksView>(tasksQueryKey, (view) => patch(view, [task]));
}

/** Applies a session's answer (acknowledge answers with the session). */
export function applySessionAnswer(client: QueryClient, session: SessionView): void {
  client.setQueryData<TasksView>(tasksQueryKey, (view) => ({
    sessions: [...(view?.sessions ?? []).filter((known) => known.id !== session.id), session],
    tasks: view?.tasks ?? [],
  }));
}

/** Reads GET /tasks, keeping the cached view of tasks that events touched while the answer was on its way. */
export async function readTasks(transport: ConsoleTransport, client: QueryClient): Promise<TasksView> {
  const asked = askedAt(client);
  const fresh = await transport.listTasks(undefined);
  const cached = client.getQueryData<TasksView>(tasksQueryKey);
  if (!cached) return fresh;
  const newer = cached.tasks.filter((task) => touchedSince(client, task.id, asked));
  return patch(fresh, newer);
}

/** Gathers task events and applies them once per animation frame, only each task's latest view. */
export function createTaskFeed(client: QueryClient) {
  let pending = new Map<string, TaskView>();
  let stopped = false;
  const flush = oncePerFrame(() => {
    const batch = [...pending.values()];
    pending = new Map();
    if (!stopped && batch.length > 0) applyTaskEvents(client, batch);
  });
  return {
    push: (task: TaskView) => {
      pending.set(task.id, task);
      flush();
    },
    stop: () => {
      stopped = true;
      pending.clear();
    },
  };
}
