/**
 * The live ledger as this window holds it: the newest entries, at most MAX_KEPT_ENTRIES of
 * them so memory stays bounded however long the window is open, and, while the operator has
 * set a filter, the matching entries the gateway returned plus the live ones that match since.
 * Entries only arrive here in batches (one per animation frame, see features/ledger/ledgerFeed).
 */
import { create } from 'zustand';
import type { ErrorBody } from '../../shared/api';
import { LEDGER_TEXT_FIELDS, ledgerValueMatches, type LedgerEntry, type LedgerKind, type LedgerMatch } from '../../shared/ledger';

/** Entries kept in memory; older ones stay in the gateway's ledger, readable with a filter or `capstan ledger export`. */
export const MAX_KEPT_ENTRIES = 5_000;

/**
 * What the Ledger view shows, as the gateway's GET /ledger applies it; an absent field matches
 * everything. The id fields match exactly (a link from an entry or a call), or, with `match:
 * 'contains'`, any part of the value (what the operator types).
 */
export interface LedgerFilter {
  taskId?: string;
  requestId?: string;
  capability?: string;
  principal?: string;
  kind?: LedgerKind;
  match?: LedgerMatch;
}

export const FILTER_FIELDS = ['taskId', 'requestId', 'capability', 'principal', 'kind'] as const;

export const isEmptyFilter = (filter: LedgerFilter) => FILTER_FIELDS.every((field) => filter[field] === undefined);

export const matchesFilter = (entry: LedgerEntry, filter: LedgerFilter) =>
  (filter.kind === undefined || entry.kind === filter.kind) &&
  LEDGER_TEXT_FIELDS.every((field) => filter[field] === undefined || ledgerValueMatches(entry[field], filter[field], filter.match));

/** A filter as typed, made one to ask with: blank fields are no filter, and a filter without id fields has no match mode. */
export function cleaned(filter: LedgerFilter): LedgerFilter {
  const result: LedgerFilter = {};
  for (const field of FILTER_FIELDS) {
    const value = filter[field]?.trim();
    if (value) Object.assign(result, { [field]: value });
  }
  if (filter.match === 'contains' && LEDGER_TEXT_FIELDS.some((field) => result[field] !== undefined)) result.match = 'contains';
  return result;
}

/** Two filters asking for the same entries have the same key. */
export const filterKey = (filter: LedgerFilter) => JSON.stringify([...FILTER_FIELDS.map((field) => filter[field] ?? null), filter.match ?? 'exact']);

/**
 * Merges two lists sorted by seq into one, without duplicates, keeping the newest `max`. Live
 * entries nearly always come after everything held, so that case is a plain append.
 */
export function mergeEntries(held: readonly LedgerEntry[], incoming: readonly LedgerEntry[], max = MAX_KEPT_ENTRIES): LedgerEntry[] {
  if (incoming.length === 0) return held.length > max ? held.slice(-max) : (held as LedgerEntry[]);
  const lastHeld = held.at(-1)?.seq ?? 0;
  let merged: LedgerEntry[];
  if (incoming[0]!.seq > lastHeld) {
    merged = held.concat(incoming);
  } else {
    const bySeq = new Map<number, LedgerEntry>();
    for (const entry of held) bySeq.set(entry.seq, entry);
    for (const entry of incoming) bySeq.set(entry.seq, entry);
    merged = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }
  return merged.length > max ? merged.slice(-max) : merged;
}

/** Sorts a batch that may have arrived out of order (live events, pages) before merging it. */
const sorted = (entries: readonly LedgerEntry[]) => {
  for (let i = 1; i < entries.length; i += 1) if (entries[i]!.seq < entries[i - 1]!.seq) return [...entries].sort((a, b) => a.seq - b.seq);
  return entries;
};

export interface FilteredEntries {
  filter: LedgerFilter;
  key: string;
  entries: LedgerEntry[];
  /** The gateway's answer for this filter is still on its way; what is shown is what was loaded here. */
  loading: boolean;
  error: ErrorBody | null;
}

interface LedgerState {
  /** The newest entries, oldest first. */
  entries: LedgerEntry[];
  /** Whether the latest entries have been read from the gateway at least once. */
  loaded: boolean;
  loadError: ErrorBody | null;
  /** The current filter's entries, or null without a filter. */
  filtered: FilteredEntries | null;
  append(entries: readonly LedgerEntry[]): void;
  setLoaded(error: ErrorBody | null): void;
  /** Shows at once what is held that matches, while the gateway is asked for the rest. */
  startFilter(filter: LedgerFilter): void;
  filterAnswered(key: string, entries: readonly LedgerEntry[]): void;
  filterFailed(key: string, error: ErrorBody): void;
}

export const useLedger = create<LedgerState>()((set) => ({
  entries: [],
  loaded: false,
  loadError: null,
  filtered: null,
  append: (batch) =>
    set((state) => {
      const incoming = sorted(batch);
      const { filtered } = state;
      const matching = filtered ? incoming.filter((entry) => matchesFilter(entry, filtered.filter)) : [];
      return {
        entries: mergeEntries(state.entries, incoming),
        filtered: filtered && matching.length > 0 ? { ...filtered, entries: mergeEntries(filtered.entries, matching) } : filtered,
      };
    }),
  setLoaded: (loadError) => set((state) => ({ loaded: state.loaded || loadError === null, loadError })),
  startFilter: (filter) =>
    set((state) =>
      isEmptyFilter(filter)
        ? { filtered: null }
        : {
            filtered: {
              filter,
              key: filterKey(filter),
              entries: state.entries.filter((entry) => matchesFilter(entry, filter)),
              loading: true,
              error: null,
            },
          },
    ),
  filterAnswered: (key, entries) =>
    set(({ filtered }) =>
      filtered?.key === key ? { filtered: { ...filtered, entries: mergeEntries(filtered.entries, sorted(entries)), loading: false } } : {},
    ),
  filterFailed: (key, error) => set(({ filtered }) => (filtered?.key === key ? { filtered: { ...filtered, loading: false, error } } : {})),
}));
