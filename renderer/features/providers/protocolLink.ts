/**
 * "Protocol messages" from a call elsewhere on the page (Recent executions, a ledger entry):
 * which server's protocol view the Providers panel should open, on which call. The panel takes
 * the request and clears it.
 */
import { create } from 'zustand';
import { useConsoleUi } from '../../state/uiStore';

export interface ProtocolFocus {
  server: string;
  requestId: string | null;
}

export const useProtocolFocus = create<{ focus: ProtocolFocus | null; take(): ProtocolFocus | null }>((set, get) => ({
  focus: null,
  take: () => {
    const { focus } = get();
    if (focus) set({ focus: null });
    return focus;
  },
}));

/** Opens the Providers panel on a server's protocol view, filtered to one call when given. */
export function openProtocolView(server: string, requestId: string | null): void {
  useProtocolFocus.setState({ focus: { server, requestId } });
  useConsoleUi.getState().openPanel('providers');
}

/** The MCP server a capability id names (`everything:echo` → `everything`), if it is one of the configured servers. */
export function serverOf(capability: string, servers: readonly string[]): string | null {
  const at = capability.indexOf(':');
  if (at <= 0) return null;
  const server = capability.slice(0, at);
  return servers.includes(server) ? server : null;
}
