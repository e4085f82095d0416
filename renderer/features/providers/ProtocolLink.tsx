/** "Protocol messages": from a call to an MCP server's tool to the JSON-RPC messages of that call, in the server's protocol view. */
import { useCatalog } from '../../api/hooks';
import { Icon } from '../../ui/Icon';
import { openProtocolView, serverOf } from './protocolLink';

/** `onOpen`: the drawer the link is in closes, so the Providers drawer takes its place. */
export function ProtocolLink({ capability, requestId, onOpen }: { capability: string | null; requestId: string; onOpen?: () => void }) {
  const catalog = useCatalog();
  const servers = catalog.data?.providers.filter((provider) => provider.kind === 'mcp').map((provider) => provider.name) ?? [];
  const server = capability ? serverOf(capability, servers) : null;
  if (!server) return null;
  return (
    <button
      type="button"
      className="button button--small button--quiet"
      onClick={() => {
        onOpen?.();
        openProtocolView(server, requestId);
      }}
      title={`Show the JSON-RPC messages between Capstan and ${server} for this call`}
      data-testid="protocol-link"
    >
      <Icon name="plug" />
      Protocol messages
    </button>
  );
}
