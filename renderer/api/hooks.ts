/** Server state for the console, through react-query, over whichever transport is in use. */
import { createContext, useContext } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ConsoleSettings, ToolCallRequest } from '../../shared/api';
import type { CatalogSearchOutput, CatalogView } from '../../shared/discovery';
import type { ConsoleTransport } from './transport';

export const TransportContext = createContext<ConsoleTransport | null>(null);

export function useTransport(): ConsoleTransport {
  const transport = useContext(TransportContext);
  if (!transport) throw new Error('useTransport needs a TransportContext provider');
  return transport;
}

export const queryKeys = {
  catalog: ['catalog'],
  settings: ['settings'],
  /** Every search; a search for one query is ['search', query]. */
  searches: ['search'],
  search: (query: string) => ['search', query],
  /** config.json's MCP servers as the gateway shows them (secrets masked). */
  mcpServers: ['mcpServers'],
} as const;

/**
 * Keeps the newer of two catalog views. A refetch started before a change can answer after the
 * view a mutation returned; without this it would put the older catalog back on screen.
 * Equal generations take the later answer: diagnostics change without a new generation.
 */
function newerView(client: QueryClient, fresh: CatalogView): CatalogView {
  const cached = client.getQueryData<CatalogView>(queryKeys.catalog);
  return cached && cached.catalogGeneration > fresh.catalogGeneration ? cached : fresh;
}

/** The operator's whole catalog: capabilities of enabled providers, providers, diagnostics. */
export function useCatalog() {
  const transport = useTransport();
  const client = useQueryClient();
  return useQuery({
    queryKey: queryKeys.catalog,
    queryFn: async () => newerView(client, await transport.getCatalog(undefined)),
    // The registry is rebuilt from each answer anyway; deep-comparing thousands of contracts would only cost.
    structuralSharing: false,
  });
}

/** Re-reads everything a catalog change can affect (live events call this). */
export function refreshCatalog(client: QueryClient): void {
  void client.invalidateQueries({ queryKey: queryKeys.catalog });
  void client.invalidateQueries({ queryKey: queryKeys.searches });
  // A server's status and tool count change with the catalog; the list is only read while the Providers panel shows it.
  void client.invalidateQueries({ queryKey: queryKeys.mcpServers });
}

/** A search's hits with the query they answer, so the page can tell a current answer from a kept one. */
export interface SearchResult {
  query: string;
  /** Best first; null for the empty query, which lists the whole catalog. */
  hits: CatalogSearchOutput['hits'] | null;
}

const ALL: SearchResult = { query: '', hits: null };

/**
 * lexical-v1 search over the whole catalog. No debounce: each keystroke asks at once, and the
 * request of a superseded query is aborted (react-query aborts a query left without observers
 * once its signal has been read). While a query is in flight the previous answer stays on screen.
 */
export function useCatalogSearch(query: string) {
  const transport = useTransport();
  const empty = query === '';
  return useQuery({
    queryKey: queryKeys.search(query),
    queryFn: async ({ signal }): Promise<SearchResult> =>
      empty ? ALL : { query, hits: (await transport.searchCatalog({ query }, { signal })).hits },
    placeholderData: keepPreviousData,
    // Thousands of hits: comparing them deeply with the previous answer costs more than it saves.
    structuralSharing: false,
    // The empty query needs no request: its answer is known before asking.
    ...(empty ? { initialData: ALL, staleTime: Infinity } : {}),
  });
}

export function useSettings() {
  const transport = useTransport();
  return useQuery({ queryKey: queryKeys.settings, queryFn: () => transport.getSettings(undefined) });
}

export function useSaveSettings() {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: ConsoleSettings) => transport.saveSettings(settings),
    onSuccess: (saved) => client.setQueryData(queryKeys.settings, saved),
  });
}

/** Operator changes to the catalog answer with the new view: show it at once, then re-run searches. */
function useCatalogMutation<Input>(change: (transport: ConsoleTransport, input: Input) => Promise<CatalogView>) {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Input) => change(transport, input),
    onSuccess: (view) => {
      client.setQueryData(queryKeys.catalog, newerView(client, view));
      void client.invalidateQueries({ queryKey: queryKeys.searches });
    },
  });
}

export const useSetProviderEnabled = () =>
  useCatalogMutation((transport, input: { provider: string; enabled: boolean }) => transport.setProviderEnabled(input));

export const useSetCapabilityRevoked = () =>
  useCatalogMutation((transport, input: { id: string; revoked: boolean }) => transport.setCapabilityRevoked(input));

/** Runs a tool; `confirmed` marks a call the operator has reviewed in the confirmation flow. */
export function useCallTool() {
  const transport = useTransport();
  return useMutation({
    mutationFn: ({ request, confirmed }: { request: ToolCallRequest; confirmed: boolean }) =>
      confirmed ? transport.callConfirmed(request) : transport.callTool(request),
  });
}
