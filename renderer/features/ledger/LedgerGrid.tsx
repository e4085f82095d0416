/**
 * Ledger entries as a virtualized grid, newest first. Rows have one fixed height, so placing
 * thousands of them costs nothing and new entries can be anchored exactly: while the operator
 * reads further down, rows arriving on top push the scroll position down by their height, so
 * what they are reading stays put, and a button says how many arrived.
 *
 * Keyboard: the grid is one Tab stop; focusing it marks the first row in view, then arrows,
 * Page Up/Down, Home and End move the focused row (aria-activedescendant); Enter opens it.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { LedgerEntry } from '../../../shared/ledger';
import { dateClockTime, shortHash } from '../../ui/format';
import { IdText } from '../../ui/IdText';
import { Icon } from '../../ui/Icon';
import { entrySummary, entryTone, principalTitle } from './entrySummary';

/** Matches .ledger-row's height in components.css. */
const ROW_HEIGHT = 30;
const OVERSCAN = 12;

const COLUMNS = ['Seq', 'Time', 'Kind', 'Principal', 'Capability', 'requestId', 'Task', 'Status and details', 'Hash'] as const;

interface LedgerGridProps {
  /** Oldest first, as held; shown newest first. */
  entries: readonly LedgerEntry[];
  /** Changes when a different set of entries is shown (another filter): the view goes back to the top. */
  viewKey: string;
  onOpen(entry: LedgerEntry): void;
}

export function LedgerGrid({ entries, viewKey, onOpen }: LedgerGridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const rowIdPrefix = useId();
  const count = entries.length;
  const at = useCallback((index: number) => entries[entries.length - 1 - index], [entries]);
  const newestSeq = entries.at(-1)?.seq ?? 0;

  const getItemKey = useCallback((index: number) => at(index)?.seq ?? index, [at]);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read fresh on every render, as it expects.
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey,
    overscan: OVERSCAN,
    useFlushSync: false,
  });

  // Anchoring: rows added above the view move it down by their height, unless the view is at the top (following the newest).
  const anchor = useRef({ key: viewKey, newestSeq });
  useLayoutEffect(() => {
    const element = scroller.current;
    const previous = anchor.current;
    anchor.current = { key: viewKey, newestSeq };
    if (!element) return;
    if (previous.key !== viewKey) {
      element.scrollTop = 0;
      return;
    }
    if (element.scrollTop === 0 || newestSeq <= previous.newestSeq) return;
    element.scrollTop += countNewer(entries, previous.newestSeq) * ROW_HEIGHT;
  }, [viewKey, newestSeq, entries]);

  // The newest entry the operator had seen when they scrolled away from the top.
  const [seenSeq, setSeenSeq] = useState<number | null>(null);
  const unseen = seenSeq === null ? 0 : countNewer(entries, seenSeq);
  const onScroll = () => {
    const atTop = (scroller.current?.scrollTop ?? 0) < ROW_HEIGHT / 2;
    if (atTop && seenSeq !== null) setSeenSeq(null);
    if (!atTop && seenSeq === null) setSeenSeq(newestSeq);
  };

  const [focusedSeq, setFocusedSeq] = useState<number | null>(null);
  const focusedIndex = focusedSeq === null ? -1 : indexOfSeq(entries, focusedSeq);
  const moveTo = (index: number) => {
    const clamped = Math.max(0, Math.min(count - 1, index));
    const entry = at(clamped);
    if (!entry) return;
    setFocusedSeq(entry.seq);
    virtualizer.scrollToIndex(clamped, { align: 'auto' });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || count === 0) return;
    // A page is the rows in view, less one kept for context.
    const pageRows = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 0) / ROW_HEIGHT) - 1);
    const from = focusedIndex === -1 ? (virtualizer.getVirtualItems()[0]?.index ?? 0) : focusedIndex;
    const moves: Record<string, number> = {
      ArrowDown: focusedIndex === -1 ? from : from + 1,
      ArrowUp: from - 1,
      PageDown: from + pageRows,
      PageUp: from - pageRows,
      Home: 0,
      End: count - 1,
    };
    const next = moves[event.key];
    if (next !== undefined) {
      event.preventDefault();
      moveTo(next);
    } else if ((event.key === 'Enter' || event.key === ' ') && focusedIndex !== -1) {
      event.preventDefault();
      const entry = at(focusedIndex);
      if (entry) onOpen(entry);
    }
  };

  const rows = virtualizer.getVirtualItems();
  const activeRendered = focusedIndex !== -1 && rows.some((row) => row.index === focusedIndex);

  return (
    <div
      className="ledger-grid"
      role="grid"
      aria-label="Ledger entries, newest first"
      aria-rowcount={count + 1}
      aria-colcount={COLUMNS.length}
      aria-activedescendant={activeRendered ? `${rowIdPrefix}-${focusedSeq}` : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
      // Focus arriving by Tab lands on a row at once, so the operator sees where the arrows start.
      onFocus={(event) => {
        if (event.target === event.currentTarget && focusedIndex === -1 && count > 0) setFocusedSeq(at(virtualizer.getVirtualItems()[0]?.index ?? 0)?.seq ?? null);
      }}
    >
      <div role="rowgroup" className="ledger-grid__head">
        <div role="row" className="ledger-row ledger-row--head" aria-rowindex={1}>
          {COLUMNS.map((column) => (
            <span key={column} role="columnheader" className="ledger-cell">
              {column}
            </span>
          ))}
        </div>
      </div>
      <div role="rowgroup" ref={scroller} className="ledger-grid__body" onScroll={onScroll} data-rows={count}>
        <div className="ledger-grid__spacer" style={{ height: virtualizer.getTotalSize() }}>
          {rows.map((row) => {
            const entry = at(row.index);
            if (!entry) return null;
            return (
              <LedgerRow
                key={row.key}
                id={`${rowIdPrefix}-${entry.seq}`}
                entry={entry}
                rowIndex={row.index + 2}
                top={row.start}
                focused={entry.seq === focusedSeq}
                onClick={() => {
                  setFocusedSeq(entry.seq);
                  onOpen(entry);
                }}
              />
            );
          })}
        </div>
      </div>
      {unseen > 0 && (
        <button
          type="button"
          className="button button--small ledger-grid__newer"
          onClick={() => scroller.current?.scrollTo({ top: 0 })}
          tabIndex={-1}
        >
          <Icon name="arrowUp" />
          {unseen} new
        </button>
      )}
    </div>
  );
}

interface LedgerRowProps {
  id: string;
  entry: LedgerEntry;
  rowIndex: number;
  top: number;
  focused: boolean;
  onClick(): void;
}

function LedgerRow({ id, entry, rowIndex, top, focused, onClick }: LedgerRowProps) {
  const summary = entrySummary(entry);
  return (
    <div
      id={id}
      role="row"
      aria-rowindex={rowIndex}
      aria-selected={focused}
      className={`ledger-row ledger-row--${entryTone(entry)} ledger-row--${entry.kind}`}
      style={{ transform: `translateY(${top}px)` }}
      onClick={onClick}
      data-seq={entry.seq}
      data-kind={entry.kind}
      data-request-id={entry.requestId ?? undefined}
    >
      <span role="gridcell" className="ledger-cell ledger-cell--seq">
        {entry.seq}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--time" title={entry.at}>
        <time dateTime={entry.at}>{dateClockTime(entry.at)}</time>
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--kind">
        {entry.kind}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--mono" title={principalTitle(entry.principal)}>
        {entry.principal ?? '—'}
      </span>
      <span role="gridcell" className="ledger-cell">
        {entry.capability ? <IdText id={entry.capability} /> : '—'}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--mono">
        {entry.requestId ? <IdText id={entry.requestId} /> : '—'}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--mono">
        {entry.taskId ? <IdText id={entry.taskId} /> : '—'}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--summary" title={summary}>
        {summary}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--mono" title={entry.hash}>
        {shortHash(entry.hash, 8)}
      </span>
    </div>
  );
}

/** Entries newer than `seq`, counted from the newest end (they are few). */
function countNewer(entries: readonly LedgerEntry[], seq: number): number {
  let newer = 0;
  for (let index = entries.length - 1; index >= 0 && entries[index]!.seq > seq; index -= 1) newer += 1;
  return newer;
}

/** The newest-first index of an entry, or -1; a binary search, as entries are sorted by seq. */
function indexOfSeq(entries: readonly LedgerEntry[], seq: number): number {
  let low = 0;
  let high = entries.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = entries[middle]!.seq;
    if (found === seq) return entries.length - 1 - middle;
    if (found < seq) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
