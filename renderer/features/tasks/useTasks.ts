/** The sessions and tasks through react-query, and the operator's task actions. */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { RunningCallView, TaskAction, TasksView, TaskView } from '../../../shared/tasks';
import { useTransport } from '../../api/hooks';
import type { ConsoleTransport } from '../../api/transport';
import { applyTaskViews, readTasks, tasksQueryKey } from './taskCache';

/** Everything the gateway knows about sessions and tasks, kept current by events. */
export function useTasksView() {
  const transport = useTransport();
  const client = useQueryClient();
  return useQuery({
    queryKey: tasksQueryKey,
    queryFn: () => readTasks(transport, client),
    // Events keep it current; it is read again only when the event stream (re)opens.
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

/** Reads GET /tasks again (the event stream opened: task events may have been missed). */
export function refreshTasks(transport: ConsoleTransport, client: QueryClient): void {
  void client.fetchQuery({ queryKey: tasksQueryKey, queryFn: () => readTasks(transport, client), staleTime: 0 }).catch(() => {
    // The view says so through its own query state; the next reconnection reads again.
  });
}

/** One of the operator's task commands; each maps to one gateway operation. */
export type TaskCommand =
  | { type: 'action'; action: TaskAction }
  | { type: 'cancel'; id: string }
  | { type: 'resume'; id: string }
  | { type: 'acknowledge'; id: string; requestId: string };

/** Runs task commands and shows their answers at once; each caller gets its own pending and error state. */
export function useTaskCommand() {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (command: TaskCommand): Promise<TaskView | TasksView['sessions'][number]> => {
      switch (command.type) {
        case 'action': {
          const task = await transport.taskAction(command.action);
          applyTaskViews(client, { tasks: [task] });
          return task;
        }
        case 'cancel':
        case 'resume': {
          const task = await (command.type === 'cancel' ? transport.cancelTask : transport.resumeTask)({ id: command.id });
          applyTaskViews(client, { tasks: [task] });
          return task;
        }
        case 'acknowledge': {
          const session = await transport.acknowledgeOutcome({ id: command.id, requestId: command.requestId });
          applyTaskViews(client, { sessions: [session] });
          return session;
        }
      }
    },
  });
}

/** The call running under `requestId` and its task, as the task views show it; undefined until its start is on record, and after its end. */
export function useRunningCall(requestId: string): { taskId: string; call: RunningCallView } | undefined {
  const { data } = useTasksView();
  for (const task of data?.tasks ?? []) {
    const call = task.calls.find((candidate) => candidate.requestId === requestId);
    if (call) return { taskId: task.id, call };
  }
  return undefined;
}

/** Cancels one running call; the task views that follow (events) drop it from its task. */
export function useCancelCall() {
  const transport = useTransport();
  return useMutation({ mutationFn: (requestId: string) => transport.cancelCall({ requestId }) });
}
