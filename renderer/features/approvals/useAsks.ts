/**
 * What MCP servers ask of the operator (shared/serverAsks.ts), as the console holds it: GET /asks
 * read once (and again whenever the event stream opens), `ask` events and answers patched in
 * between, merged as the approvals queue is (approvalCache.ts).
 */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { AnswerAskInput, ServerAsksView, ServerAskView } from '../../../shared/serverAsks';
import { useTransport } from '../../api/hooks';
import type { ConsoleTransport } from '../../api/transport';
import { listingOf, mergeListing } from './approvalCache';

export const asksQueryKey = ['asks'] as const;

export const mergeAsks = (held: ServerAsksView | undefined, fresh: ServerAsksView, now = Date.now()): ServerAsksView =>
  mergeListing(held, fresh, (view) => view.answeredAt, now);

const read = async (transport: ConsoleTransport, client: QueryClient) => mergeAsks(client.getQueryData(asksQueryKey), await transport.listAsks(undefined));

export function useAsks() {
  const transport = useTransport();
  const client = useQueryClient();
  return useQuery({ queryKey: asksQueryKey, queryFn: () => read(transport, client), staleTime: Infinity, gcTime: Infinity });
}

/** One ask's new state (an event, or the answer to the operator's answer). */
export function applyAsk(client: QueryClient, view: ServerAskView): void {
  client.setQueryData<ServerAsksView>(asksQueryKey, (held) => mergeAsks(held, listingOf(view)));
}

/** Reads GET /asks again (the event stream opened: ask events may have been missed). */
export function refreshAsks(transport: ConsoleTransport, client: QueryClient): void {
  void client.fetchQuery({ queryKey: asksQueryKey, queryFn: () => read(transport, client), staleTime: 0 }).catch(() => {
    // The views show their query's error; the next reconnection reads again.
  });
}

export function useAnswerAsk() {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (answer: AnswerAskInput) => transport.answerAsk(answer),
    onSuccess: (view) => applyAsk(client, view),
  });
}

/** Whose ask goes where: an agent's call's in Approvals, the operator's own (or one Capstan could not tie to a call) in the dialog. */
export const isAgentAsk = (ask: ServerAskView) => ask.principal.startsWith('agent:');
