/**
 * The command the official conformance suite runs as "the client" (`conformance client --command
 * …`): it connects to the scenario's server the way Capstan connects to an MCP provider, through
 * Capstan's own code (McpConnection, callMcpTool, the OAuth sign-in of electron/providers/mcp/oauth),
 * lists the tools and calls the ones the scenario expects. The suite appends the server URL to the
 * command and names the scenario in MCP_CONFORMANCE_SCENARIO (its fixed inputs, if any, as JSON in
 * MCP_CONFORMANCE_CONTEXT). Exit status 0 when the driver did its part; the suite's checks decide
 * whether the client behaved.
 *
 * Bundled by runClient.mjs (esbuild) because the project's imports carry no extensions, which
 * node's own type stripping cannot resolve.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InsufficientScopeError, UnauthorizedError, type Tool } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { applyElicitationDefaults } from '../../shared/elicitation';
import { callMcpTool } from '../../electron/providers/mcp/calls';
import type { AskAnswer, AskRequest } from '../../electron/providers/mcp/asks';
import { McpClientSide } from '../../electron/providers/mcp/clientSide';
import { McpConnection } from '../../electron/providers/mcp/connection';
import { connectionAuth } from '../../electron/providers/mcp/oauth/bearer';
import { ServerOAuth, SignInRequiredError } from '../../electron/providers/mcp/oauth/provider';
import { signIn } from '../../electron/providers/mcp/oauth/signIn';
import { TokenStore } from '../../electron/providers/mcp/oauth/tokenStore';
import { mcpSettings, type McpSettings } from '../../electron/providers/mcp/settings';
import { StderrTail } from '../../electron/providers/mcp/stderrTail';

/** Where an operator would publish Capstan's Client ID Metadata Document; the suite's CIMD scenario expects this one. */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The calls each scenario's server expects (when its context does not list them); a scenario not
 * named here gets every listed tool called with no arguments.
 */
const CALLS_OF: Record<string, (tools: Tool[]) => ToolCall[]> = {
  tools_call: () => [{ name: 'add_numbers', arguments: { a: 5, b: 3 } }],
  'sse-retry': () => [{ name: 'test_reconnection', arguments: {} }],
  'elicitation-sep1034-client-defaults': () => [{ name: 'test_client_elicitation_defaults', arguments: {} }],
  // Its server answers tools/list alone: the check is that listing fetched no `$ref` URL.
  'json-schema-ref-no-deref': () => [],
  // Hands back the input schema as the provider received it (and the catalog keeps it, verbatim).
  'json-schema-2020-12-preservation': (tools) => [
    { name: 'json_schema_echo', arguments: { schema: tools.find((tool) => tool.name === 'json_schema_2020_12_tool')?.inputSchema ?? {} } },
  ],
};

const Context = z
  .object({
    name: z.string(),
    toolCalls: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) })).optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  })
  .passthrough();
type Context = z.infer<typeof Context>;

function readContext(scenario: string): Context {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return raw ? Context.parse(JSON.parse(raw)) : { name: scenario };
}

async function main(): Promise<void> {
  const scenario = z.string().min(1).parse(process.env.MCP_CONFORMANCE_SCENARIO);
  const url = z.url().parse(process.argv[2]);
  const context = readContext(scenario);
  const settings = mcpSettings('conformance', { url }, new McpClientSide({ server: 'conformance', roots: [], secrets: () => [], onLogLine: () => {}, ask: operatorStandIn }));
  const oauth = scenario.startsWith('auth/') ? oauthFor(url, context) : undefined;
  const connection = await withSignIn(oauth, () =>
    McpConnection.open(settings, { onLost: () => {}, onToolsChanged: () => {}, stderr: new StderrTail() }, undefined, oauth && connectionAuth(oauth)),
  );
  try {
    const tools = await withSignIn(oauth, () => connection.listTools(settings.timeoutMs));
    for (const { name, arguments: args } of callsFor(scenario, context, tools)) {
      // A scenario may name a tool the server does not list: it is called as a bare one.
      await withSignIn(oauth, () => call(settings, connection, tools.find((tool) => tool.name === name) ?? { name, inputSchema: { type: 'object' } }, args));
    }
  } finally {
    await connection.close();
  }
}

/**
 * Capstan's OAuth client for the scenario's server, its tokens in a throwaway folder; a
 * pre-registered client when the scenario hands one over, and a Client ID Metadata Document URL
 * (used only where the authorization server takes CIMD), as an operator would configure them.
 */
function oauthFor(url: string, context: Context): ServerOAuth {
  const store = new TokenStore(mkdtempSync(join(tmpdir(), 'capstan-conformance-oauth-')));
  return new ServerOAuth('conformance', url, store, {
    clientId: context.client_id,
    clientSecret: context.client_secret,
    clientMetadataUrl: CIMD_URL,
  });
}

/**
 * Runs a step; when it fails for want of a sign-in (no tokens, refused tokens, insufficient
 * scope), signs in as the operator would, the browser stand-in following the redirect, and tries
 * again. Capstan's own retry limit (signIn.ts) ends a server that keeps asking.
 */
async function withSignIn<T>(oauth: ServerOAuth | undefined, step: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      if (!oauth || attempt >= 5 || !wantsSignIn(error)) throw error;
      await signIn(oauth, { open: browserStandIn, timeoutMs: 10_000 });
    }
  }
}

const wantsSignIn = (error: unknown): boolean => {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth += 1) {
    if (cause instanceof SignInRequiredError || cause instanceof InsufficientScopeError || cause instanceof UnauthorizedError) return true;
  }
  return false;
};

/**
 * The person at the console, answering what the server asks during a call: a form accepted with
 * nothing typed (the host fills the schema's defaults, as the console does with what the operator
 * leaves out), a URL or a sampling request accepted as they are.
 */
async function operatorStandIn(request: AskRequest): Promise<AskAnswer> {
  if (request.kind === 'elicitation' && request.mode !== 'url') return { action: 'accept', content: applyElicitationDefaults(request.requestedSchema, {}) };
  return { action: 'accept', reply: 'ok' };
}

/** The person's browser: the suite's authorization server approves at once, so follow its redirect to Capstan's loopback listener. */
async function browserStandIn(authorizationUrl: URL): Promise<void> {
  const approval = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = approval.headers.get('location');
  if (!location) throw new Error(`the authorization server answered ${approval.status} without a redirect`);
  await fetch(new URL(location, authorizationUrl));
}

/** What to call: the context's list, else the scenario's known calls, else every tool listed with no arguments. */
function callsFor(scenario: string, context: Context, tools: Tool[]): ToolCall[] {
  if (context.toolCalls) return context.toolCalls;
  return CALLS_OF[scenario]?.(tools) ?? tools.map((tool) => ({ name: tool.name, arguments: {} }));
}

/**
 * One call as a provider's tool makes it (requestId and traceparent in _meta, deadlines). A call
 * that fails is an outcome, as Capstan records it for the operator (printed here), not the
 * driver's failure: the suite's checks judge what the client sent. Only a failure that wants a
 * sign-in goes up, to withSignIn. (One case: a 2026-07-28 result without `resultType`, which the
 * SDK refuses although the revision says to take it as complete.)
 */
async function call(settings: McpSettings, connection: McpConnection, tool: Tool, args: Record<string, unknown>) {
  const parts = { settings, connection, graceMs: 2_000, progressFor: () => () => {}, onUnreachable: () => {}, secrets: () => [] };
  try {
    await callMcpTool(parts, tool, args, { signal: new AbortController().signal, requestId: `conformance-${randomUUID()}`, mutating: false });
  } catch (error) {
    if (wantsSignIn(error)) throw error;
    console.error(`the call to ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
