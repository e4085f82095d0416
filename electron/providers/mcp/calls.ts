/**
 * One tool call to an MCP server, as the `run` of its tool definition: the runtime has already
 * checked the task, grant, mutation gate and confirmation, and records the outcome.
 *
 * - The call carries the requestId and a W3C `traceparent` in `_meta`: the provider call's
 *   span, so the server's own span is its child (electron/telemetry/trace.ts; with no trace,
 *   its trace id is derived from the requestId, so either finds the other).
 * - Deadlines: the server may go `timeoutMs` without answering; each progress notification
 *   restarts that clock (the SDK's `resetTimeoutOnProgress`), and `toolTimeoutMs` bounds the
 *   whole call. The runtime's own deadline for the call sits beyond both, as a backstop.
 * - Stopping: when the task is cancelled or a deadline passes, the SDK sends
 *   `notifications/cancelled`. MCP has no acknowledgement of a cancellation for the request itself,
 *   so a stopped call that may change state (mutating) ends with its outcome unknown, which arms
 *   the mutation gate. For one that only reads, Capstan probes the server right after it (ping, or
 *   server/discover on 2026-07-28): an answer within the grace period means the server has read
 *   the cancellation, and the call ends cancelled (or failed, for a deadline); no answer, or a
 *   connection lost mid-call, leaves the outcome unknown.
 * - A tool that runs as an MCP task (connection.runsAsTask) is called as one (mcpTasks.ts): its
 *   status is its progress, and a cancellation the server acknowledges ends it cancelled.
 * - Results keep MCP's content blocks and `structuredContent`; `isError` is TOOL_ERROR with the
 *   server's answer; a result over `maxResultBytes` is RESULT_TOO_LARGE.
 * - A result is checked against the tool as the catalog holds it (`tool`, from the listing the
 *   operator sees), never against the SDK's own copy of the last listing, which a server can empty
 *   (a `notifications/tools/list_changed` evicts it) or fill with the later of two tools of one
 *   name: its `structuredContent` against that tool's `outputSchema`, and a task's result, which
 *   the SDK does not check, as a tools/call result first.
 */
import { isCallToolResult, specTypeSchemas, TRACEPARENT_META_KEY, type CallToolResult, type RequestOptions, type Tool } from '@modelcontextprotocol/client';
import { CapstanError } from '../../../shared/errors';
import { OutcomeUnknownError, type ToolRunContext } from '../../catalog/tool';
import { isConnectionLost, isTimeout, type McpConnection } from './connection';
import { asSignInRequired } from './oauth/provider';
import { runToolAsTask, TaskCancelled, TERMINAL_TASK_STATUSES } from './mcpTasks';
import type { McpSettings } from './settings';
import { redact, redactClipped, redactJson } from './secrets';
import { outgoingTraceparent } from '../../telemetry/trace';

/** A running call's progress, as the host publishes it (it adds the requestId and the task). */
export interface McpProgress {
  progress: number;
  total: number | null;
  message: string | null;
  startedAt: string;
  deadlineAt: string;
}

export interface CallParts {
  settings: McpSettings;
  connection: McpConnection;
  /** The runtime's grace period: how long a stopped call may take to show it stopped. */
  graceMs: number;
  /** Called as the call starts (the runtime has just recorded it): where its progress goes. */
  progressFor(requestId: string, capability: string): (progress: McpProgress) => void;
  /** The server could not be reached (an HTTP server that is down): the provider fails and retries. */
  onUnreachable(reason: string): void;
  /** What Capstan holds for the server that must not reach a caller should the server quote it (its entry's secrets, its OAuth tokens). */
  secrets(): readonly string[];
}

/** Network errors that mean the request never reached the server: nothing ran. */
const NEVER_REACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export async function callMcpTool(parts: CallParts, tool: Tool, args: Record<string, unknown>, { signal, requestId, mutating = true }: ToolRunContext): Promise<unknown> {
  const { settings, connection } = parts;
  const capability = `${settings.name}:${tool.name}`;
  const started = Date.now();
  const secrets = parts.secrets();
  const reportAsIs = parts.progressFor(requestId, capability);
  // A progress message goes to the caller as the server words it, secrets masked.
  const report = (progress: McpProgress) => reportAsIs(progress.message === null || secrets.length === 0 ? progress : { ...progress, message: redact(progress.message, secrets) });
  let lastHeard = started;
  const deadline = () => new Date(Math.min(lastHeard + settings.timeoutMs, started + settings.toolTimeoutMs)).toISOString();
  let result: CallToolResult;
  // What the server asks while this runs (an elicitation) is this call's, and is withdrawn when it ends.
  const ended = settings.clientSide?.callStarted(requestId);
  try {
    const meta = { requestId, [TRACEPARENT_META_KEY]: outgoingTraceparent(requestId) };
    if (connection.runsAsTask(tool)) {
      // An MCP task: its status is the running call's progress message (mcpTasks.ts).
      const payload = await runToolAsTask({
        client: connection.client,
        tool: tool.name,
        args,
        meta,
        signal,
        timeoutMs: settings.timeoutMs,
        totalMs: settings.toolTimeoutMs,
        onUpdate: ({ taskId, status, statusMessage }) => {
          lastHeard = Date.now();
          report({
            progress: TERMINAL_TASK_STATUSES.includes(status) ? 1 : 0,
            total: null,
            message: `MCP task ${status.replace('_', ' ')}${statusMessage ? `: ${statusMessage}` : ''} (${taskId})`,
            startedAt: new Date(started).toISOString(),
            deadlineAt: new Date(started + settings.toolTimeoutMs).toISOString(),
          });
        },
      });
      result = checkedTaskResult(payload, tool, connection, capability);
    } else {
      const options: RequestOptions = {
        signal,
        timeout: settings.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: settings.toolTimeoutMs,
        onprogress: ({ progress, total, message }) => {
          lastHeard = Date.now();
          report({ progress, total: total ?? null, message: message ?? null, startedAt: new Date(started).toISOString(), deadlineAt: deadline() });
        },
      };
      const params = { name: tool.name, arguments: args, _meta: meta };
      result =
        connection.client.getProtocolEra() === 'modern'
          ? // The catalog's tool, for its outputSchema (see above) and the request headers it declares, which a 2026-era call mirrors.
            await connection.client.callTool(params, { ...options, toolDefinition: tool })
          : // callTool would look the result's schema up by probing the SDK's registry with `undefined`
            // and formatting the failure, on every call (a thirtieth of a gateway's CPU under agents'
            // calls); named here, with the outputSchema checked as a task's result is.
            checkedResult(await connection.client.request({ method: 'tools/call', params }, specTypeSchemas.CallToolResult, options), tool, connection, capability);
    }
  } catch (error) {
    // A task the server says it cancelled did stop: cancelled, whether or not it could write.
    if (error instanceof TaskCancelled && error.status === 'cancelled') throw error;
    throw await stopped(error, parts, capability, signal, mutating);
  } finally {
    ended?.();
  }
  return answer(result, capability, settings.maxResultBytes, secrets);
}

/** What a call that did not return ends as, once the server has had its chance to show it stopped. */
async function stopped(error: unknown, { connection, settings, graceMs, onUnreachable }: CallParts, capability: string, signal: AbortSignal, mutating: boolean): Promise<unknown> {
  if (isConnectionLost(error)) return new OutcomeUnknownError(`lost its connection to the server mid-call (${(error as Error).message})`);
  // Refused for want of a sign-in (or of scope) before anything ran: MCP_SIGN_IN_REQUIRED.
  const signIn = asSignInRequired(error, settings.name);
  if (signIn) return signIn;
  const network = networkCode(error);
  if (network) {
    onUnreachable(`the server could not be reached (${network})`);
    if (NEVER_REACHED.has(network)) return new CapstanError('PROVIDER_UNAVAILABLE', `${capability}: the server could not be reached (${network}); nothing ran`, { provider: settings.name });
    return new OutcomeUnknownError(`lost its connection to the server mid-call (${network})`);
  }
  const cancelled = signal.aborted;
  if (!cancelled && !isTimeout(error)) return error; // the server answered with a protocol error: the call ended
  // A server that answers a probe has read the cancellation, but may still finish a write it had
  // begun: MCP has no acknowledgement of a cancellation for that very request. So a stopped call
  // that may change state has an unknown outcome, which arms the mutation gate.
  if (mutating) {
    return new OutcomeUnknownError(
      `was stopped (${cancelled ? 'cancelled' : `no answer within ${settings.timeoutMs} ms`}) before its server answered; MCP does not acknowledge a cancellation, so a write it had begun may still happen`,
    );
  }
  try {
    await connection.probe(graceMs);
  } catch {
    return new OutcomeUnknownError(`was stopped, and the server did not answer within the grace period (${graceMs} ms) to show it read the cancellation`);
  }
  if (cancelled) return error; // the runtime reports it as cancelled
  return new CapstanError('TOOL_FAILED', `${capability} had no answer or progress within ${settings.timeoutMs} ms (or ran past ${settings.toolTimeoutMs} ms in all); the server was told to stop`);
}

/** A task's result (which the SDK does not check for `tasks/result`) is a tools/call result first. */
function checkedTaskResult(payload: unknown, tool: Tool, connection: McpConnection, capability: string): CallToolResult {
  const result = { ...(payload as object), content: (payload as { content?: unknown }).content ?? [] };
  if (!isCallToolResult(result)) throw new CapstanError('TOOL_FAILED', `${capability}: the server's task result is not a tools/call result`);
  return checkedResult(result, tool, connection, capability);
}

/** A tools/call result's `structuredContent` matches the tool's `outputSchema`, if it has one, unless it reports an error. */
function checkedResult(result: CallToolResult, tool: Tool, connection: McpConnection, capability: string): CallToolResult {
  if (!tool.outputSchema || result.isError) return result;
  if (result.structuredContent === undefined) throw new CapstanError('TOOL_FAILED', `${capability} has an output schema but its result has no structured content`);
  let check: ReturnType<McpConnection['outputSchemas']['getValidator']>;
  try {
    check = connection.outputSchemas.getValidator(tool.outputSchema);
  } catch (error) {
    throw new CapstanError('TOOL_FAILED', `${capability} has an invalid outputSchema: ${(error as Error).message}`);
  }
  const checked = check(result.structuredContent);
  if (!checked.valid) throw new CapstanError('TOOL_FAILED', `${capability}: structured content does not match the tool's output schema: ${checked.errorMessage}`);
  return result;
}

/**
 * The call's JSON result: MCP's content blocks, and structuredContent when the server sent it,
 * with any of `secrets` it quotes masked (looked for in the JSON already made for its size, so a
 * result without them is not walked).
 */
function answer(result: CallToolResult, capability: string, limit: number, secrets: readonly string[]): unknown {
  const asSent = { content: result.content ?? [], ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}) };
  const json = JSON.stringify(asSent);
  const size = Buffer.byteLength(json);
  if (size > limit) {
    throw new CapstanError('RESULT_TOO_LARGE', `${capability} answered ${size} bytes of JSON, over its server's limit of ${limit} (maxResultBytes)`, { size, limit });
  }
  const shaped = secrets.some((secret) => json.includes(JSON.stringify(secret).slice(1, -1))) ? redactJson(asSent, secrets) : asSent;
  if (result.isError) {
    const first = shaped.content.find((block) => block.type === 'text');
    const said = first && 'text' in first ? `: ${redactClipped(String(first.text), secrets, 200)}` : '';
    throw new CapstanError('TOOL_ERROR', `${capability} reported an error${said}`, { result: shaped });
  }
  return shaped;
}

/** The code of a network failure (fetch wraps it in `cause`), if that is what the error is. */
function networkCode(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
  }
  return undefined;
}
