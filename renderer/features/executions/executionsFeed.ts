/**
 * Keeps Recent executions current from the gateway: a full read when the event stream opens (a
 * reload, a reconnect), then, on each `executions` event, only the runs changed since the
 * revision this page has. Reads never overlap: events that arrive during one make one more,
 * and that one waits until READ_GAP_MS after the last began, so a burst of calls (hundreds a
 * second from a script with the operator's token) is taken in a few reads and redraws, not one
 * per call, while a lone call still shows at once.
 */
import type { CapstanEvent } from '../../../shared/events';
import type { ConsoleTransport } from '../../api/transport';
import { useExecutions } from '../../state/executionsStore';

export const READ_GAP_MS = 500;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
      let began = Number.NEGATIVE_INFINITY;
      do {
        const wait = began + READ_GAP_MS - Date.now();
        if (wait > 0) await pause(wait);
        if (stopped) return;
        began = Date.now();
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
