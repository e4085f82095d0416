/**
 * What Capstan answers when a Harn script asks its host (protocols/harn-host.md, "Bridge requests
 * the host answers"). A script is untrusted, like an agent: it runs as its own principal, every
 * tool call goes through the runtime's one call path under the run's task with a requestId of
 * its own, a tool that needs confirmation waits for the operator in the approvals queue, and so
 * does a `session/request_permission`. Nothing here approves anything. `tool_search/query`,
 * `skill/match`, `skills/list` and `skills/fetch` are answered from the run's task (hostSearch.ts).
 *
 * Errors, as Harn reads them: -32001 is "tool rejected", for every refusal (nothing ran: unknown
 * tool, invalid arguments, not granted, confirmation denied, mutation blocked, stale, task not
 * running); -32000 ("Host error") for a tool that ran and failed; -32602 for params that do not
 * fit; -32601 for `host/call`, `terminal/*` and unknown methods. Each carries Capstan's code,
 * message and requestId in `data`; Harn drops `data`, so the message starts with the code and
 * ends with the requestId, e.g. "NOT_GRANTED: … (requestId harn-…)".
 *
 * Time (protocols/harn-host.md, "Errors and time"): Harn waits a fixed 300 s for `builtin_call`,
 * `host/tools/list`, `tool_search/query`, `skill/match` and `host/capabilities {}` (and, in
 * v0.7.50, for a permission request; newer builds wait without limit); only
 * `host/capabilities { sessionId }`, `host/call` and `terminal/*` honour HARN_HOST_CALL_TIMEOUT_SECS.
 * A permission or human-in-the-loop wait ends at `harn.permissionTimeoutMs` (default 290 s), before Harn's.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CallReview } from '../../shared/approvals';
import { CapstanError, type ErrorCode } from '../../shared/errors';
import type { Principal } from '../../shared/principal';
import type { Catalog } from '../catalog/catalog';
import type { Logger } from '../logger';
import { runAs } from '../runtime/principal';
import type { TaskRuntime } from '../runtime/runtime';
import type { RunningTask } from '../runtime/task';
import type { Reply } from '../services/api';
import type { CallContext } from '../services/calls';
import { fetchSkill, listSkills, matchSkills, searchTools } from './hostSearch';
import { hitlHandler } from './hitl';
import { findHostTool, hostTools } from './hostTools';
import { oversizedField, oversizedReason } from './reviewSize';
import { RpcCode, RpcError, type RpcHandlers } from './rpc';
import { applyNotification, applySessionUpdate, type UpdateLog } from './updates';
import { incomingTraceOf, type IncomingTrace } from '../telemetry/trace';

/** The approvals queue: resolves once the operator approves; throws for every other end. */
export interface HarnApprovals {
  wait(review: CallReview, options?: { signal?: AbortSignal | undefined }): Promise<Record<string, unknown>>;
  /** The recent ends, which carry the operator's note (an ask_user's answer). */
  list?(): { recent: readonly { id: string; note: string | null }[] };
}

export interface BridgeParts {
  catalog: Catalog;
  tasks: TaskRuntime;
  approvals: HarnApprovals;
  /** The gateway's `callTool` operation (services/api.ts `dispatch`): the one call path. */
  callTool(input: { tool: string; arguments: Record<string, unknown> }, context: CallContext): Promise<Reply<'callTool'>>;
  logger: Logger;
}

/** The run a bridge answers for. */
export interface BridgeRun {
  taskId: string;
  script: string;
  principal: Principal;
  /** Harn's ACP session id, once `session/new` has answered. */
  harnSession(): string | undefined;
  /**
   * Every session id this run may be addressed under: the one `session/new` answered and those
   * Harn reported as its sub-agents' (a permission request's `mutation.parent_session_id` naming
   * a known session, a `worker_update`'s session ids).
   */
  sessions: Set<string>;
  log: UpdateLog;
  permissionTimeoutMs: number;
  /** Aborts when the run stops: a wait for the operator ends with it. */
  stopped: AbortSignal;
  /** The run's span (runTrace.ts), parent of the script's calls unless Harn names its own in `_meta`. */
  trace?: IncomingTrace | undefined;
  /** Sends a request to Harn (`harn.hitl.respond`); rejects on an error answer or timeout. */
  call(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
}

const SessionParams = z.looseObject({ sessionId: z.string().optional() });
const BuiltinCallParams = z.looseObject({ name: z.string().min(1).max(300), args: z.array(z.unknown()).max(1).default([]), sessionId: z.string().optional() });
/**
 * `session/request_permission` in both shapes. Newer harn-serve: `toolCall` is an ACP
 * `tool_call_update` (`title`, `kind`, `rawInput`, `locations`, `_meta.harn { toolName,
 * approvalRequest, policyDecision }`) with `options`. v0.7.50 (crates/harn-vm/src/llm/agent/
 * tool_dispatch.rs): `{ sessionId, approvalRequest, toolCall: { toolCallId, toolName, rawInput },
 * mutation, declaredPaths, declaredPathEntries }` and no options.
 */
const PermissionParams = z.looseObject({
  sessionId: z.string(),
  toolCall: z.looseObject({
    toolCallId: z.string().min(1).max(300),
    title: z.string().max(1000).optional(),
    toolName: z.string().max(300).optional(),
    kind: z.string().max(100).optional(),
    rawInput: z.unknown().optional(),
    locations: z.array(z.looseObject({ path: z.string().max(4096) })).max(100).optional(),
    _meta: z.unknown().optional(),
  }),
  options: z.array(z.looseObject({ optionId: z.string().min(1).max(300), name: z.string().optional(), kind: z.string() })).max(20).optional(),
  approvalRequest: z.unknown().optional(),
  mutation: z.unknown().optional(),
  declaredPaths: z.array(z.string().max(4096)).max(100).optional(),
});
/** crates/harn-vm/src/llm/agent/tool_search_client.rs run_strategy (both versions). */
const ToolSearchParams = z.looseObject({ strategy: z.string().max(100).optional(), query: z.string().max(10_000), candidates: z.array(z.string().max(300)).max(10_000).default([]) });
/** crates/harn-vm/src/llm/agent/skill_match.rs score_via_bridge (both versions). */
const SkillMatchParams = z.looseObject({
  strategy: z.string().max(100).optional(),
  prompt: z.string().max(100_000),
  working_files: z.array(z.string().max(4096)).max(10_000).default([]),
  candidates: z
    .array(z.looseObject({ name: z.string().max(300), description: z.string().max(10_000).default(''), when_to_use: z.string().max(10_000).default(''), paths: z.array(z.string().max(4096)).max(1_000).default([]) }))
    .max(10_000)
    .default([]),
});
/** crates/harn-vm/src/bridge.rs fetch_host_skill. */
const SkillFetchParams = z.looseObject({ id: z.string().min(1).max(300) });
const UpdateParams = z.looseObject({ sessionId: z.string(), update: z.looseObject({ sessionUpdate: z.string() }) });

/** Codes of a call that ran and did not end well: the script sees a host error, not a rejection. */
const RAN_AND_FAILED: ReadonlySet<ErrorCode> = new Set(['TOOL_FAILED', 'TOOL_ERROR', 'RESULT_TOO_LARGE', 'CALL_CANCELLED', 'OUTCOME_UNKNOWN']);

/** ACP tool kinds that only read; any other kind (or none) may change something. */
const READ_KINDS = ['read', 'search', 'think', 'fetch'];

export function bridgeHandlers(parts: BridgeParts, run: BridgeRun): Omit<RpcHandlers, 'problem'> {
  const { catalog, tasks, approvals } = parts;
  const task = (): RunningTask => tasks.get(run.taskId).running();
  const asScript = <T>(work: () => T): T => runAs(run.principal, work);

  function parse<T>(schema: z.ZodType<T>, method: string, params: unknown): T {
    const parsed = schema.safeParse(params);
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      throw new RpcError(RpcCode.INVALID_PARAMS, `Invalid params for ${method}: ${where}${issue?.message ?? 'invalid'}`);
    }
    const sessionId = (parsed.data as { sessionId?: unknown }).sessionId;
    if (typeof sessionId === 'string' && method === 'session/request_permission') learnSubAgent(sessionId, (parsed.data as { mutation?: unknown }).mutation);
    if (sessionId !== undefined && !run.sessions.has(sessionId as string)) {
      throw new RpcError(RpcCode.INVALID_PARAMS, `Invalid params for ${method}: sessionId is not this run's session`);
    }
    return parsed.data;
  }

  /** A sub-agent's session: the mutation record Harn sends names its parent (MutationSessionRecord). */
  function learnSubAgent(sessionId: string, mutation: unknown): void {
    const record = fieldsOf(mutation);
    const parent = record.parent_session_id;
    if (typeof parent !== 'string' || !run.sessions.has(parent)) return;
    for (const id of [sessionId, record.session_id]) if (typeof id === 'string' && id.length <= 300 && run.sessions.size < 1_000) run.sessions.add(id);
  }

  /**
   * A script's tool call: one dispatch of `callTool` as the script's principal, scoped to the
   * run's task and to the names `host/tools/list` gave it. The operator decides in Approvals.
   */
  async function builtinCall(params: Record<string, unknown>): Promise<unknown> {
    const { name, args } = parse(BuiltinCallParams, 'builtin_call', params);
    const requestId = `harn-${randomUUID()}`;
    const payload = args[0] ?? {};
    const context: CallContext = {
      requestId,
      // Made here, for this call alone: no caller can have used it.
      requestIdIssued: true,
      log: parts.logger.child({ requestId, transport: 'harn', taskId: run.taskId }),
      principal: run.principal,
      // Withdrawn when the run stops (its deadline, its end) as well as when its task does.
      confirm: { kind: 'approval', signal: run.stopped },
      scope: { taskId: run.taskId, find: (task, toolName) => findHostTool(catalog, task, toolName), details: { harnScript: run.script } },
      trace: incomingTraceOf(fieldsOf(params._meta)) ?? run.trace,
    };
    const reply =
      typeof payload !== 'object' || payload === null || Array.isArray(payload)
        ? undefined
        : await parts.callTool({ tool: name, arguments: payload as Record<string, unknown> }, context);
    if (reply?.ok) {
      run.log.add('host', `${name}: ok`, { status: 'ok', requestId });
      return reply.value.result;
    }
    const problem = reply?.error ?? new CapstanError('ARGUMENT_INVALID', "the payload must be a JSON object of the tool's arguments", { field: '(payload)' });
    // A tool that ran and failed is a host error; whatever stopped it before it acted (the policy
    // path, or the tool turning down its arguments or destination) is a rejection.
    const failed = (problem.durationMs !== undefined && RAN_AND_FAILED.has(problem.code)) || problem.code === 'INTERNAL_ERROR';
    run.log.add('host', `${name}: ${failed ? 'failed' : 'refused'}, ${problem.message}`, { status: failed ? 'failed' : 'refused', requestId });
    throw rpcError(problem, failed ? RpcCode.HOST_ERROR : RpcCode.TOOL_REJECTED, requestId, run.taskId);
  }

  /** Work on the run's task; a task that is not running (or any Capstan refusal) is -32001. */
  function asTask<T>(method: string, work: (running: RunningTask) => T): T {
    try {
      return work(task());
    } catch (error) {
      const problem = error instanceof CapstanError ? error : new CapstanError('INTERNAL_ERROR', `could not answer ${method}`);
      run.log.add('host', `${method}: refused, ${problem.message}`, { status: 'refused' });
      throw rpcError(problem, RpcCode.TOOL_REJECTED, undefined, run.taskId);
    }
  }

  async function requestPermission(params: Record<string, unknown>): Promise<unknown> {
    const { sessionId, toolCall, options, mutation, declaredPaths } = parse(PermissionParams, 'session/request_permission', params);
    const harnMeta = fieldsOf(fieldsOf(toolCall._meta).harn);
    const name = toolCall.toolName ?? (typeof harnMeta.toolName === 'string' ? harnMeta.toolName.slice(0, 300) : undefined) ?? toolCall.title ?? toolCall.toolCallId;
    // v0.7.50 sends no options and reads only `outcome.outcome` ("selected" or "allow" grants,
    // whatever optionId) or `granted`, and `reason` when it is refused: it gets its own answers.
    const legacy = options === undefined;
    const allow = options?.find((option) => option.kind === 'allow_once') ?? options?.find((option) => option.kind.startsWith('allow'));
    const reject = options?.find((option) => option.kind === 'reject_once') ?? options?.find((option) => option.kind.startsWith('reject'));
    const refused = (why: string) => {
      run.log.add('permission', `${name}: ${reject ? 'rejected' : 'cancelled'}, ${why}`, { status: 'refused' });
      if (legacy) return { outcome: { outcome: 'cancelled' }, granted: false, reason: `Capstan: ${why}` };
      return reject ? { outcome: { outcome: 'selected', optionId: reject.optionId } } : { outcome: { outcome: 'cancelled' } };
    };
    if (!legacy && !allow) return refused('Harn offered no option to allow it');
    const oversized = oversizedField({ 'tool input': toolCall.rawInput });
    if (oversized) return refused(oversizedReason(oversized));
    const requestId = `harn-permission-${randomUUID()}`;
    const timeout = AbortSignal.timeout(run.permissionTimeoutMs);
    const paths = declaredPaths ?? (toolCall.locations ?? []).map((location) => location.path);
    const policy = policyText(mutation, harnMeta.policyDecision);
    const subAgent = sessionId !== run.harnSession() ? ` for sub-agent session ${sessionId}` : '';
    run.log.add('permission', `${name}: Harn asks for permission${subAgent}; waiting for the operator in Approvals`, { status: 'waiting', requestId });
    try {
      const running = task();
      const input = toolCall.rawInput;
      await asScript(() =>
        approvals.wait(
          {
            requestId,
            principal: run.principal,
            taskId: running.id,
            sessionId: running.sessionId,
            tool: {
              id: `harn.permission:${name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128) || 'tool'}`,
              name,
              title: toolCall.title ?? name,
              description: [
                `The Harn script ${run.script} asks to run ${name}${toolCall.kind ? ` (${toolCall.kind})` : ''}, tool call ${toolCall.toolCallId}${subAgent}.`,
                policy ? `Harn's policy decision: ${policy}.` : "Harn's policy requires the host's approval.",
                paths.length > 0 ? `Declared paths: ${paths.slice(0, 20).join(', ')}${paths.length > 20 ? `, and ${paths.length - 20} more` : ''}.` : 'No declared paths.',
              ].join(' '),
              riskLevel: 'high',
              mutating: !READ_KINDS.includes(toolCall.kind ?? ''),
            },
            arguments: typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : input === undefined ? {} : { input },
          },
          { signal: AbortSignal.any([run.stopped, timeout]) },
        ),
      );
      run.log.add('permission', `${name}: allowed by the operator`, { status: 'ok', requestId });
      return legacy ? { outcome: { outcome: 'selected' }, granted: true } : { outcome: { outcome: 'selected', optionId: allow!.optionId } };
    } catch (error) {
      // Fail closed: denied, expired, timed out, withdrawn or anything else is not an allow.
      if (error instanceof CapstanError && error.code === 'CONFIRMATION_DENIED') return refused('denied by the operator');
      const why = timeout.aborted ? `no decision within ${Math.round(run.permissionTimeoutMs / 1000)} s` : run.stopped.aborted ? 'the run stopped' : error instanceof CapstanError ? error.message : 'it could not be asked';
      run.log.add('permission', `${name}: cancelled (fails closed), ${why}`, { status: 'refused' });
      return legacy ? { outcome: { outcome: 'cancelled' }, granted: false, reason: `Capstan: ${why}` } : { outcome: { outcome: 'cancelled' } };
    }
  }

  const hitl = hitlHandler(approvals, task, run);

  return {
    async request(method, params) {
      switch (method) {
        case 'host/capabilities':
          parse(SessionParams, method, params);
          // No generic host operations (host/call) yet, so nothing to advertise.
          return {};
        case 'host/tools/list': {
          parse(SessionParams, method, params);
          try {
            const tools = hostTools(catalog, task());
            run.log.add('host', `host/tools/list: ${tools.length} tool${tools.length === 1 ? '' : 's'}`, { status: 'ok' });
            return { tools };
          } catch (error) {
            throw rpcError(error instanceof CapstanError ? error : new CapstanError('INTERNAL_ERROR', 'could not list tools'), RpcCode.TOOL_REJECTED, undefined, run.taskId);
          }
        }
        case 'builtin_call':
          return builtinCall(params);
        case 'session/request_permission':
          return requestPermission(params);
        case 'tool_search/query': {
          const { query, candidates, strategy } = parse(ToolSearchParams, method, params);
          const answer = asTask(method, (running) => searchTools(catalog, running, query, candidates));
          run.log.add('host', `tool_search/query${strategy ? ` (${strategy.slice(0, 40)})` : ''} "${query.slice(0, 80)}": ${answer.tool_names.length ? answer.tool_names.slice(0, 10).join(', ') : 'no match'}`, { status: 'ok' });
          return answer;
        }
        case 'skill/match': {
          const { prompt, candidates } = parse(SkillMatchParams, method, params);
          const answer = matchSkills(prompt, candidates);
          run.log.add('host', `skill/match over ${candidates.length} candidate${candidates.length === 1 ? '' : 's'}: ${answer.matches.length ? answer.matches.slice(0, 10).map((match) => match.name).join(', ') : 'no match'}`, { status: 'ok' });
          return answer;
        }
        case 'skills/list': {
          parse(SessionParams, method, params);
          const answer = asTask(method, (running) => listSkills(catalog, running));
          run.log.add('host', `skills/list: ${answer.skills.length} skill${answer.skills.length === 1 ? '' : 's'}`, { status: 'ok' });
          return answer;
        }
        case 'skills/fetch': {
          const { id } = parse(SkillFetchParams, method, params);
          try {
            const { bodyHash, ...skill } = await fetchSkill(catalog, task(), id);
            run.log.add('host', `skills/fetch ${skill.id}: ok, body verified (sha256 ${bodyHash.slice(0, 12)}…)`, { status: 'ok' });
            return skill;
          } catch (error) {
            const problem = error instanceof CapstanError ? error : new CapstanError('INTERNAL_ERROR', 'could not fetch the skill');
            run.log.add('host', `skills/fetch ${id.slice(0, 200)}: refused, ${problem.message}`, { status: 'refused' });
            throw rpcError(problem, RpcCode.TOOL_REJECTED, undefined, run.taskId);
          }
        }
        case 'host/call':
          // Nothing is advertised in host/capabilities, so no operation is offered (and never
          // project.mcp_config: Harn would connect to MCP servers itself, outside Capstan).
          run.log.add('host', 'host/call: refused, Capstan offers no generic host operations', { status: 'refused' });
          throw new RpcError(RpcCode.METHOD_NOT_FOUND, 'HOST_CALL_UNSUPPORTED: Capstan offers no generic host operations (host/call)', { code: 'HOST_CALL_UNSUPPORTED' });
        case 'terminal/create':
        case 'terminal/output':
        case 'terminal/wait_for_exit':
        case 'terminal/release':
        case 'terminal/kill':
          // An error, never a result: an answer without a terminalId makes Harn run the command
          // itself (acp/builtins.rs acp_terminal_exec falls back to a local shell), outside Capstan.
          run.log.add('host', `${method}: refused, Capstan runs no commands for a script`, { status: 'refused' });
          throw new RpcError(RpcCode.METHOD_NOT_FOUND, `TERMINAL_UNSUPPORTED: Capstan runs no commands for a Harn script (${method}); call a tool instead`, { code: 'TERMINAL_UNSUPPORTED' });
        default:
          throw new RpcError(RpcCode.METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 200)}`);
      }
    },
    notification(method, params) {
      // Both versions announce ask_user / request_approval this way (crates/harn-vm/src/stdlib/hitl.rs maybe_notify_host).
      if (method === 'harn.hitl.requested') return hitl(params);
      if (method === '_harn/agentEvent') {
        // Newer builds name the session; one the run does not know is ignored, as session/update's.
        if (typeof params.sessionId === 'string' && run.sessions.has(params.sessionId)) applyNotification(run.log, method, params);
        else run.log.add('protocol', 'a _harn/agentEvent for another session was ignored');
        return;
      }
      // v0.7.50's output / progress / log / agent/idle carry no session: one child runs one script.
      if (method !== 'session/update') return void applyNotification(run.log, method, params);
      const parsed = UpdateParams.safeParse(params);
      if (parsed.success && run.sessions.has(parsed.data.sessionId)) {
        learnWorkers(parsed.data.update);
        applySessionUpdate(run.log, parsed.data.update);
      } else run.log.add('protocol', parsed.success ? 'a session/update for another session was ignored' : 'a malformed session/update was ignored');
    },
  };

  /** A `worker_update` on a known session names its worker's session (metadata, at the top level in v0.7.50, under `_meta.harn` newer). */
  function learnWorkers(update: Record<string, unknown>): void {
    if (update.sessionUpdate !== 'worker_update') return;
    for (const source of [update, fieldsOf(fieldsOf(update._meta).harn)]) {
      const metadata = fieldsOf(source.metadata);
      for (const id of [metadata.session_id, metadata.child_session_id, metadata.sessionId]) {
        if (typeof id === 'string' && id !== '' && id.length <= 300 && run.sessions.size < 1_000) run.sessions.add(id);
      }
    }
  }
}

const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** Harn's policy decision, as the operator reads it: newer `_meta.harn.policyDecision`, v0.7.50's `mutation` record. */
function policyText(mutation: unknown, decision: unknown): string {
  const parts: string[] = [];
  if (typeof decision === 'string') parts.push(decision.slice(0, 200));
  else if (decision !== undefined && decision !== null) parts.push(JSON.stringify(decision).slice(0, 300));
  const record = fieldsOf(mutation);
  if (typeof record.mutation_scope === 'string') parts.push(`mutation scope ${record.mutation_scope.slice(0, 100)}`);
  if (typeof record.execution_kind === 'string') parts.push(`execution ${record.execution_kind.slice(0, 100)}`);
  if (typeof record.worker_id === 'string') parts.push(`worker ${record.worker_id.slice(0, 100)}`);
  if (record.approval_policy !== undefined && record.approval_policy !== null) parts.push(`approval policy ${JSON.stringify(record.approval_policy).slice(0, 300)}`);
  return parts.join('; ');
}

/**
 * Harn reads an error's `code` and `message` only (it drops `data`), so the requestId a script
 * may quote to find its call in the ledger is in the message too; `data` keeps it for clients that read it.
 */
function rpcError(error: CapstanError, code: number, requestId: string | undefined, taskId: string): RpcError {
  return new RpcError(code, requestId ? `${error.message} (requestId ${requestId})` : error.message, { ...error.details, code: error.code, ...(requestId ? { requestId } : {}), taskId });
}
