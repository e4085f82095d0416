/**
 * Capstan's MCP server, as `/mcp` serves it over stateless HTTP (one request at a time, each
 * with its own transport). It answers `tools/list` and `tools/call`, and every call is one
 * `dispatch` of a gateway operation in the client's Capstan session: the one call path, never
 * around it. The low-level `Server` is used because the tool set is computed per request and
 * dispatch already validates every input.
 *
 * Who asks is each request's own (`McpCaller`, carried in its `authInfo`), never the server's:
 * an instance holds nothing of one request into the next, so the HTTP entry may lend an idle one
 * to the next request (serverPool.ts).
 *
 * Errors: a Capstan failure is a tool result with `isError: true`, its text the envelope's
 * `CODE: message` and its `structuredContent` the whole envelope, so the model reads what went
 * wrong and how to recover (re-discover on STALE_CAPABILITY, wait on PROVIDER_UNAVAILABLE). Only
 * what the specification makes a protocol error is one: an unknown tool name (-32602).
 */
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Notification, type ProgressToken } from '@modelcontextprotocol/server';
import type { OperationName } from '../../../shared/api';
import type { CapabilityReference, ToolContract } from '../../../shared/capability';
import { CapstanError } from '../../../shared/errors';
import { isAgent } from '../../../shared/principal';
import type { EventBus } from '../../services/events';
import { dispatch, errorEnvelope, type ApiHandlers, type CallContext, type Reply } from '../../services/api';
import { incomingTraceOf } from '../../telemetry/trace';
import { callerOf, type McpCaller } from './caller';
import type { LoadedTools } from './loadedTools';
import { registerDeclared } from './resources';
import { callProgress } from './progress';
import { CAPSTAN_TOOL_DESCRIPTORS, CAPSTAN_TOOLS, INSTRUCTIONS, SERVER_INFO } from '../../../shared/mcpTools';

export interface McpServerParts {
  handlers: ApiHandlers;
  loaded: LoadedTools;
  /** For the progress of calls (progress.ts). */
  events: EventBus;
}

/** A listed tool whose call fails with one of these is gone from its task: it leaves the list. */
const GONE = new Set(['STALE_CAPABILITY', 'TOOL_NOT_LOADED', 'CAPABILITY_NOT_FOUND']);

/**
 * Whether loaded tools may join `tools/list` (`dynamic`): the 2026-07-28 revision forbids a
 * tool list that varies per connection or as a side effect of other requests, so there they are
 * called through `capability_call` only; a 2025-era client that keeps a session sees them
 * listed, announced with `notifications/tools/list_changed` on the response that changed it.
 */
export const listsLoadedTools = (era: 'legacy' | 'modern', caller: McpCaller): boolean => era === 'legacy' && caller.keepsSession;

/** A server for requests whose callers all list loaded tools, or none does (`listsLoadedTools`). */
export function createCapstanServer(dynamic: boolean, parts: McpServerParts): Server {
  const { handlers, loaded } = parts;
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: dynamic }, resources: {}, prompts: {}, completions: {} }, instructions: INSTRUCTIONS });

  // The MCP servers' resources, templates and prompts the agent's grants let it discover, read
  // and get: each a dispatch of the same operations as HTTP (resources.ts says how they map).
  registerDeclared(server, handlers);

  server.setRequestHandler('tools/list', async (_request, ctx) => ({
    tools: dynamic ? [...CAPSTAN_TOOL_DESCRIPTORS, ...loaded.list(callerOf(ctx).sessionId)] : [...CAPSTAN_TOOL_DESCRIPTORS],
  }));

  server.setRequestHandler('tools/call', (request, ctx) =>
    answerToolCall(request.params, { caller: callerOf(ctx), progressToken: ctx.mcpReq._meta?.progressToken, notify: (notification) => ctx.mcpReq.notify(notification) }, dynamic, parts),
  );

  return server;
}

/** What answering one `tools/call` needs of the exchange it came in, whoever delivers it: the SDK's server, or legacyExchange.ts. */
export interface ToolCallExchange {
  caller: McpCaller;
  /** The client's `_meta.progressToken`: it wants the call's progress. */
  progressToken: ProgressToken | undefined;
  /** Sends a notification about this request (its progress, the tool list that changed) before its answer. */
  notify(notification: Notification): Promise<void>;
}

/** The parameters of a `tools/call`, as MCP defines them (checked by whoever delivers them). */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown> | undefined;
  _meta?: Record<string, unknown> | undefined;
}

/**
 * Answers one `tools/call`: a Capstan tool, or (`dynamic`) a tool `tools_load` listed, each one
 * dispatch in the caller's session. Throws only what MCP makes a protocol error: an unknown tool.
 */
export async function answerToolCall(params: ToolCallParams, exchange: ToolCallExchange, dynamic: boolean, { handlers, loaded, events }: McpServerParts): Promise<CallToolResult> {
  const { caller } = exchange;
  const { sessionId } = caller;
  const { name, arguments: args = {} } = params;
  const capstanTool = CAPSTAN_TOOLS.get(name);
  const loadedReference = capstanTool || !dynamic ? undefined : loaded.reference(sessionId, name);
  if (!capstanTool && !loadedReference) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const operation = capstanTool?.operation ?? 'callTool';
  const progress = operation === 'callTool' ? callProgress(exchange.progressToken, exchange.notify, caller.requestId, events) : undefined;
  // An agent's call that needs confirmation waits for approval, reporting progress meanwhile.
  const confirm = isAgent(caller.principal) ? ({ kind: 'approval', onWaiting: progress?.onWaiting } as const) : undefined;
  // A caller's W3C trace context in `_meta` is continued by the call's trace.
  const trace = incomingTraceOf(params._meta);
  const context: CallContext = { requestId: caller.requestId, requestIdIssued: caller.requestIdIssued, log: caller.log, principal: caller.principal, confirm, signal: caller.signal, trace };
  let listChanged = false;

  let reply: Reply<OperationName>;
  try {
    if (loadedReference) {
      reply = await dispatch(handlers, 'callTool', callByReference(loadedReference, args, caller), context);
      if (!reply.ok && GONE.has(reply.envelope.error.code)) listChanged = loaded.remove(sessionId, name);
    } else {
      const unknown = Object.keys(args).find((key) => !capstanTool!.accepts.has(key));
      if (unknown !== undefined) return failure(refusal(new CapstanError('BAD_REQUEST', `${name} takes no argument "${unknown}"`), context));
      if (operation === 'callTool' && !isObject(args.reference)) return failure(refusal(new CapstanError('ARGUMENT_MISSING', 'reference', { field: 'reference' }), context));
      const input = operation === 'callTool' ? callByReference(args.reference as CapabilityReference, args.arguments ?? {}, caller) : { ...args, sessionId };
      reply = await dispatch(handlers, operation, input, context);
      if (dynamic && reply.ok && operation === 'toolsLoad') listChanged = await remember(reply.value as { taskId: string; reference: CapabilityReference }, caller, handlers, loaded);
    }
  } finally {
    await progress?.stop();
  }
  if (dynamic && reply.ok) listChanged = loaded.observe(sessionId, (reply.value as { taskId: string }).taskId) || listChanged;
  if (listChanged) await exchange.notify({ method: 'notifications/tools/list_changed' });
  return reply.ok ? success(reply.value, operation) : failure(reply.envelope);
}

/** Lists a tool tools_load just admitted, described by its contract (one more read through dispatch). */
async function remember({ taskId, reference }: { taskId: string; reference: CapabilityReference }, caller: McpCaller, handlers: ApiHandlers, loaded: LoadedTools): Promise<boolean> {
  const { sessionId } = caller;
  const inspected = await dispatch(handlers, 'capabilitiesInspect', { sessionId, reference }, { requestId: caller.requestId, log: caller.log, principal: caller.principal });
  return inspected.ok && inspected.value.contract.kind === 'tool' && loaded.add(sessionId, taskId, inspected.value.contract as ToolContract, reference);
}

function callByReference(reference: CapabilityReference, args: unknown, caller: McpCaller) {
  return { tool: reference.id, reference, arguments: args, sessionId: caller.sessionId, requestId: caller.requestId };
}

/**
 * A call's answer keeps an MCP server's own content blocks; any other result, and every
 * discovery answer, is its JSON as text. `structuredContent` is always the whole answer (with a
 * call's requestId and task), an object as MCP wants it.
 */
function success(value: unknown, operation: OperationName): CallToolResult {
  const result = operation === 'callTool' ? (value as { result: unknown }).result : undefined;
  const blocks = isObject(result) && Array.isArray(result.content) ? (result.content as CallToolResult['content']) : undefined;
  return { content: blocks ?? [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

function failure(envelope: { error: { message: string } }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: envelope.error.message }], structuredContent: envelope as Record<string, unknown> };
}

/** The entry's own refusals (before any operation runs) use the same envelope, logged the same way. */
const refusal = (error: CapstanError, context: CallContext) => errorEnvelope(error, context);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
