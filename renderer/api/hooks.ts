/** Server state for the console, through react-query, over whichever transport is in use. */
import { createContext, useContext } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConsoleSettings, ToolCallRequest } from '../../shared/api';
import type { ConsoleTransport } from './transport';

export const TransportContext = createContext<ConsoleTransport | null>(null);

export function useTransport(): ConsoleTransport {
  const transport = useContext(TransportContext);
  if (!transport) throw new Error('useTransport needs a TransportContext provider');
  return transport;
}

export const queryKeys = { tools: ['tools'], settings: ['settings'] } as const;

export function useTools() {
  const transport = useTransport();
  return useQuery({ queryKey: queryKeys.tools, queryFn: () => transport.listTools(undefined) });
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

/** Runs a tool; `confirmed` marks a call the operator has reviewed in the confirmation flow. */
export function useCallTool() {
  const transport = useTransport();
  return useMutation({
    mutationFn: ({ request, confirmed }: { request: ToolCallRequest; confirmed: boolean }) =>
      confirmed ? transport.callConfirmed(request) : transport.callTool(request),
  });
}
