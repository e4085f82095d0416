/**
 * A server's log lines and protocol messages, from the gateway: the log is read once and then
 * grows with each `serverLog` event (useLiveUpdates routes them here), the protocol view is read
 * again every second or two while it is open (it has no event of its own: a busy server would
 * flood the stream).
 */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { SERVER_LOG_LINES, type LogLevel, type ServerLogAppended, type ServerLogView } from '../../../shared/serverLog';
import { useTransport } from '../../api/hooks';

export const serverLogKey = (name: string) => ['serverLog', name] as const;
const protocolKey = (name: string, q: string, requestId: string | null) => ['protocolLog', name, q, requestId] as const;
/** How often an open protocol view asks again. */
export const PROTOCOL_REFRESH_MS = 1500;

export function useServerLog(name: string) {
  const transport = useTransport();
  return useQuery({ queryKey: serverLogKey(name), queryFn: () => transport.getServerLog({ name }) });
}

/** A line as it arrives: added to the server's log if the console holds it (else read whole when shown). */
export function applyServerLogLine(client: QueryClient, event: ServerLogAppended): void {
  client.setQueryData<ServerLogView>(serverLogKey(event.server), (view) => {
    if (!view || view.lines.some((line) => line.seq >= event.line.seq)) return view;
    const lines = [...view.lines, event.line];
    const over = Math.max(0, lines.length - SERVER_LOG_LINES);
    return { ...view, lines: lines.slice(over), dropped: view.dropped + over };
  });
}

export function useSetServerLogLevel(name: string) {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (level: LogLevel) => transport.setServerLogLevel({ name, level }),
    onSuccess: (view) => client.setQueryData<ServerLogView>(serverLogKey(name), (held) => (held ? { ...held, level: view.level, supported: view.supported } : view)),
  });
}

export function useProtocolLog(name: string, q: string, requestId: string | null, live: boolean) {
  const transport = useTransport();
  return useQuery({
    queryKey: protocolKey(name, q, requestId),
    queryFn: () => transport.getProtocolLog({ name, ...(q ? { q } : {}), ...(requestId ? { requestId } : {}) }),
    refetchInterval: live ? PROTOCOL_REFRESH_MS : false,
    placeholderData: (previous) => previous,
  });
}
