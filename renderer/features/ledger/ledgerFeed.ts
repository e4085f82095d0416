/**
 * Feeds the ledger store: live `ledger` events, gathered and merged once per animation frame,
 * and reads from the gateway whenever the event stream (re)opens. A stream that opens starts
 * at the gateway's newest entry, so reading what came before it then leaves no gap: the first
 * time, the newest INITIAL_ENTRIES; after a drop, everything since the newest entry held.
 */
import { MAX_LEDGER_PAGE, type LedgerEntry } from '../../../shared/ledger';
import { oncePerFrame } from '../../api/oncePerFrame';
import { toErrorBody } from '../../api/errors';
import type { ConsoleTransport } from '../../api/transport';
import { MAX_KEPT_ENTRIES, useLedger } from '../../state/ledgerStore';

/** What the Ledger view starts with; live entries are added to it. */
export const INITIAL_ENTRIES = 500;

export interface LedgerFeed {
  /** A live entry; shown with the others that arrive in the same frame. */
  push(entry: LedgerEntry): void;
  /** Reads what the stream cannot have delivered: call it each time the stream opens. */
  resync(): Promise<void>;
  /** Drops what is waiting: the feed is no longer used. */
  stop(): void;
}

export function createLedgerFeed(transport: ConsoleTransport): LedgerFeed {
  let pending: LedgerEntry[] = [];
  let stopped = false;
  const flush = oncePerFrame(() => {
    const batch = pending;
    pending = [];
    if (!stopped && batch.length > 0) useLedger.getState().append(batch);
  });

  /** Pages forward from the newest entry held (or from INITIAL_ENTRIES back) to the gateway's newest. */
  const readMissed = async () => {
    const held = useLedger.getState().entries.at(-1)?.seq ?? 0;
    const { lastSeq } = await transport.getLedger({ limit: 1 });
    // Never read more than could be kept: older entries would be dropped at once.
    let after = Math.max(held, lastSeq - (held === 0 ? INITIAL_ENTRIES : MAX_KEPT_ENTRIES));
    while (after < lastSeq && !stopped) {
      const page = await transport.getLedger({ after, limit: MAX_LEDGER_PAGE });
      useLedger.getState().append(page.entries);
      const last = page.entries.at(-1);
      if (!last || page.entries.length < MAX_LEDGER_PAGE) break;
      after = last.seq;
    }
  };

  // One read at a time; a stream that opens again meanwhile asks for one more afterwards.
  let reading: Promise<void> | null = null;
  let again = false;
  const resync = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          await readMissed();
          useLedger.getState().setLoaded(null);
        } catch (error) {
          useLedger.getState().setLoaded(toErrorBody(error));
        }
      } while (again && !stopped);
    })().finally(() => (reading = null));
    return reading;
  };

  return {
    push: (entry) => {
      pending.push(entry);
      // A hidden window gets no animation frames: hold no more than could be kept.
      if (pending.length > 2 * MAX_KEPT_ENTRIES) pending = pending.slice(-MAX_KEPT_ENTRIES);
      flush();
    },
    resync,
    stop: () => {
      stopped = true;
      pending = [];
    },
  };
}
