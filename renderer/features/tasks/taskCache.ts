/**
 * The sessions and tasks the console shows, kept current by `task` events rather than polling.
 * GET /tasks is read once, and again after the event stream reconnects; events and action
 * answers patch the cached view in between. Whichever of them arrives last, each task and
 * session keeps its newest view (./taskVersions.ts), so an older answer never overwrites a
 * newer event.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { TasksView, TaskView } from '../../../shared/tasks';
import { oncePerFrame } from '../../api/oncePerFrame';
import type { ConsoleTransport } from '../../api/transport';
import { mergeListing, patchTasks, type TaskViews } from './taskVersions';

export const tasksQueryKey = ['tasks'] as const;

/** Applies task or session views (events, or an action's answer) to the cached view. */
export function applyTaskViews(client: QueryClient, views: TaskViews): void {
  client.setQueryData<TasksView>(tasksQueryKey, (held) => patchTasks(held, views));
}

/**
 * Reads GET /tasks and merges it with what events brought meanwhile. The listing says which
 * ledger seq it reflects (`asOf`): held views newer than that overtook it and stay.
 */
export async function readTasks(transport: ConsoleTransport, client: QueryClient): Promise<TasksView> {
  const listing = await transport.listTasks(undefined);
  return mergeListing(client.getQueryData<TasksView>(tasksQueryKey), listing, listing.asOf ?? 0);
}

/** Gathers task events and applies them once per animation frame, only each task's latest view. */
export function createTaskFeed(client: QueryClient) {
  let pending = new Map<string, TaskView>();
  let stopped = false;
  const flush = oncePerFrame(() => {
    const tasks = [...pending.values()];
    pending = new Map();
    if (!stopped && tasks.length > 0) applyTaskViews(client, { tasks });
  });
  return {
    push: (task: TaskView) => {
      // Events of one task arrive in order, but the higher version is kept all the same.
      const held = pending.get(task.id);
      if (!held || held.version <= task.version) pending.set(task.id, task);
      flush();
    },
    stop: () => {
      stopped = true;
      pending.clear();
    },
  };
}
