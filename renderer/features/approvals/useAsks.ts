/**
 * What MCP servers ask of the operator (shared/serverAsks.ts), as the console holds it: GET /asks
 * read once (and again whenever the event stream opens), `ask` events and answers patched in
 * between. An ask only ever leaves `pending`, so an ended view wins over a pending one of the same id.
 */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { AnswerAskInput, ServerAsksView, ServerAskView } from '../../../shared/serverAsks';
import { useTransport } from '../../api/hooks';
import type { ConsoleTransport } from '../../api/transport';

export const asksQueryKey = ['asks'] as const;
const RECENT = 50;

export function mergeAsks(held: ServerAsksView | undefined, fresh: ServerAsksView, now = Date.now()): ServerAsksView {
  const ended = new Map<string, ServerAskView>();
  for (const view of [...(held?.recent ?? []), ...fresh.recent]) ended.set(view.id, view);
  const pending = new Map<string, ServerAskView>();
  for (const view of held?.pending ?? []) if (Date.parse(view.expiresAt) > now) pending.set(view.id, view);
  for (const view of fresh.pending) pending.set(view.id, view);
  for (const id of ended.keys()) pending.delete(id);
  return {
    pending: [...pending.values()].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt)),
    recent: [...ended.values()].sort((a, b) => (b.answeredAt ?? '').localeCompare(a.answeredAt ?? '')).slice(0, RECENT),
    timeoutMs: fresh.timeoutMs || (held?.timeoutMs ?? 0),
  };
}

const read = async (transport: ConsoleTransport, client: QueryClient) => mergeAsks(client.getQueryData(asksQueryKey), await transport.listAsks(undefined));

export function useAsks() {
  const transport = useTransport();
  const client = useQueryClient();
  return useQuery({ queryKey: asksQueryKey, queryFn: () => read(transport, client), staleTime: Infinity, gcTime: Infinity });
}

/** One ask's new state (an event, or the answer to the operator's answer). */
export function applyAsk(client: QueryClient, view: ServerAskView): void {
  const listing = { pending: view.status === 'pending' ? [view] : [], recent: view.status === 'pending' ? [] : [view], timeoutMs: 0 };
  client.setQueryData<ServerAsksView>(asksQueryKey, (held) => mergeAsks(held, listing));
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
