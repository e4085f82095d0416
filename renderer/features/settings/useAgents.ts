/**
 * Agent tokens through the gateway (GET/POST/DELETE /agents). The list is read each time the
 * Agents tab opens: `capstan token` changes it from outside, without an event.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AgentsView } from '../../../shared/agents';
import { useTransport } from '../../api/hooks';

const agentsKey = ['agents'] as const;

export function useAgents() {
  const transport = useTransport();
  return useQuery({ queryKey: agentsKey, queryFn: () => transport.listAgents(undefined), refetchOnMount: 'always' });
}

/** Answers with the new token, which is shown once and kept nowhere but in the form that asked. */
export function useCreateAgent() {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => transport.createAgent({ name }),
    onSuccess: ({ agent }) =>
      client.setQueryData<AgentsView>(agentsKey, (view) => ({
        agents: [...(view?.agents ?? []).filter((known) => known.name !== agent.name), agent].sort((a, b) => a.name.localeCompare(b.name)),
      })),
  });
}

export function useRevokeAgent() {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => transport.revokeAgent({ name }),
    onSuccess: (view) => client.setQueryData(agentsKey, view),
  });
}
