/**
 * Keeps Recent executions current from the gateway: a full read when the event stream opens (a
 * reload, a reconnect), then, on each `executions` event, only the runs changed since the
 * revision this page has. Reads never overlap: events that arrive during one make one more.
 */
import type { CapstanEvent } from '../../../shared/events';
import type { ConsoleTransport } from '../../api/transport';
import { useExecutions } from '../../state/executionsStore';

export function createExecutionsFeed(transport: Pick<ConsoleTransport, 'listExecutions'>) {
  let reading = false;
  let again = false;
  let full = true;
  let stopped = false;

  async function read(): Promise<void> {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const { epoch, revision, received } = useExecutions.getState();
        const whole = full || epoch === null;
        full = false;
        const view = await transport.listExecutions(whole ? {} : { after: revision });
        if (stopped) return;
        // Another gateway process (a restart): its revisions are not this page's; read it all.
        if (!whole && view.epoch !== epoch) {
          full = again = true;
          continue;
        }
        received(view, whole);
      } while (again && !stopped);
    } catch {
      // The next event, or the stream reopening, reads again.
      full = true;
    } finally {
      reading = false;
    }
  }

  return {
    push(event: Extract<CapstanEvent, { type: 'executions' }>): void {
      if (event.cleared) full = true;
      // Already read up to it (this page's own Clear or settings answer, say).
      else if (event.revision <= useExecutions.getState().revision && !full) return;
      void read();
    },
    /** Reads everything again: the stream (re)opened, so events may have been missed. */
    resync(): void {
      full = true;
      void read();
    },
    stop(): void {
      stopped = true;
    },
  };
}
