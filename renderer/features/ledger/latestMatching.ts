/**
 * The newest ledger entries matching a filter, from the gateway. GET /ledger pages forward from
 * a sequence number, oldest first, so the newest matches are found by reading a window of the
 * most recent entries and widening it until it holds enough matches or reaches the start.
 */
import { MAX_LEDGER_PAGE, type LedgerEntry } from '../../../shared/ledger';
import type { ConsoleTransport } from '../../api/transport';
import { MAX_KEPT_ENTRIES, mergeEntries, type LedgerFilter } from '../../state/ledgerStore';

/** Matches worth showing before the window stops widening. */
const ENOUGH = 500;
/** The first window, in sequence numbers; each next one is ten times wider. */
const FIRST_WINDOW = 5_000;

export async function latestMatching(transport: ConsoleTransport, filter: LedgerFilter, signal?: AbortSignal): Promise<LedgerEntry[]> {
  const { lastSeq } = await transport.getLedger({ limit: 1 }, { signal });
  // A whole requestId names one call: its few entries are cheapest found from the start, by its index.
  let window = filter.requestId !== undefined && filter.match !== 'contains' ? lastSeq : FIRST_WINDOW;
  for (;;) {
    const from = Math.max(0, lastSeq - window);
    const found = await readForward(transport, filter, from, signal);
    if (found.length >= ENOUGH || from === 0) return found;
    window *= 10;
  }
}

/** Every match after `from`, keeping the newest MAX_KEPT_ENTRIES. */
async function readForward(transport: ConsoleTransport, filter: LedgerFilter, from: number, signal?: AbortSignal): Promise<LedgerEntry[]> {
  let found: LedgerEntry[] = [];
  for (let after = from; ; ) {
    const page = await transport.getLedger({ ...filter, after, limit: MAX_LEDGER_PAGE }, { signal });
    found = mergeEntries(found, page.entries, MAX_KEPT_ENTRIES);
    const last = page.entries.at(-1);
    if (!last || page.entries.length < MAX_LEDGER_PAGE) return found;
    after = last.seq;
  }
}
