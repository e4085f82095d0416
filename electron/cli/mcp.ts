/**
 * `capstan mcp`: Capstan's MCP server over stdio, for MCP hosts that launch a command. It holds
 * no runtime of its own: it finds the running gateway of the data dir (gateway.json), starting
 * one if none runs, and relays to its `/mcp` with an SDK client. So an agent that arrives this
 * way lands in the same runtime and ledger as one that arrives over HTTP, under its own token.
 *
 * The relay keeps one HTTP session for its whole stdio connection: the gateway issues it an
 * Mcp-Session-Id, hence one Capstan session per `capstan mcp` process. A 2025-era host sees the
 * tools it loaded in its `tools/list` (the gateway's list for that session, list_changed relayed);
 * a 2026-07-28 host sees the fixed six, as that revision requires. Progress is relayed both ways
 * of a call: while an agent's call waits for the operator's approval, the host hears about it.
 * A gateway that stops is found (or started) again on the next call (upstream.ts).
 */
import type { Progress } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { parseArgs } from 'node:util';
import { dataDirOf, readToken } from './connection';
import { findOrStartGateway } from './localGateway';
import { refusal } from '../../shared/envelope';
import { CAPSTAN_TOOL_DESCRIPTORS, INSTRUCTIONS, SERVER_INFO } from '../../shared/mcpTools';
import { DECLARED_CAPABILITIES, relayDeclared } from './mcpDeclared';
import { GatewayUnreachable, Upstream } from './upstream';

/**
 * How long the relay lets one call run. The gateway owns deadlines (each tool's timeout, the
 * approval's expiry) and reports progress meanwhile, so this only bounds a gateway gone silent.
 */
const CALL_TIMEOUT_MS = 60 * 60_000;

export async function mcpCommand(args: string[], cli: string): Promise<void> {
  const { values } = parseArgs({ args, options: { 'token-file': { type: 'string' }, 'data-dir': { type: 'string' } }, strict: true });
  const warn = (message: string) => void process.stderr.write(`capstan mcp: ${message}\n`);
  const token = readToken(values, 'mcp', 'give the agent token with --token-file FILE or CAPSTAN_TOKEN (make one with `capstan token create --name NAME`)');
  const dataDir = dataDirOf(values);
  await relay(async () => (await findOrStartGateway(dataDir, cli, warn)).url, token, warn);
}

/** Serves stdio until the host closes it, relaying each request to the gateway's `/mcp`. */
async function relay(gateway: () => Promise<string>, token: string, warn: (message: string) => void): Promise<void> {
  let listening: Server | undefined;
  const upstream = new Upstream(gateway, token, () => listening?.sendToolListChanged());
  // Connected before the host's first request, so a gateway that cannot be had fails at once.
  await upstream.use(async () => undefined);

  const served = serveStdio(
    ({ era }) => {
      const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: era === 'legacy' }, ...DECLARED_CAPABILITIES }, instructions: INSTRUCTIONS });
      // The MCP servers' resources, templates and prompts, as the gateway lets this agent have them (mcpDeclared.ts).
      relayDeclared(server, upstream);
      server.setRequestHandler('tools/list', async (request) =>
        era === 'legacy' ? upstream.use((client) => client.listTools(request.params)) : { tools: [...CAPSTAN_TOOL_DESCRIPTORS] },
      );
      server.setRequestHandler('tools/call', async (request, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        const options = {
          signal: ctx.mcpReq.signal,
          timeout: CALL_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          // Asked for always, so the gateway reports a waiting call; passed on when the host asked too.
          onprogress: (progress: Progress) => {
            if (progressToken !== undefined) void ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => undefined);
          },
        };
        try {
          return await upstream.use((client) => client.callTool(request.params, options));
        } catch (error) {
          if (!(error instanceof GatewayUnreachable)) throw error;
          // The model reads it as it reads any other failure of a call.
          const envelope = refusal('GATEWAY_UNREACHABLE', GatewayUnreachable.reason);
          return { isError: true, content: [{ type: 'text', text: envelope.error.message }], structuredContent: { ...envelope } };
        }
      });
      if (era === 'legacy') listening = server;
      return server;
    },
    { onerror: (error) => warn(error.message) },
  );
  await new Promise<void>((resolve) => process.stdin.once('close', resolve));
  await served.close();
  // The host is done: the session's task is finished, so it does not stay running in the console.
  await upstream.close(warn);
}
