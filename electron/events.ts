/** The host's event bus: what changed, for every live client (SSE streams, the Electron window). */
import type { CapstanEvent } from '../shared/events';
import type { McpProgress } from './providers/mcp/calls';
import type { Ledger } from './runtime/ledger';

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
 * Publishes a running call's progress as a `progress` event. The task it runs in is the one its
 * `call_started` ledger entry names: the runtime writes that entry before the call's work
 * begins, so it is there by the time any progress arrives.
 */
export function progressPublisher(events: EventBus, ledger: Pick<Ledger, 'query'>): (progress: McpProgress) => void {
  return ({ requestId, capability, ...rest }) => {
    const started = ledger.query({ requestId, capability, kind: 'call_started', limit: 1000 }).at(-1);
    if (started?.taskId) events.publish({ type: 'progress', requestId, taskId: started.taskId, ...rest });
  };
}
