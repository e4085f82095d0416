/**
 * config.json's MCP servers through the gateway's management API: the list (secrets masked),
 * save, remove and reconnect. Each answers with the new list; the catalog follows through its
 * own events, and is re-read here too so the panel does not wait for them.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { OperationInput } from '../../../shared/api';
import type { McpServerEntry, McpServersView } from '../../../shared/mcp';
import { queryKeys, refreshCatalog, useTransport } from '../../api/hooks';
import type { ConsoleTransport } from '../../api/transport';

export function useMcpServers(enabled: boolean) {
  const transport = useTransport();
  return useQuery({ queryKey: queryKeys.mcpServers, queryFn: () => transport.listMcpServers(undefined), enabled });
}

function useServersMutation<Input>(change: (transport: ConsoleTransport, input: Input) => Promise<McpServersView>) {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Input) => change(transport, input),
    onSuccess: (view) => {
      client.setQueryData(queryKeys.mcpServers, view);
      refreshCatalog(client);
    },
  });
}

export const useSaveMcpServer = () =>
  useServersMutation((transport, input: { name: string; entry: McpServerEntry }) => transport.saveMcpServer(input));

export const useRemoveMcpServer = () => useServersMutation((transport, name: string) => transport.removeMcpServer({ name }));

export const useReconnectProvider = () => useServersMutation((transport, name: string) => transport.reconnectProvider({ name }));

export const useSetServerPolicy = () => useServersMutation((transport, input: OperationInput<'setServerPolicy'>) => transport.setServerPolicy(input));
