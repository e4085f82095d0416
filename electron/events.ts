/** The host's event bus: what changed, for every live client (SSE streams, the Electron window). */
import type { CapstanEvent } from '../shared/events';

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
