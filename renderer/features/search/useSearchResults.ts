/**
 * What the list shows: the gateway's lexical-v1 ranking for the query (or the whole catalog for
 * an empty one), narrowed by the risk filter and the kind and provider facets, with each facet's
 * counts. Facet counts apply every other filter but their own, so each option says how many
 * rows choosing it would give.
 *
 * With a query, the gateway filters and counts, and answers a page of hits at a time: the list
 * knows its length from the first page, shows the rows it has, and asks for the pages the
 * operator scrolls to (`showRows`). Without one, the catalog the console holds is filtered here.
 */
import { useCallback, useMemo, useState } from 'react';
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CapabilityKind } from '../../../shared/capability';
import type { CatalogSearchOutput } from '../../../shared/discovery';
import { matchesFilter } from '../../../shared/policy';
import { SEARCH_PAGE, searchPageQuery, useTransport, type SearchPage, type SearchParams } from '../../api/hooks';
import { useConsoleUi, type KindFilter } from '../../state/uiStore';
import type { ToolFilter } from '../../../shared/policy';
import type { RegistryEntry } from '../registry/useRegistry';
import { queryTerms } from './highlight';

/** The fields a hit matched in: name, tags, description, provider, kind. */
export type MatchedFields = CatalogSearchOutput['hits'][number]['matched'];

export interface SearchView {
  /** Every row of the list, in order; a row whose page has not arrived yet is undefined. */
  shown: readonly (RegistryEntry | undefined)[];
  /** Which fields of each shown capability the query matched (absent without a query). */
  matched: ReadonlyMap<string, MatchedFields>;
  /** The query the shown list answers, trimmed; it lags the search box while a newer query is in flight. */
  resultsFor: string;
  terms: readonly string[];
  /** A newer query than `resultsFor` is in flight. */
  searching: boolean;
  /** The search matched nothing at all, before any filter. */
  noLexicalMatch: boolean;
  /** How many capabilities the ranking holds before the filters. */
  ranked: number;
  facets: { kinds: Record<CapabilityKind, number>; providers: ReadonlyMap<string, number> };
  /** The list shows rows `start` to `end` (exclusive): their pages are asked for if not held. */
  showRows(start: number, end: number): void;
  error: Error | null;
}

const NO_MATCHES: ReadonlyMap<string, MatchedFields> = new Map();
/** What the gateway is asked for the list's filters: a trimmed query, and only the filters that narrow. */
function searchParamsOf({ query, filter, kind, provider }: { query: string; filter: ToolFilter; kind: KindFilter; provider: string | null }): SearchParams {
  return { query: query.trim(), ...(filter === 'all' ? {} : { filter }), ...(kind === 'all' ? {} : { kind }), ...(provider === null ? {} : { provider }) };
}

/**
 * Asks for a query's first page from the keystroke's own event, before React renders the
 * keystroke: the request leaves that render sooner (the console bench's keystroke → request
 * sent), and the list's query finds it in flight under the same key.
 */
export function useSearchAhead(): (query: string) => void {
  const transport = useTransport();
  const client = useQueryClient();
  return useCallback(
    (query: string) => {
      const params = searchParamsOf({ ...useConsoleUi.getState(), query });
      if (params.query !== '') void client.prefetchQuery(searchPageQuery(transport, params, 0));
    },
    [client, transport],
  );
}

const paramsKey = (params: SearchParams) => JSON.stringify([params.query, params.filter, params.kind, params.provider]);

export function useSearchResults(entries: readonly RegistryEntry[], byId: ReadonlyMap<string, RegistryEntry>): SearchView {
  const transport = useTransport();
  const query = useConsoleUi((ui) => ui.query).trim();
  const filter = useConsoleUi((ui) => ui.filter);
  const kind = useConsoleUi((ui) => ui.kind);
  const provider = useConsoleUi((ui) => ui.provider);
  const params = useMemo(() => searchParamsOf({ query, filter, kind, provider }), [query, filter, kind, provider]);

  // The first page says how long the list is; the previous answer stays on screen while it is asked.
  const head = useQuery(searchPageQuery(transport, params, 0, true));
  const answered: SearchPage | undefined = query === '' ? undefined : head.data;

  // The pages beyond the first that the list has scrolled to, for the query on screen.
  const [wanted, setWanted] = useState<{ key: string; pages: readonly number[] }>({ key: '', pages: [] });
  const shownKey = answered ? paramsKey(answered.params) : '';
  const pages = useQueries({
    queries: (wanted.key === shownKey && answered ? wanted.pages : []).map((page) => searchPageQuery(transport, answered!.params, page)),
  });
  const total = answered?.answer.total ?? 0;
  const showRows = useCallback(
    (start: number, end: number) => {
      if (!shownKey) return;
      const first = Math.max(1, Math.floor(start / SEARCH_PAGE));
      const last = Math.min(Math.ceil(total / SEARCH_PAGE) - 1, Math.floor(Math.max(start, end - 1) / SEARCH_PAGE));
      setWanted((held) => {
        const pages = new Set(held.key === shownKey ? held.pages : []);
        const before = pages.size;
        for (let page = first; page <= last; page++) pages.add(page);
        // No page beyond the first wanted (a new answer seen from its top) and none held: whichever query the
        // empty set was kept for, it asks for nothing. Keeping it spares the list a render on every answer.
        if (pages.size === 0 && held.pages.length === 0) return held;
        return pages.size === before && held.key === shownKey ? held : { key: shownKey, pages: [...pages] };
      });
    },
    [shownKey, total],
  );
  const loaded = pages.map((page) => page.data);
  // Changes when any page beyond the first arrives or is refreshed.
  const loadedStamp = pages.map((page) => page.dataUpdatedAt).join();

  const searched = useMemo(() => {
    if (!answered) return undefined;
    const shown: (RegistryEntry | undefined)[] = new Array<RegistryEntry | undefined>(answered.answer.total);
    const matched = new Map<string, MatchedFields>();
    for (const page of [answered, ...loaded]) {
      if (!page) continue;
      const { offset, hits } = page.answer;
      hits.forEach((hit, index) => {
        // A hit the catalog on screen does not hold yet (it changed a moment ago) shows as a row still to come.
        const entry = byId.get(hit.id);
        if (!entry || offset + index >= shown.length) return;
        shown[offset + index] = entry;
        matched.set(hit.id, hit.matched);
      });
    }
    const { kinds, providers } = answered.answer.facets;
    return { shown, matched, facets: { kinds, providers: new Map(providers.map((facet) => [facet.provider, facet.count])) } };
    // `loaded` is a new array every render; `loadedStamp` says when its pages changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answered, byId, loadedStamp]);

  const local = useMemo(() => {
    if (answered) return undefined;
    const shown: RegistryEntry[] = [];
    const kinds: Record<CapabilityKind, number> = { tool: 0, skill: 0, resource: 0, resourceTemplate: 0, prompt: 0 };
    const providers = new Map<string, number>();
    for (const entry of entries) {
      const { contract } = entry;
      const risk = matchesFilter(contract, filter);
      const kindOk = kind === 'all' || contract.kind === kind;
      const providerOk = provider === null || contract.provider === provider;
      if (risk && providerOk) kinds[contract.kind] += 1;
      if (risk && kindOk) providers.set(contract.provider, (providers.get(contract.provider) ?? 0) + 1);
      if (risk && kindOk && providerOk) shown.push(entry);
    }
    return { shown, matched: NO_MATCHES, facets: { kinds, providers } };
  }, [answered, entries, filter, kind, provider]);

  const resultsFor = answered?.params.query ?? '';
  const terms = useMemo(() => queryTerms(resultsFor), [resultsFor]);
  const view = (searched ?? local)!;

  return {
    ...view,
    resultsFor,
    terms,
    searching: query !== '' && head.isFetching && shownKey !== paramsKey(params),
    noLexicalMatch: answered !== undefined && answered.answer.matches === 0,
    ranked: answered ? answered.answer.matches : entries.length,
    showRows,
    error: query === '' ? null : head.error,
  };
}
