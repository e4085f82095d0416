/**
 * Ledger entries as a virtualized grid, newest first. Rows have one fixed height, so placing
 * thousands of them costs nothing and new entries can be anchored exactly: while the operator
 * reads further down, rows arriving on top push the scroll position down by their height, so
 * what they are reading stays put, and a button says how many arrived.
 *
 * Keyboard: the grid is one Tab stop; focusing it marks the first row in view, then arrows,
 * Page Up/Down, Home and End move the focused row (aria-activedescendant); Enter opens it.
 *
 * The grid element is itself the scroll container (so the one focusable element is the one that
 * scrolls, as axe's scrollable-region-focusable asks), its head sticky on top; the virtualizer
 * places rows below the head with scrollMargin and keeps them clear of it with scrollPaddingStart.
 *
 * Columns are sized to their content: every cell but the summary is monospace, so a column's
 * width is its longest value in `ch` (capped), and full capability ids and principals show.
 * The layout follows the grid's own width: wide (every column), medium (the clock without the
 * date; Task and Hash left to the entry's drawer), narrow (two lines a row).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useId, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import type { LedgerEntry } from '../../../shared/ledger';
import { clockTime, dateClockTime, shortHash } from '../../ui/format';
import { IdText } from '../../ui/IdText';
import { Icon } from '../../ui/Icon';
import { entrySummary, entryTone, principalTitle } from './entrySummary';

/** Matches .ledger-row's height in activity.css: one line, or two in the narrow layout. */
const ROW_HEIGHT = 30;
const NARROW_ROW_HEIGHT = 44;
/** The head's border under its row. */
const HEAD_BORDER = 1;
const OVERSCAN = 12;

const COLUMNS = [
  { key: 'seq', label: 'Seq' },
  { key: 'time', label: 'Time' },
  { key: 'kind', label: 'Kind' },
  { key: 'principal', label: 'Principal' },
  { key: 'capability', label: 'Capability' },
  { key: 'request', label: 'requestId' },
  { key: 'task', label: 'Task' },
  { key: 'summary', label: 'Status and details' },
  { key: 'hash', label: 'Hash' },
] as const;

export type LedgerLayout = 'wide' | 'medium' | 'narrow';

/** Longest values shown in full; longer ones are cut in the middle (IdText keeps their tail). */
const MAX_PRINCIPAL = 32;
const MAX_CAPABILITY = 44;
/** A monospace character at the rows' 12 px, near enough to choose a layout (the columns themselves are in ch). */
const CH_PX = 7.3;
/** A cell's padding and 2 px spare (activity.css). */
const CELL_PADDING = 14;
/** Least room for the flexible columns: a requestId's tail, a task id's start, a short summary. */
const REQUEST_MIN_CH = 14;
const TASK_MIN_CH = 10;
const SUMMARY_MIN_PX = 140;
/** The time's clock (12:34:56.789) and the date before it, which only the wide layout shows. */
const CLOCK_CH = 12;
const DATE_CH = 11;
const HASH_CH = 9;

interface ColumnWidths {
  seq: number;
  kind: number;
  principal: number;
  capability: number;
}

/** Each content-sized column's width in characters: its longest value, at least its heading. */
function columnWidths(entries: readonly LedgerEntry[]): ColumnWidths {
  let kind = 4;
  let principal = 'Principal'.length;
  let capability = 'Capability'.length;
  for (const entry of entries) {
    kind = Math.max(kind, entry.kind.length);
    principal = Math.max(principal, entry.principal?.length ?? 1);
    capability = Math.max(capability, entry.capability?.length ?? 1);
  }
  return {
    seq: Math.max(4, String(entries.at(-1)?.seq ?? 0).length),
    kind,
    principal: Math.min(principal, MAX_PRINCIPAL),
    capability: Math.min(capability, MAX_CAPABILITY),
  };
}

const px = (ch: number) => ch * CH_PX + CELL_PADDING;

/** The widest layout whose columns fit `width` pixels (the scrollbar's room taken off). */
export function chooseLayout(widths: ColumnWidths, width: number): LedgerLayout {
  const medium =
    px(widths.seq) + px(CLOCK_CH) + px(widths.kind) + px(widths.principal) + px(widths.capability) + px(REQUEST_MIN_CH) + SUMMARY_MIN_PX;
  if (width >= medium + px(DATE_CH) + px(TASK_MIN_CH) + px(HASH_CH)) return 'wide';
  return width >= medium ? 'medium' : 'narrow';
}

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

  const widths = useMemo(() => columnWidths(entries), [entries]);
  // The grid's inner width, watched: the layout is chosen by what fits in it.
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const layout = width === 0 ? 'wide' : chooseLayout(widths, width);
  const rowHeight = layout === 'narrow' ? NARROW_ROW_HEIGHT : ROW_HEIGHT;
  const headHeight = rowHeight + HEAD_BORDER;

  const getItemKey = useCallback((index: number) => at(index)?.seq ?? index, [at]);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read fresh on every render, as it expects.
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    getItemKey,
    overscan: OVERSCAN,
    // Rows start under the sticky head, and a row scrolled to is not left under it.
    scrollMargin: headHeight,
    scrollPaddingStart: headHeight,
    useFlushSync: false,
  });
  // A change of layout changes every row's height.
  useLayoutEffect(() => virtualizer.measure(), [virtualizer, rowHeight]);

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
    element.scrollTop += countNewer(entries, previous.newestSeq) * rowHeight;
  }, [viewKey, newestSeq, entries, rowHeight]);

  // The newest entry the operator had seen when they scrolled away from the top.
  const [seenSeq, setSeenSeq] = useState<number | null>(null);
  const unseen = seenSeq === null ? 0 : countNewer(entries, seenSeq);
  const onScroll = () => {
    const atTop = (scroller.current?.scrollTop ?? 0) < rowHeight / 2;
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
    const pageRows = Math.max(1, Math.floor(((scroller.current?.clientHeight ?? 0) - headHeight) / rowHeight) - 1);
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

  const columns = {
    '--ledger-seq': `${widths.seq}ch`,
    '--ledger-kind': `${widths.kind}ch`,
    '--ledger-principal': `${widths.principal}ch`,
    '--ledger-capability': `${widths.capability}ch`,
  } as CSSProperties;

  return (
    <div className={`ledger-grid-frame ledger-grid-frame--${layout}`} style={columns}>
      <div
        ref={scroller}
        className="ledger-grid"
        role="grid"
        aria-label="Ledger entries, newest first"
        aria-rowcount={count + 1}
        aria-colcount={COLUMNS.length}
        aria-activedescendant={activeRendered ? `${rowIdPrefix}-${focusedSeq}` : undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
        onScroll={onScroll}
        data-layout={layout}
        // Focus arriving by Tab lands on a row at once, so the operator sees where the arrows start.
        onFocus={(event) => {
          if (event.target === event.currentTarget && focusedIndex === -1 && count > 0) setFocusedSeq(at(virtualizer.getVirtualItems()[0]?.index ?? 0)?.seq ?? null);
        }}
      >
        <div role="rowgroup" className="ledger-grid__head">
          <div role="row" className="ledger-row ledger-row--head" aria-rowindex={1}>
            {COLUMNS.map((column) => (
              <span key={column.key} role="columnheader" className={`ledger-cell ledger-cell--${column.key}`}>
                {column.label}
              </span>
            ))}
          </div>
        </div>
        <div role="rowgroup" className="ledger-grid__body" data-rows={count} style={{ height: virtualizer.getTotalSize() }}>
          {rows.map((row) => {
            const entry = at(row.index);
            if (!entry) return null;
            return (
              <LedgerRow
                key={row.key}
                id={`${rowIdPrefix}-${entry.seq}`}
                entry={entry}
                rowIndex={row.index + 2}
                top={row.start - headHeight}
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
          style={{ top: headHeight + 8 }}
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
        {/* The date gives way in the narrow layout; the clock stays. */}
        <time dateTime={entry.at}>
          <span className="ledger-cell__date">{dateClockTime(entry.at).slice(0, -clockTime(entry.at).length)}</span>
          {clockTime(entry.at)}
        </time>
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--kind">
        {entry.kind}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--principal" title={principalTitle(entry.principal)}>
        {entry.principal ?? '—'}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--capability">
        {entry.capability ? <IdText id={entry.capability} /> : '—'}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--request">
        {entry.requestId ? <IdText id={entry.requestId} /> : '—'}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--task">
        {entry.taskId ? <IdText id={entry.taskId} /> : '—'}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--summary" title={summary}>
        {summary}
      </span>
      <span role="gridcell" className="ledger-cell ledger-cell--hash" title={entry.hash}>
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
