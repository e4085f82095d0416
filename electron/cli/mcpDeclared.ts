/**
 * `capstan mcp` relaying what the MCP servers behind the gateway offer besides tools:
 * `resources/list`, `resources/templates/list`, `resources/read`, `prompts/list`, `prompts/get`
 * and `completion/complete`, each passed as it is to the gateway's `/mcp` (which decides, by the
 * agent's grants, what it sees and records every read and get: transports/mcp/resources.ts). A
 * gateway that cannot be reached is a JSON-RPC error naming GATEWAY_UNREACHABLE: these requests
 * have no tool result to carry an envelope in.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { refusal } from '../../shared/envelope';
import { GatewayUnreachable, type Upstream } from './upstream';

/** The capabilities the relay declares for them: the gateway's own. */
export const DECLARED_CAPABILITIES = { resources: {}, prompts: {}, completions: {} } as const;

export function relayDeclared(server: Server, upstream: Upstream): void {
  const relayed = async <T>(work: Parameters<Upstream['use']>[0]): Promise<T> => {
    try {
      return (await upstream.use(work)) as T;
    } catch (error) {
      if (!(error instanceof GatewayUnreachable)) throw error;
      const envelope = refusal('GATEWAY_UNREACHABLE', GatewayUnreachable.reason);
      throw new ProtocolError(ProtocolErrorCode.InternalError, envelope.error.message, envelope);
    }
  };
  server.setRequestHandler('resources/list', (request) => relayed((client) => client.listResources(request.params, { cacheMode: 'bypass' })));
  server.setRequestHandler('resources/templates/list', (request) => relayed((client) => client.listResourceTemplates(request.params, { cacheMode: 'bypass' })));
  server.setRequestHandler('resources/read', (request, ctx) => relayed((client) => client.readResource(request.params, { cacheMode: 'bypass', signal: ctx.mcpReq.signal })));
  server.setRequestHandler('prompts/list', (request) => relayed((client) => client.listPrompts(request.params, { cacheMode: 'bypass' })));
  server.setRequestHandler('prompts/get', (request, ctx) => relayed((client) => client.getPrompt(request.params, { signal: ctx.mcpReq.signal })));
  server.setRequestHandler('completion/complete', (request, ctx) => relayed((client) => client.complete(request.params, { signal: ctx.mcpReq.signal })));
}
