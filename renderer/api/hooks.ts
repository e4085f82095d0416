/** Server state for the console, through react-query, over whichever transport is in use. */
import { createContext, useContext } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ConsoleSettings, ToolCallRequest } from '../../shared/api';
import { applyCatalogDelta, catchUp, eventFit, sameGateway } from '../../shared/catalogDelta';
import { CATALOG_SEARCH_PAGE, type CatalogSearchInput, type CatalogSearchOutput, type CatalogView } from '../../shared/discovery';
import type { CatalogChanged } from '../../shared/events';
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
  /** Every search page; one page is ['search', its input without offset, its page number]. */
  searches: ['search'],
  searchPage: (params: SearchParams, page: number) => ['search', params, page],
  /** config.json's MCP servers as the gateway shows them (secrets masked). */
  mcpServers: ['mcpServers'],
  /** The held MCP tools (GET /pins) and, under it, each one's diff (['pins', 'diff', id]). */
  pins: ['pins'],
  pinDiff: (id: string) => ['pins', 'diff', id],
} as const;

/** The catalog view the console holds, with its entity tag (null: none known, the next read is whole). */
export type HeldCatalog = CatalogView & { tag: string | null };

/**
 * Keeps the newer of two catalog views. A refetch started before a change can answer after the
 * view a mutation returned or an event built; without this it would put the older catalog back on screen.
 * Equal generations take the later answer: diagnostics change without a new generation.
 */
function newerView(client: QueryClient, fresh: HeldCatalog): HeldCatalog {
  const cached = client.getQueryData<HeldCatalog>(queryKeys.catalog);
  // A restarted gateway counts generations from the start again: its view wins whatever the numbers.
  if (!cached || sameGateway(cached.tag, fresh.tag) === false) return fresh;
  return cached.catalogGeneration > fresh.catalogGeneration ? cached : fresh;
}

/** Per client, the catalog events heard while it held no view, for the read that brings the first one. */
const heardWithoutView = new WeakMap<QueryClient, CatalogChanged[]>();

/**
 * Per client, how many times a catalog read in flight was made stale by something other than an
 * event (the event stream opened, so a change before it was never heard; the operator asked).
 */
const readsOutdated = new WeakMap<QueryClient, number>();

/**
 * The operator's whole catalog: capabilities of enabled providers, providers, diagnostics. Read
 * whole once; then catalog events keep it current (applyCatalogEvent), and a read after a missed
 * change asks with the held view's tag, so an unchanged catalog costs a 304.
 */
export function useCatalog() {
  const transport = useTransport();
  const client = useQueryClient();
  return useQuery({
    queryKey: queryKeys.catalog,
    queryFn: async (): Promise<HeldCatalog> => {
      let known = client.getQueryData<HeldCatalog>(queryKeys.catalog);
      for (;;) {
        const outdated = readsOutdated.get(client) ?? 0;
        const read = await transport.readCatalog(known?.tag ?? null);
        const fresh = (readsOutdated.get(client) ?? 0) === outdated;
        // Unchanged since the tag was sent; events may have moved the held view on since, so it is read again.
        if (read === 'unchanged') {
          if (fresh) return client.getQueryData<HeldCatalog>(queryKeys.catalog) ?? known!;
          continue;
        }
        // Events heard before there was a view to apply them to: the answer may predate them.
        const heard = heardWithoutView.get(client)?.splice(0) ?? [];
        const { view, reread } = catchUp<HeldCatalog>({ ...read.view, tag: read.tag }, heard);
        if (!reread && fresh) return newerView(client, view);
        // Read again, conditionally: usually a 304.
        known = view;
      }
    },
    // The registry is rebuilt from each answer anyway; deep-comparing thousands of contracts would only cost.
    structuralSharing: false,
  });
}

/**
 * A catalog event: its delta applied to the held view in place when it follows on from it; else
 * (a change missed, or too large to carry) the view is read again, conditionally. Searches are
 * asked again only when capabilities changed.
 */
export function applyCatalogEvent(client: QueryClient, event: CatalogChanged): void {
  const held = client.getQueryData<HeldCatalog>(queryKeys.catalog);
  if (!held) {
    // No view yet: the first read, if already in flight, may answer from before this change, and
    // asking again now would only join that read; its answer is brought up to these events.
    const heard = heardWithoutView.get(client) ?? [];
    heard.push(event);
    heardWithoutView.set(client, heard);
  }
  const fit = eventFit(held, event);
  if (fit === 'apply' && held && event.delta) {
    client.setQueryData<HeldCatalog>(queryKeys.catalog, { ...applyCatalogDelta(held, event.catalogGeneration, event.delta), tag: event.delta.tag });
  } else if (fit === 'reread') {
    void client.invalidateQueries({ queryKey: queryKeys.catalog });
  }
  if (!event.delta || event.delta.upserted.length > 0 || event.delta.removed.length > 0) void client.invalidateQueries({ queryKey: queryKeys.searches });
  // A server's status and tool count change with the catalog; the list is only read while the Providers panel shows it.
  void client.invalidateQueries({ queryKey: queryKeys.mcpServers });
  // A listing (list_changed, a reconnect) is when a tool is held or its held descriptor changes again.
  refreshPins(client);
}

/**
 * Reads the catalog whole, unconditionally. For held tools (pinned contracts): `GET /catalog` lists
 * them, but a catalog event's delta is taken over the tools tasks see, which leaves them out, so
 * a tool held by a listing is removed from the view the console holds. The registry reads the
 * view again when a held tool is missing from it (useRegistry).
 */
export async function readWholeCatalog(client: QueryClient, transport: ConsoleTransport): Promise<void> {
  const read = await transport.readCatalog(null);
  if (read !== 'unchanged') client.setQueryData<HeldCatalog>(queryKeys.catalog, newerView(client, { ...read.view, tag: read.tag }));
}

/** Reads the held tools again, and the diff under review: a change may have held, released or rewritten one. */
export function refreshPins(client: QueryClient): void {
  void client.invalidateQueries({ queryKey: queryKeys.pins });
}

/** Re-reads everything a catalog change can affect (after a reconnect, or when the operator asks): the catalog conditionally. */
export function refreshCatalog(client: QueryClient): void {
  // A first read in flight (no view held) is not asked again by the invalidation, which joins it: it reads again itself.
  readsOutdated.set(client, (readsOutdated.get(client) ?? 0) + 1);
  void client.invalidateQueries({ queryKey: queryKeys.catalog });
  void client.invalidateQueries({ queryKey: queryKeys.searches });
  // A server's status and tool count change with the catalog; the list is only read while the Providers panel shows it.
  void client.invalidateQueries({ queryKey: queryKeys.mcpServers });
  refreshPins(client);
}

/** What a search asks besides its page: the query and the console's filters. */
export type SearchParams = Required<Pick<CatalogSearchInput, 'query'>> & Pick<CatalogSearchInput, 'filter' | 'kind' | 'provider'>;

/** One page of a search, with what it answers, so the page can tell a current answer from a kept one. */
export interface SearchPage {
  params: SearchParams;
  answer: CatalogSearchOutput;
}

/** Hits per page of the console's list. */
export const SEARCH_PAGE = CATALOG_SEARCH_PAGE;

/**
 * One page of lexical-v1 search over the whole catalog, under the list's filters. No debounce:
 * each keystroke asks for its first page at once, and the request of a superseded query is
 * aborted (react-query aborts a query left without observers once its signal has been read).
 * `keepPrevious` keeps the previous answer on screen while the new one is in flight.
 */
export function searchPageQuery(transport: ConsoleTransport, params: SearchParams, page: number, keepPrevious = false) {
  return {
    queryKey: queryKeys.searchPage(params, page),
    queryFn: async ({ signal }: { signal: AbortSignal }): Promise<SearchPage> => ({
      params,
      answer: await transport.searchCatalog({ ...params, offset: page * SEARCH_PAGE, limit: SEARCH_PAGE }, { signal }),
    }),
    ...(keepPrevious ? { placeholderData: keepPreviousData } : {}),
    enabled: params.query !== '',
  };
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
      // The answer comes without a tag; the next delta brings one.
      client.setQueryData(queryKeys.catalog, newerView(client, { ...view, tag: null }));
      void client.invalidateQueries({ queryKey: queryKeys.searches });
    },
  });
}

export const useSetProviderEnabled = () =>
  useCatalogMutation((transport, input: { provider: string; enabled: boolean }) => transport.setProviderEnabled(input));

export const useSetCapabilityRevoked = () =>
  useCatalogMutation((transport, input: { id: string; revoked: boolean }) => transport.setCapabilityRevoked(input));

/**
 * The MCP tools held for review (shared/pins.ts): changed since they were pinned, or new. Kept
 * current by catalog events and the pin ledger entries (useLiveUpdates).
 */
export function usePins() {
  const transport = useTransport();
  return useQuery({ queryKey: queryKeys.pins, queryFn: () => transport.listPins(undefined) });
}

/** A held tool's descriptor as pinned and as its server sends it now; read again whenever the held tools may have changed. */
export function usePinDiff(id: string | null) {
  const transport = useTransport();
  return useQuery({
    queryKey: queryKeys.pinDiff(id ?? ''),
    queryFn: () => transport.getPinDiff({ id: id! }),
    enabled: id !== null,
    // A tool no longer held answers CAPABILITY_NOT_FOUND: said once, not retried.
    retry: false,
  });
}

/** Accepts a held tool as reviewed: `hash` is the descriptor shown, so one changed again meanwhile stays held. */
export function useAcceptPin() {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string; hash: string }) => transport.acceptPin(input),
    onSuccess: (view) => {
      client.setQueryData(queryKeys.pins, view);
      // The tool is callable at once; the catalog event follows, this only makes sure.
      refreshCatalog(client);
    },
  });
}

/** Runs a tool; `confirmed` marks a call the operator has reviewed in the confirmation flow. */
export function useCallTool() {
  const transport = useTransport();
  return useMutation({
    mutationFn: ({ request, confirmed }: { request: ToolCallRequest; confirmed: boolean }) =>
      confirmed ? transport.callConfirmed(request) : transport.callTool(request),
  });
}
