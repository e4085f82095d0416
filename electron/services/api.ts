/**
 * The gateway's side of the API contract: one handler per operation, and the dispatch that
 * every transport (HTTP routes, IPC channels) goes through, validating input on the way in.
 */
import type { z } from 'zod';
import {
  operations,
  REQUEST_ID_PATTERN,
  type ErrorEnvelope,
  type OperationName,
  type OperationOutput,
  type Operations,
} from '../../shared/api';
import type { ToolContract } from '../../shared/capability';
import type { HarnRunRequest, HarnRunsView, HarnRunView } from '../../shared/harn';
import type { Telemetry } from '../telemetry/telemetry';
import type { IncomingTrace } from '../telemetry/trace';
import { traceOperation } from './tracing';
import type { TaskView } from '../../shared/tasks';
import { envelopeOf } from '../../shared/envelope';
import { CapstanError } from '../../shared/errors';
import { agentPrincipal, isAgent } from '../../shared/principal';
import type { Catalog } from '../catalog/catalog';
import { SKILLS_PROVIDER } from '../providers/skills';
import { readExcerpt } from '../providers/skills/excerpt';
import { estimateTokensYielding } from '../runtime/admission';
import { timeOrderedUuid } from '../store/timeOrderedId';
import type { OAuthRegistry } from '../providers/mcp/oauth/registry';
import type { McpServers } from '../providers/mcp/servers';
import type { Ledger } from '../runtime/ledger';
import { runAs } from '../runtime/principal';
import type { TaskRuntime } from '../runtime/runtime';
import type { AgentTokens } from '../store/agentTokens';
import type { ExecutionHistory } from '../store/executionHistory';
import type { Database } from '../store/database';
import { saveProviderSwitch, saveRevocation } from '../store/catalogPolicy';
import { readConsoleSettings, writeConsoleSettings } from '../store/settings';
import type { Approvals } from './approvals';
import type { ServerAsks } from './serverAsks';
import type { CallContext, CallService } from './calls';
import { strategyFor, type Confirmation } from './confirmation';
import { searchCatalog, type Discovery } from './discovery';
import type { Pins } from './pins';
import type { ResourceService } from './resources';
import { assertOwnsTask, authorize, defaultSession, ownTasks, withinOwnSessions } from './principal';
import { assertWellFormed } from './wellFormed';

export type { CallContext };

/** Harn runs as the API reaches them (harn/runs.ts), a way in of their own above this layer. */
export interface HarnRunner {
  start(input: HarnRunRequest, incoming?: IncomingTrace): Promise<TaskView>;
  list(): HarnRunsView;
  get(taskId: string): HarnRunView;
}

/** Why an agent's pending approvals were withdrawn when its token was revoked. */
export const REVOKED = "the agent's token was revoked";

export type ApiHandlers = {
  [K in OperationName]: (input: z.output<Operations[K]['input']>, context: CallContext) => Promise<OperationOutput<K>>;
};

export function createApiHandlers(parts: {
  db: Database;
  catalog: Catalog;
  calls: CallService;
  confirmation: Confirmation;
  approvals: Approvals;
  asks: ServerAsks;
  discovery: Discovery;
  tasks: TaskRuntime;
  ledger: Ledger;
  mcp: McpServers;
  harn: HarnRunner;
  pins: Pins;
  agents: AgentTokens;
  history: ExecutionHistory;
  resources: ResourceService;
  /** URL servers' OAuth sign-in and state. */
  oauth: OAuthRegistry;
  telemetry: Telemetry;
}): ApiHandlers {
  const { catalog, db, discovery, tasks, ledger, mcp, approvals, asks, agents, harn, history, calls, confirmation, pins, resources } = parts;
  const discovered = <T>(name: string, { requestId, principal, trace }: CallContext, run: () => Promise<T>) =>
    traceOperation(parts.telemetry, name, { requestId, principal, incoming: trace }, run);
  const view = () => ({
    catalogGeneration: catalog.generation,
    loading: catalog.loading(),
    capabilities: catalog.entries(),
    providers: catalog.providers(),
    diagnostics: catalog.diagnostics(),
  });
  return answerWhenDurable(ledger, {
    listTools: async () => ({
      generation: catalog.generation,
      loading: catalog.loading(),
      tools: catalog
        .entries()
        .flatMap(({ contract, revoked }) => (contract.kind === 'tool' && !revoked ? [toolDescriptor(contract)] : [])),
    }),
    // An entry bound to one task (a Harn run) calls in that task, which its scope names; every
    // other caller stays in its own sessions.
    callTool: (input, context) => calls.call(context.scope ? { ...input, taskId: context.scope.taskId, sessionId: undefined } : withinOwnSessions(input, context.principal, tasks), context),
    listExecutions: async ({ after }) => history.list(after),
    clearExecutions: async () => history.clear(),
    saveHistorySettings: async (settings) => history.configure(settings),
    getSettings: async () => readConsoleSettings(db),
    saveSettings: async (input) => writeConsoleSettings(db, input),

    getCatalog: async () => view(),
    searchCatalog: async (input) => searchCatalog(catalog.viewSnapshot(), input),
    getDiagnostics: async () => ({ diagnostics: catalog.diagnostics() }),
    getDiagnosticExcerpt: async ({ path, line }) => {
      // Only a file a current skills diagnostic names at this line: the route reads no other file.
      if (!catalog.diagnostics().some((found) => found.provider === SKILLS_PROVIDER && found.path === path && found.line === line)) {
        throw new CapstanError('ARGUMENT_INVALID', 'no current skills diagnostic names this file and line', { field: 'path' });
      }
      const excerpt = await readExcerpt(path, line).catch((error: unknown) => {
        throw new CapstanError('ARGUMENT_INVALID', `${path} cannot be read again: ${(error as Error).message}`, { field: 'path' });
      });
      if (!excerpt) throw new CapstanError('ARGUMENT_INVALID', `${path} is gone`, { field: 'path' });
      return { path, line, ...excerpt };
    },
    getSkillText: async ({ id }) => {
      const live = catalog.live(id);
      if (!live || live.contract.kind !== 'skill' || !live.skill) throw new CapstanError('CAPABILITY_NOT_FOUND', `no skill "${id}"`);
      // The same read and the same count as activation (discovery.ts), so the figure is what a task would pay.
      const { body, bodyHash } = await live.skill.readBody();
      if (bodyHash !== live.contract.bodyHash) {
        throw new CapstanError('STALE_CAPABILITY', `${id}: its SKILL.md changed since it was loaded; the catalog reloads it`, { part: 'contractHash' });
      }
      return { id, path: live.contract.path, body, bodyHash, tokens: await estimateTokensYielding(body) };
    },
    setProviderEnabled: async ({ provider, enabled }) => {
      // An MCP server's switch is its config.json entry's `enabled`: written first, so both agree.
      if (mcp.has(provider)) await mcp.recordEnabled(provider, enabled);
      catalog.setEnabled(provider, enabled);
      saveProviderSwitch(db, provider, enabled);
      return view();
    },
    setCapabilityRevoked: async ({ id, revoked }) => {
      if (!catalog.live(id)) throw new CapstanError('CAPABILITY_NOT_FOUND', `no capability "${id}"`);
      catalog.setRevoked(id, revoked);
      saveRevocation(db, id, revoked);
      return view();
    },

    listMcpServers: async () => mcp.list(),
    saveMcpServer: ({ name, entry }) => mcp.save(name, entry),
    removeMcpServer: ({ name }) => mcp.remove(name),
    setServerPolicy: ({ name, ...policy }) => mcp.setPolicy(name, policy),
    reconnectProvider: async ({ name }) => mcp.reconnect(name),
    getServerLog: async ({ name, ...query }) => mcp.log(name, query),
    setServerLogLevel: ({ name, level }) => mcp.setLogLevel(name, level),
    getProtocolLog: async ({ name, ...query }) => mcp.protocol(name, query),
    getServerAuth: async ({ name }) => parts.oauth.statusOf(name),
    signInServer: ({ name }) => parts.oauth.signInTo(name),
    signOutServer: ({ name }) => parts.oauth.signOutOf(name),

    listTasks: async (query, { principal }) => ownTasks(tasks.view(query), principal),
    taskAction: async (action, { principal }) => {
      const input = withinOwnSessions(action, principal, tasks);
      const sessionId = input.sessionId ?? defaultSession(principal);
      switch (input.action) {
        case 'start':
          return tasks.start(sessionId, input.title, input.input).view();
        case 'steer':
          return tasks.steer(sessionId, input.taskId, input.text).view();
        case 'follow_up':
          return tasks.followUp(sessionId, input.title, input.input, input.requiresSuccess).view();
        case 'supersede':
          return (await tasks.supersede(sessionId, input.title, input.input)).view();
        case 'finish':
          return (await tasks.finish(sessionId, input.taskId, input.message, input.outcome)).view();
      }
    },
    cancelTask: async ({ id }, { principal }) => {
      assertOwnsTask(principal, id, tasks);
      return (await tasks.cancel(id)).view();
    },
    // The operator may cancel any call; an agent only a call it made itself. The runtime finds
    // calls as the caller sees them (callPath.ts `running`): for an agent, the operator's or
    // another agent's call, running or ended, is CALL_NOT_FOUND, as a requestId never used is.
    cancelCall: async ({ requestId }, { principal }) => tasks.cancelCall(requestId, isAgent(principal) ? 'call cancelled by the agent that made it' : undefined),
    resumeTask: async ({ id }) => tasks.resume(id).view(),
    acknowledgeOutcome: async ({ id, requestId }) => tasks.acknowledge(id, requestId),
    reduceGrant: async ({ id, grant }) => tasks.reduceGrant(id, grant).view(),
    getLedger: async (query) => ({ entries: ledger.query(query), lastSeq: ledger.lastSeq }),
    listApprovals: async () => approvals.list(),
    listAsks: async () => asks.list(),
    answerAsk: async (input) => asks.answer(input),
    decideApproval: (input, context) => confirmation.decide(input, context.confirm ?? strategyFor(context.principal)),
    verifyLedger: async () => ledger.verify(),
    checkEvidence: async ({ requestId, result }, { principal }) => {
      // Only the caller's own calls: a requestId another principal used too (before REQUEST_ID_IN_USE) is not compared with theirs.
      const finished = ledger.query({ requestId, kind: 'call_finished', principal, limit: 1000 }).findLast((entry) => typeof entry.details.resultDigest === 'string');
      if (!finished) return { requestId, seq: null, matches: false, reason: `no successful call by ${principal} with this requestId is in the ledger` };
      const matches = finished.details.resultDigest === ledger.digest(result);
      return {
        requestId,
        seq: finished.seq,
        matches,
        reason: matches ? `matches the digest in ledger entry ${finished.seq}` : `differs from the digest in ledger entry ${finished.seq}`,
      };
    },

    // Each a span named by its wire name (tracing.ts), in the caller's trace when it sent one.
    capabilitiesList: (input, context) => discovered('capabilities_list', context, async () => discovery.capabilitiesList(withinOwnSessions(input, context.principal, tasks))),
    capabilitiesSearch: (input, context) => discovered('capabilities_search', context, async () => discovery.capabilitiesSearch(withinOwnSessions(input, context.principal, tasks))),
    capabilitiesInspect: (input, context) => discovered('capabilities_inspect', context, async () => discovery.capabilitiesInspect(withinOwnSessions(input, context.principal, tasks))),
    toolsLoad: (input, context) => discovered('tools_load', context, async () => discovery.toolsLoad(withinOwnSessions(input, context.principal, tasks))),
    skillsActivate: (input, context) => discovered('skills_activate', context, () => discovery.skillsActivate(withinOwnSessions(input, context.principal, tasks))),

    startHarnRun: (input, context) => harn.start(input, context.trace),
    listHarnRuns: async () => harn.list(),
    getHarnRun: async ({ taskId }) => harn.get(taskId),

    listPins: async () => pins.list(),
    getPinDiff: async ({ id }) => pins.diff(id),
    acceptPin: ({ id, hash }) => pins.accept(id, hash),

    // Resources and prompts: each caller in its own sessions, as for a tool call (services/resources.ts).
    listResources: async (input, { principal }) => resources.list(withinOwnSessions(input, principal, tasks)),
    readResource: (input, context) => resources.read(withinOwnSessions(input, context.principal, tasks), context),
    listPrompts: async (input, { principal }) => resources.prompts(withinOwnSessions(input, principal, tasks)),
    getPrompt: (input, context) => resources.get(withinOwnSessions(input, context.principal, tasks), context),
    completeArgument: (input, context) => resources.complete(withinOwnSessions(input, context.principal, tasks), context),
    setResourceSubscribed: (input) => resources.setSubscribed(input),

    listAgents: async () => ({ agents: agents.list() }),
    createAgent: async ({ name }) => agents.create(name),
    revokeAgent: async ({ name }) => {
      agents.revoke(name);
      // Its calls waiting for approval go with its token: approving one would run it for an agent that no longer may.
      approvals.withdrawAll(agentPrincipal(name), REVOKED);
      return { agents: agents.list() };
    },
  });
}

/**
 * Every answer, success or failure, waits until what the operation appended to the ledger is
 * committed: a task, steer or call a client heard about survives the process being killed.
 * A read waits too: it may have seen writes of the open batch (they share the connection), which
 * its wait commits.
 */
function answerWhenDurable(ledger: Ledger, handlers: ApiHandlers): ApiHandlers {
  const wrapped = Object.entries(handlers).map(([name, handler]) => [
    name,
    async (input: never, context: CallContext) => {
      try {
        return await (handler as (input: never, context: CallContext) => Promise<unknown>)(input, context);
      } finally {
        await ledger.durable();
      }
    },
  ]);
  return Object.fromEntries(wrapped) as ApiHandlers;
}

const toolDescriptor = ({ id, name, title, description, riskLevel, needConfirm, mutating, inputSchema, returnExample, provider, tags, runnable, notRunnableReason }: ToolContract) => ({
  id,
  name,
  title,
  description,
  riskLevel,
  needConfirm,
  mutating,
  inputSchema,
  returnExample,
  provider,
  tags,
  ...(runnable === false ? { runnable, notRunnableReason } : {}),
});

/** What one operation answers, over any transport: its output, or the documented error envelope with its HTTP status. */
export type Reply<K extends OperationName> =
  | { ok: true; status: 200; value: OperationOutput<K> }
  /** `error` stays in the process: an adapter may read more of it than the envelope carries (a call that ran has `durationMs`). */
  | { ok: false; status: number; envelope: ErrorEnvelope; error: CapstanError };

/**
 * The one place operations are run and their failures become envelopes: refuses what the
 * caller's principal may not run (principal.ts, before reading the input), validates a
 * transport's raw input against the contract, runs the handler as that principal, and turns
 * whatever it throws into the README's error envelope. HTTP and IPC only carry the reply.
 */
export async function dispatch<K extends OperationName>(handlers: ApiHandlers, operation: K, rawInput: unknown, context: CallContext): Promise<Reply<K>> {
  try {
    authorize(operation, context.principal, rawInput);
    assertWellFormed(rawInput);
    const parsed = operations[operation].input.safeParse(rawInput);
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      throw new CapstanError('BAD_REQUEST', `${where}${issue?.message ?? 'invalid input'}`);
    }
    const handler = handlers[operation] as (input: unknown, context: CallContext) => Promise<OperationOutput<K>>;
    // Everything the handler starts, timers and promise chains included, runs for this principal: its ledger entries name it.
    return { ok: true, status: 200, value: await runAs(context.principal, () => handler(parsed.data, context)) };
  } catch (error) {
    const problem = asCapstanError(error);
    return { ok: false, status: problem.status, envelope: errorEnvelope(problem, context), error: problem };
  }
}

/** Anything thrown that is not a CapstanError is a gateway fault: logged with its stack, shown as a code. */
export function asCapstanError(error: unknown): CapstanError {
  return error instanceof CapstanError ? error : new CapstanError('INTERNAL_ERROR', 'the gateway could not complete this request', {}, { cause: error });
}

/**
 * The error envelope the README documents, logged once. The client gets the whole message; the
 * log line (its logger names the requestId) gets the code, the field and the task but never the
 * message, which may quote what the caller sent: an unknown time zone, a tool's exception about
 * its input. A fault is logged at error level with its cause's type and stack frames, for the
 * same reason without the cause's message.
 */
export function errorEnvelope(error: CapstanError, { requestId, log }: Pick<CallContext, 'requestId' | 'log'>): ErrorEnvelope {
  const logged = { code: error.code, field: error.details.field, taskId: error.taskId };
  if (error.code === 'INTERNAL_ERROR') log.error({ ...logged, fault: withoutMessage(error.cause ?? error) }, 'request failed');
  else log[error.status >= 500 ? 'warn' : 'info'](logged, 'request failed');
  return envelopeOf(error, requestId) as ErrorEnvelope;
}

/** What a log may keep of a fault: its class, its code and where it was thrown. */
function withoutMessage(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  return { type: error.name, code: (error as { code?: unknown }).code, stack: frames.map((line) => line.trim()).join('\n') };
}

/** The client's requestId when it is well formed, else a fresh one. */
export function resolveRequestId(candidate: unknown): string {
  return typeof candidate === 'string' && REQUEST_ID_PATTERN.test(candidate) ? candidate : `req-${timeOrderedUuid()}`;
}
