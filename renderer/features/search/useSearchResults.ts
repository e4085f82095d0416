/**
 * What the list shows: the gateway's lexical-v1 ranking for the query (or the whole catalog for
 * an empty one), narrowed by the risk filter and the kind and provider facets, with each facet's
 * counts. Facet counts apply every other filter but their own, so each option says how many
 * rows choosing it would give.
 */
import { useMemo } from 'react';
import type { CapabilityKind } from '../../../shared/capability';
import type { CatalogSearchOutput } from '../../../shared/discovery';
import { matchesFilter } from '../../../shared/policy';
import { useCatalogSearch } from '../../api/hooks';
import { useConsoleUi } from '../../state/uiStore';
import type { RegistryEntry } from '../registry/useRegistry';
import { queryTerms } from './highlight';

/** The fields a hit matched in: name, tags, description, provider, kind. */
export type MatchedFields = CatalogSearchOutput['hits'][number]['matched'];

export interface SearchView {
  shown: RegistryEntry[];
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
  error: Error | null;
}

const NO_MATCHES: ReadonlyMap<string, MatchedFields> = new Map();

export function useSearchResults(entries: readonly RegistryEntry[], byId: ReadonlyMap<string, RegistryEntry>): SearchView {
  const query = useConsoleUi((ui) => ui.query);
  const filter = useConsoleUi((ui) => ui.filter);
  const kind = useConsoleUi((ui) => ui.kind);
  const provider = useConsoleUi((ui) => ui.provider);
  const search = useCatalogSearch(query.trim());
  const result = search.data;

  const ranking = useMemo(() => {
    if (!result?.hits) return { entries, matched: NO_MATCHES };
    const matched = new Map<string, MatchedFields>();
    const ranked: RegistryEntry[] = [];
    for (const hit of result.hits) {
      // A hit the catalog on screen does not hold yet (it changed a moment ago) waits for the refetch.
      const entry = byId.get(hit.id);
      if (!entry) continue;
      ranked.push(entry);
      matched.set(hit.id, hit.matched);
    }
    return { entries: ranked, matched };
  }, [result, entries, byId]);

  const filtered = useMemo(() => {
    const shown: RegistryEntry[] = [];
    const kinds: Record<CapabilityKind, number> = { tool: 0, skill: 0 };
    const providers = new Map<string, number>();
    for (const entry of ranking.entries) {
      const { contract } = entry;
      const risk = matchesFilter(contract, filter);
      const kindOk = kind === 'all' || contract.kind === kind;
      const providerOk = provider === null || contract.provider === provider;
      if (risk && providerOk) kinds[contract.kind] += 1;
      if (risk && kindOk) providers.set(contract.provider, (providers.get(contract.provider) ?? 0) + 1);
      if (risk && kindOk && providerOk) shown.push(entry);
    }
    return { shown, facets: { kinds, providers } };
  }, [ranking, filter, kind, provider]);

  const resultsFor = result?.query ?? '';
  const terms = useMemo(() => queryTerms(resultsFor), [resultsFor]);

  return {
    ...filtered,
    matched: ranking.matched,
    resultsFor,
    terms,
    searching: search.isFetching && resultsFor !== query.trim(),
    noLexicalMatch: resultsFor !== '' && result?.hits?.length === 0,
    ranked: ranking.entries.length,
    error: search.error,
  };
}
