/** The host's event bus: what changed, for every live client (SSE streams, the Electron window). */
import type { CapstanEvent } from '../../shared/events';
import type { McpProgress } from '../providers/mcp/calls';
import type { Ledger } from '../runtime/ledger';

export class EventBus {
  readonly #listeners = new Set<(event: CapstanEvent) => void>();

  publish(event: CapstanEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // One broken subscriber must not starve the others.
      }
    }
  }

  subscribe(listener: (event: CapstanEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * Where a call's progress goes: `progress` events naming the call and its task. The task is the
 * one the call's `call_started` ledger entry names; the runtime writes that entry just before
 * the call's work begins, so when the work asks (as it starts) the entry is the latest for its
 * requestId so far. It is looked up once, at the first progress, among entries up to that point
 * (a requestId can be reused, by another call later or elsewhere at the same time).
 */
export function progressReporter(events: EventBus, ledger: Pick<Ledger, 'query' | 'lastSeq'>) {
  return (requestId: string, capability: string) => {
    const upTo = ledger.lastSeq;
    let taskId: string | null | undefined;
    return (progress: McpProgress) => {
      taskId ??= ledger
        .query({ requestId, capability, kind: 'call_started', after: Math.max(0, upTo - 1000), limit: 1000 })
        .filter((entry) => entry.seq <= upTo)
        .at(-1)?.taskId;
      if (taskId) events.publish({ type: 'progress', requestId, taskId, ...progress });
    };
  };
}
