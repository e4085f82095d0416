/**
 * A tool call run as an MCP task (2025-11-25 tasks): for a tool whose server runs it only as a
 * task (`execution.taskSupport: "required"`), or may (`"optional"`, when the server declares
 * task-augmented tools/call). The call is sent with `task: { ttl }` and answered at once with the
 * task; `tasks/result` is then awaited (it answers when the task ends, and carries what the
 * server asks meanwhile, an elicitation say, which reaches the operator as any other), while
 * `tasks/get` is polled at the server's `pollInterval` so the console shows the task's status as
 * the running call's progress. Stopping the call sends `tasks/cancel`: unlike a plain call, a
 * task's cancellation is acknowledged, with the task's final status.
 */
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/client';

/** How long the server is asked to keep a task's result, beyond the call's own deadline. */
const TASK_TTL_MARGIN_MS = 60_000;
/** Bounds on the server's suggested polling interval: not a busy loop, not a stale status. */
const POLL_MIN_MS = 250;
const POLL_MAX_MS = 5_000;

export const TaskStatus = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatus>;
export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

const Task = z.looseObject({
  taskId: z.string().min(1).max(1024),
  status: TaskStatus,
  statusMessage: z.string().max(10_000).optional(),
  pollInterval: z.number().nonnegative().optional(),
  ttl: z.number().nullable().optional(),
});
type Task = z.infer<typeof Task>;
const CreateTaskResult = z.looseObject({ task: Task });
/** tasks/get answers the task itself (its fields at the top level). */
const GetTaskResult = Task;
/** tasks/result answers what the request would have: a tools/call result. */
const TaskPayload = z.looseObject({ content: z.array(z.unknown()).optional(), structuredContent: z.unknown().optional(), isError: z.boolean().optional() });

/** What the console is told as the task goes (the running call's progress message). */
export interface TaskUpdate {
  taskId: string;
  status: TaskStatus;
  statusMessage: string | null;
}

export interface TaskCall {
  client: Client;
  tool: string;
  args: Record<string, unknown>;
  meta: Record<string, unknown>;
  signal: AbortSignal;
  /** How long any one request may go unanswered. */
  timeoutMs: number;
  /** The most the whole task may take. */
  totalMs: number;
  onUpdate(update: TaskUpdate): void;
}

/** Thrown when the call was stopped and the server acknowledged the task's cancellation. */
export class TaskCancelled extends Error {
  constructor(
    readonly taskId: string,
    readonly status: TaskStatus,
  ) {
    super(`the MCP task ${taskId} was cancelled (the server says ${status})`);
  }
}

export async function runToolAsTask({ client, tool, args, meta, signal, timeoutMs, totalMs, onUpdate }: TaskCall): Promise<z.infer<typeof TaskPayload>> {
  const created = await client.request(
    { method: 'tools/call', params: { name: tool, arguments: args, _meta: meta, task: { ttl: totalMs + TASK_TTL_MARGIN_MS } } },
    CreateTaskResult,
    { signal, timeout: timeoutMs },
  );
  const { taskId } = created.task;
  let last: Task = created.task;
  onUpdate(update(last));
  const stop = new AbortController();
  const polling = poll(client, last, timeoutMs, stop.signal, (task) => {
    if (task.status === last.status && task.statusMessage === last.statusMessage) return;
    last = task;
    onUpdate(update(task));
  });
  try {
    const result = await client.request({ method: 'tasks/result', params: { taskId } }, TaskPayload, { signal, timeout: totalMs });
    // The task's last word (completed, or failed), which the polling may not have caught yet.
    const ended = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResult, { timeout: timeoutMs }).catch(() => undefined);
    onUpdate(update(ended && TERMINAL_TASK_STATUSES.includes(ended.status) ? ended : { ...last, status: result.isError ? 'failed' : 'completed' }));
    return result;
  } catch (error) {
    if (!signal.aborted) throw error;
    // Stopped: the server is asked to cancel the task, and says what became of it.
    const cancelled = await client.request({ method: 'tasks/cancel', params: { taskId } }, GetTaskResult, { timeout: timeoutMs }).catch(() => undefined);
    if (cancelled) {
      onUpdate(update(cancelled));
      throw new TaskCancelled(taskId, cancelled.status);
    }
    throw error;
  } finally {
    stop.abort();
    await polling;
  }
}

const update = (task: Task): TaskUpdate => ({ taskId: task.taskId, status: task.status, statusMessage: task.statusMessage ?? null });

/** Asks tasks/get at the server's pace until the task ends or polling is stopped; failures are skipped (tasks/result has the last word). */
async function poll(client: Client, first: Task, timeoutMs: number, stopped: AbortSignal, seen: (task: Task) => void): Promise<void> {
  let task = first;
  while (!stopped.aborted && !TERMINAL_TASK_STATUSES.includes(task.status)) {
    const wait = Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, task.pollInterval ?? 1000));
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, wait);
      stopped.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
    });
    if (stopped.aborted) return;
    try {
      task = await client.request({ method: 'tasks/get', params: { taskId: first.taskId } }, GetTaskResult, { signal: stopped, timeout: timeoutMs });
      seen(task);
    } catch {
      // A missed status is shown at the next one; the result itself comes from tasks/result.
    }
  }
}
