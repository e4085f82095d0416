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
import type { Tool } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { callMcpTool } from '../../electron/providers/mcp/calls';
import { McpConnection } from '../../electron/providers/mcp/connection';
import { mcpSettings, type McpSettings } from '../../electron/providers/mcp/settings';
import { StderrTail } from '../../electron/providers/mcp/stderrTail';

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
  const settings = mcpSettings('conformance', { url });
  const connection = await McpConnection.open(settings, { onLost: () => {}, onToolsChanged: () => {}, stderr: new StderrTail() });
  try {
    const tools = await connection.listTools(settings.timeoutMs);
    for (const { name, arguments: args } of callsFor(scenario, context, tools)) {
      await call(settings, connection, name, args);
    }
  } finally {
    await connection.close();
  }
}

/** What to call: the context's list, else the scenario's known calls, else every tool listed with no arguments. */
function callsFor(scenario: string, context: Context, tools: Tool[]): ToolCall[] {
  if (context.toolCalls) return context.toolCalls;
  return CALLS_OF[scenario]?.(tools) ?? tools.map((tool) => ({ name: tool.name, arguments: {} }));
}

/** One call as a provider's tool makes it (requestId and traceparent in _meta, deadlines); a tool's own error is not the driver's failure. */
async function call(settings: McpSettings, connection: McpConnection, tool: string, args: Record<string, unknown>) {
  const parts = { settings, connection, graceMs: 2_000, progressFor: () => () => {}, onUnreachable: () => {} };
  try {
    await callMcpTool(parts, tool, args, { signal: new AbortController().signal, requestId: `conformance-${randomUUID()}`, mutating: false });
  } catch (error) {
    if ((error as { code?: string }).code !== 'TOOL_ERROR') throw error;
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
