/**
 * The console's view in its address: the selected capability, the search and the filters, so a
 * reload, a bookmark or a link another operator sends opens the same view. Only the query string
 * carries it (`?tool=builtin:time_now&q=clock&filter=confirm&kind=tool&provider=builtin`); the
 * token never does (it lives in sessionStorage, transport.ts), and the address is replaced, not
 * pushed, so Back still leaves the console.
 */
import type { ToolFilter } from '../../shared/policy';
import type { KindFilter } from './uiStore';

export interface UrlView {
  selectedId: string | null;
  query: string;
  filter: ToolFilter;
  kind: KindFilter;
  provider: string | null;
}

const FILTERS: readonly ToolFilter[] = ['all', 'low-risk', 'confirm'];
const KINDS: readonly KindFilter[] = ['all', 'tool', 'skill', 'resource', 'resourceTemplate', 'prompt'];
/** Anything longer is not a link anyone wrote: ignored rather than trusted. */
const MAX_VALUE = 300;

const value = (params: URLSearchParams, key: string): string | null => {
  const found = params.get(key);
  return found !== null && found.length <= MAX_VALUE ? found : null;
};

/** What the address says of the view; what it does not say (or says wrongly) is the default. */
export function viewFromUrl(search: string): Partial<UrlView> {
  const params = new URLSearchParams(search);
  const view: Partial<UrlView> = {};
  const tool = value(params, 'tool');
  if (tool) view.selectedId = tool;
  const query = value(params, 'q');
  if (query) view.query = query;
  const filter = value(params, 'filter');
  if (filter && (FILTERS as readonly string[]).includes(filter)) view.filter = filter as ToolFilter;
  const kind = value(params, 'kind');
  if (kind && (KINDS as readonly string[]).includes(kind)) view.kind = kind as KindFilter;
  const provider = value(params, 'provider');
  if (provider) view.provider = provider;
  return view;
}

/** The query string for a view: defaults left out, so the plain console has a plain address. */
export function urlForView(view: UrlView): string {
  const params = new URLSearchParams();
  if (view.selectedId) params.set('tool', view.selectedId);
  if (view.query) params.set('q', view.query);
  if (view.filter !== 'all') params.set('filter', view.filter);
  if (view.kind !== 'all') params.set('kind', view.kind);
  if (view.provider) params.set('provider', view.provider);
  const search = params.toString();
  return search ? `?${search}` : '';
}

/**
 * Typing writes the address once the query rests this long. Each `history.replaceState` costs
 * the page about 2 ms of its main thread and has Chromium ask the gateway for the favicon again:
 * on every keystroke, that was about a fifth of the console's keystroke → paint (the console bench).
 */
const QUERY_SETTLE_MS = 250;
/** The view the page last had, for a reload to open (the address may lag it by QUERY_SETTLE_MS). */
const LATEST_KEY = 'capstan.view.latest';

const sameView = (a: UrlView, b: UrlView) =>
  a.selectedId === b.selectedId && a.query === b.query && a.filter === b.filter && a.kind === b.kind && a.provider === b.provider;

const replaceSearch = (search: string) => {
  if (search === window.location.search) return;
  try {
    history.replaceState(history.state, '', `${window.location.pathname}${search}${window.location.hash}`);
  } catch {
    // A page whose address cannot change (an opaque file: origin, say) keeps its view in memory only.
  }
};

/**
 * The query string the console's view starts from: the address's own, or on a reload the view the
 * page last had, which the address may not have caught up with (the tab keeps it,
 * `followViewInUrl`). A link opened in the same tab, or Back and Forward, go by the address.
 */
export function startingSearch(): string {
  if (typeof window === 'undefined') return '';
  const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
  try {
    const latest = sessionStorage.getItem(LATEST_KEY);
    if (latest !== null && navigation?.type === 'reload') replaceSearch(latest);
    // Any other start goes by its address, and so does a reload before the view next changes.
    else sessionStorage.removeItem(LATEST_KEY);
  } catch {
    // No storage: the address is all there is.
  }
  return window.location.search;
}

/**
 * Keeps the address in step with the view, replacing it (never pushing) as the operator moves:
 * at once for a selection or a filter, once typing rests for a query. The tab keeps every view as
 * it comes (sessionStorage, far cheaper than replaceState), so a reload before the address caught
 * up opens the last keystroke's view (`startingSearch`). It is kept then and there, not when the
 * wait ends nor as the page goes away: a reload's address is fixed when it starts, while the old
 * page runs on until the new one arrives, and a write it makes then may never reach the new page.
 */
export function followViewInUrl(subscribe: (listener: (view: UrlView) => void) => () => void): () => void {
  if (typeof window === 'undefined') return () => undefined;
  let last: UrlView | undefined;
  /** `last`'s query string, made once per change for the tab and the address alike. */
  let lastSearch: string | undefined;
  let typing: ReturnType<typeof setTimeout> | undefined;
  const write = () => {
    clearTimeout(typing);
    typing = undefined;
    if (lastSearch !== undefined) replaceSearch(lastSearch);
  };
  const unsubscribe = subscribe((view) => {
    const before = last;
    if (before && sameView(view, before)) return;
    last = view;
    lastSearch = urlForView(view);
    try {
      sessionStorage.setItem(LATEST_KEY, lastSearch);
    } catch {
      // No storage: a reload opens the view the address last had.
    }
    if (before && sameView({ ...view, query: before.query }, before)) {
      clearTimeout(typing);
      typing = setTimeout(write, QUERY_SETTLE_MS);
    } else write();
  });
  return () => {
    unsubscribe();
    write();
  };
}
