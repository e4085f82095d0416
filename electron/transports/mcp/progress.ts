/**
 * A call's progress, told to the MCP client that asked for it with a progressToken: first the
 * wait for the operator's approval (when the tool needs one), then the tool's own progress, as
 * an MCP server reports it (`progress` events for the call's requestId). Clients keep a request
 * alive on progress, so a long call is not timed out by them while Capstan's own deadline,
 * which progress moves, still holds.
 *
 * MCP wants each notification's progress greater than the last, while the two phases count
 * separately (milliseconds waited, then the tool's own steps), so the second continues above
 * where the first stopped, its total shifted alike.
 */
import type { Notification, ProgressToken } from '@modelcontextprotocol/server';
import type { EventBus } from '../../services/events';
import type { ApprovalWait } from '../../services/approvals';

export interface CallProgress {
  onWaiting: (wait: ApprovalWait) => void;
  /** Stops listening; resolves once every notification already sent is on its way, so none comes after the answer. */
  stop(): Promise<void>;
}

/** The progress of the call with this requestId, told with `notify`, or undefined when the client asked for none (no `progressToken`). */
export function callProgress(progressToken: ProgressToken | undefined, notify: (notification: Notification) => Promise<void>, requestId: string, events: EventBus): CallProgress | undefined {
  if (progressToken === undefined) return undefined;
  let phase: 'approval' | 'tool' | undefined;
  let floor = 0;
  let last = -1;
  const sending = new Set<Promise<unknown>>();
  const tell = (from: 'approval' | 'tool', progress: number, total: number | null | undefined, message: string | null | undefined) => {
    if (phase !== from) [phase, floor] = [from, last + 1];
    if (floor + progress <= last) return;
    last = floor + progress;
    const params = { progressToken, progress: last, ...(typeof total === 'number' ? { total: floor + total } : {}), ...(message ? { message } : {}) };
    const sent = notify({ method: 'notifications/progress', params }).catch(() => undefined);
    sending.add(sent);
    void sent.finally(() => sending.delete(sent));
  };
  const unsubscribe = events.subscribe((event) => {
    if (event.type === 'progress' && event.requestId === requestId) tell('tool', event.progress, event.total, event.message);
  });
  return {
    onWaiting: (wait) => tell('approval', wait.waitedMs, wait.timeoutMs, wait.message),
    stop: async () => {
      unsubscribe();
      await Promise.all(sending);
    },
  };
}
