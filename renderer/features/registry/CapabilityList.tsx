/**
 * The list of capabilities, virtualized so 10,000 rows cost what a screenful does: only rows in
 * view (plus a few either side) are in the DOM, each measured after it renders, since cards
 * differ in height. Keyboard: Tab reaches one row (the selected or last focused one); arrow
 * keys, Home, End, Page Up and Page Down move between rows; Enter or Space selects.
 */
import { measureElement as measureRow, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useImperativeHandle, useRef, useState, type KeyboardEvent, type Ref } from 'react';
import { useConsoleUi } from '../../state/uiStore';
import type { SearchView } from '../search/useSearchResults';
import { CapabilityCard } from './CapabilityCard';

/** A typical card before any is measured; real heights are measured, the estimate only places the rows not yet rendered. */
const ESTIMATED_ROW_PX = 84;
/** Rows kept rendered outside the view, so fast scrolling rarely shows a blank. */
const OVERSCAN = 6;
/** Rows that Page Up and Page Down skip. */
const PAGE_ROWS = 5;

export interface CapabilityListHandle {
  /** Moves keyboard focus to the first row (ArrowDown in the search box). */
  focusFirst(): void;
}

interface CapabilityListProps {
  view: SearchView;
  /** ArrowUp on the first row leaves the list for the search box. */
  onExitTop(): void;
  ref?: Ref<CapabilityListHandle>;
}

export function CapabilityList({ view, onExitTop, ref }: CapabilityListProps) {
  const { shown, matched, terms, resultsFor, searching } = view;
  const selectedId = useConsoleUi((ui) => ui.selectedId);
  const select = useConsoleUi((ui) => ui.select);
  const filter = useConsoleUi((ui) => ui.filter);
  const kind = useConsoleUi((ui) => ui.kind);
  const provider = useConsoleUi((ui) => ui.provider);
  const scroller = useRef<HTMLDivElement>(null);
  const [focusId, setFocusId] = useState<string | null>(null);
  /** A row to focus as soon as it is rendered (it may need scrolling into the window first): its id, or its index while its page is on the way. */
  const pendingFocus = useRef<string | number | null>(null);

  // Stable while the rows are: the virtualizer recomputes every row's position when this function changes,
  // asking for the key of each of the thousands of rows. A row whose page has not arrived is keyed by its
  // index, a number (no string made and hashed for each).
  const getItemKey = useCallback((index: number) => shown[index]?.id ?? index, [shown]);
  const rowHeights = useTypicalRowHeight();
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read fresh on every render, as it expects.
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: rowHeights.estimate,
    measureElement: rowHeights.measure,
    getItemKey,
    overscan: OVERSCAN,
    // React 19 warns about flushSync during rendering; a frame's delay on scroll is not visible.
    useFlushSync: false,
  });

  const rows = virtualizer.getVirtualItems();
  // Rows whose page of hits has not arrived yet are asked for as they come into view.
  const firstRow = rows[0]?.index ?? 0;
  const endRow = (rows.at(-1)?.index ?? -1) + 1;
  const { showRows } = view;
  useEffect(() => showRows(firstRow, endRow), [showRows, firstRow, endRow]);
  // A scan, not an index: building a Map of thousands of rows on every new result costs more than two lookups.
  const indexOf = (id: string | null) => (id === null ? -1 : shown.findIndex((entry) => entry?.id === id));
  const focused = indexOf(focusId);
  const preferred = focused !== -1 ? focused : Math.max(0, indexOf(selectedId));
  // Tab must always reach the list: if the preferred row is scrolled out of the DOM, the first rendered row takes its place.
  const tabbableIndex = rows.some((row) => row.index === preferred) ? preferred : (rows[0]?.index ?? 0);

  // New results start at the top; a live update of the same results keeps the scroll position.
  const resultsKey = `${resultsFor}\u0000${filter}\u0000${kind}\u0000${provider ?? ''}`;
  useEffect(() => {
    // Already at the top (the virtualizer follows every scroll): scrolling there would only force a layout.
    if (virtualizer.scrollOffset !== 0) scroller.current?.scrollTo({ top: 0 });
  }, [resultsKey, virtualizer]);

  const focusRendered = () => {
    // A row asked for before its page arrived is focused once it has.
    if (typeof pendingFocus.current === 'number') pendingFocus.current = shown[pendingFocus.current]?.id ?? pendingFocus.current;
    const id = pendingFocus.current;
    if (id === null || typeof id === 'number') return;
    const button = scroller.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(id)}"] .tool-card__select`);
    if (!button) return;
    pendingFocus.current = null;
    button.focus();
  };
  // After every render: the row asked for may only now be in the DOM.
  useEffect(focusRendered);

  const moveFocus = (index: number) => {
    const clamped = Math.max(0, Math.min(shown.length - 1, index));
    if (shown.length === 0) return;
    const target = shown[clamped];
    if (target) setFocusId(target.id);
    pendingFocus.current = target?.id ?? clamped;
    virtualizer.scrollToIndex(clamped, { align: 'auto' });
    focusRendered();
  };

  useImperativeHandle(ref, () => ({ focusFirst: () => moveFocus(0) }));

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (!row) return;
    const index = Number(row.dataset.index);
    const moves: Record<string, number> = {
      ArrowDown: index + 1,
      ArrowUp: index - 1,
      PageDown: index + PAGE_ROWS,
      PageUp: index - PAGE_ROWS,
      Home: 0,
      End: shown.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    if (event.key === 'ArrowUp' && index === 0) onExitTop();
    else moveFocus(next);
  };

  return (
    <div ref={scroller} className="capability-list" data-results-for={resultsFor} aria-busy={searching}>
      <ul
        className="tool-list"
        style={{ height: virtualizer.getTotalSize() }}
        onKeyDown={onKeyDown}
        onFocus={(event) => {
          const id = (event.target as HTMLElement).closest<HTMLElement>('[data-id]')?.dataset.id;
          if (id) setFocusId(id);
        }}
      >
        {rows.map((item) => {
          const entry = shown[item.index];
          if (!entry) {
            return (
              <li
                // React's keys are strings: an index must not meet a capability id spelled as digits.
                key={`row-${item.key}`}
                ref={virtualizer.measureElement}
                className="tool-list__row tool-list__row--pending"
                data-index={item.index}
                aria-setsize={shown.length}
                aria-posinset={item.index + 1}
                aria-busy="true"
                style={{ transform: `translateY(${item.start}px)`, minHeight: ESTIMATED_ROW_PX }}
              />
            );
          }
          return (
            <li
              key={item.key}
              ref={virtualizer.measureElement}
              className="tool-list__row"
              data-index={item.index}
              data-id={entry.id}
              aria-setsize={shown.length}
              aria-posinset={item.index + 1}
              style={{ transform: `translateY(${item.start}px)` }}
            >
              <CapabilityCard
                entry={entry}
                selected={entry.id === selectedId}
                tabbable={item.index === tabbableIndex}
                matched={matched.get(entry.id)}
                terms={terms}
                onSelect={select}
              />
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/**
 * The height most cards have measured so far, as the estimate for a row not yet rendered. A new
 * answer's rows then usually measure what they were placed at: nothing moves, and the list is
 * neither rendered again nor laid out again for it (with a fixed guess, every new row measured
 * differently, and the rows below it, the list's height and the frame's layout all changed).
 */
function useTypicalRowHeight() {
  const [heights] = useState(() => {
    /** How many rows measured each height (a handful of distinct heights: cards are a few fixed lines). */
    const seen = new Map<number, number>();
    let typical = ESTIMATED_ROW_PX;
    return {
      estimate: () => typical,
      measure: (element: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<HTMLDivElement, Element>) => {
        const size = measureRow(element, entry, instance);
        // A row still waiting for its page has a placeholder's height, not a card's.
        if (size > 0 && !element.classList.contains('tool-list__row--pending')) {
          if (seen.size > 64) seen.clear();
          const count = (seen.get(size) ?? 0) + 1;
          seen.set(size, count);
          if (count > (seen.get(typical) ?? 0)) typical = size;
        }
        return size;
      },
    };
  });
  return heights;
}
