/**
 * The call service: one tool call, whatever the way in (HTTP, IPC, `/mcp`, `capstan mcp`, a Harn
 * script). Each entry is a thin adapter that dispatches the `callTool` operation (api.ts) with a
 * context naming who calls, how confirmation is asked (confirmation.ts) and, for an entry bound
 * to one task, its scope. Everything else happens here, once:
 *
 *   exists? → in which task? → arguments valid (when granted)? → then the runtime's one call
 *   path (granted? → may mutate? → confirmed? → run under a deadline, abortable → recorded) →
 *   kept in Recent executions when the operator made it.
 *
 * A call that does not end well throws, like every other operation; dispatch makes the envelope.
 */
import type { ToolCallResponse } from '../../shared/api';
import type { CapabilityReference, ToolContract } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import type { Principal } from '../../shared/principal';
import type { Catalog } from '../catalog/catalog';
import type { CompiledTool } from '../catalog/contract';
import { assertValidArguments } from '../catalog/contract';
import type { SnapshotEntry } from '../catalog/snapshot';
import type { Logger } from '../logger';
import type { Ledger } from '../runtime/ledger';
import type { TaskRuntime } from '../runtime/runtime';
import type { RunningTask } from '../runtime/task';
import type { ExecutionHistory } from '../store/executionHistory';
import type { Telemetry } from '../telemetry/telemetry';
import { traceIdOf, type IncomingTrace } from '../telemetry/trace';
import { traceCall, type CallTrace } from './tracing';
import { strategyFor, type Confirmation, type ConfirmationStrategy } from './confirmation';

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  confirmation?: string | undefined;
  sessionId?: string | undefined;
  taskId?: string | undefined;
  reference?: CapabilityReference | undefined;
}

/** What every operation runs with; the way in fills it. */
export interface CallContext {
  requestId: string;
  log: Logger;
  /** Who the operation runs for (services/principal.ts); dispatch also makes it `currentPrincipal()` for everything it runs. */
  principal: Principal;
  /** How a call that needs confirmation is confirmed; absent, the principal's default (`strategyFor`). */
  confirm?: ConfirmationStrategy | undefined;
  /** For an entry bound to one task (a Harn run); absent for every other entry. */
  scope?: CallScope | undefined;
  /** Aborts when the caller cancels or goes away before its answer (the runtime's `callerGone`). */
  signal?: AbortSignal | undefined;
  /**
   * The gateway made `requestId` itself for this request (http.ts: the caller sent none): no
   * caller can have used it before, so the check that it is the caller's own is skipped. A
   * requestId a caller chose is always checked.
   */
  requestIdIssued?: boolean | undefined;
  /** The caller's W3C trace context (an HTTP header, MCP `_meta`, Harn), continued by the call's trace (tracing.ts). */
  trace?: IncomingTrace | undefined;
}

/**
 * An entry bound to one task: its calls run in that task only (whatever session it is in, since
 * the operator started it there), name tools as the entry lists them, and add the entry's own
 * facts to the call's ledger entry.
 */
export interface CallScope {
  taskId: string;
  /** The snapshot entry a name stands for in this entry's listing, or undefined when it names none. */
  find(task: RunningTask, name: string): SnapshotEntry | undefined;
  details?: Record<string, unknown> | undefined;
}

/** A tool resolved for one call: its contract, its compiled form and the reference the ledger records. */
interface Resolved {
  task: RunningTask;
  live: { contract: ToolContract; tool: CompiledTool };
  reference: CapabilityReference;
}

interface Parts {
  catalog: Catalog;
  confirmation: Confirmation;
  tasks: TaskRuntime;
  ledger: Ledger;
  history: ExecutionHistory;
  telemetry: Telemetry;
}

export class CallService {
  constructor(private readonly parts: Parts) {}

  async call(call: ToolCall, context: CallContext): Promise<ToolCallResponse> {
    assertRequestIdFree(this.parts.ledger, context);
    const { catalog, history } = this.parts;
    const capabilityOf = () => (context.scope ? call.tool : catalog.resolveTool(call.tool).contract.id);
    const { requestId, principal } = context;
    return traceCall(this.parts.telemetry, { tool: call.tool, requestId, principal, incoming: context.trace }, (trace) =>
      history.track(call, context, (confirmed) => this.#run(call, context, confirmed, trace), capabilityOf),
    );
  }

  async #run(call: ToolCall, context: CallContext, confirmed: () => void, trace: CallTrace): Promise<ToolCallResponse> {
    const { confirmation, tasks, ledger } = this.parts;
    const { requestId, log, principal, scope } = context;
    const { task, live, reference } = trace.step('capstan.policy', () => (scope ? this.#inScope(call, scope) : this.#byName(call)));
    const { contract, tool } = live;
    trace.resolved(contract, task);
    const argumentsDigest = ledger.digest(call.arguments);
    // In the ledger and the answer, so the requestId and the trace lead to each other.
    const traceId = traceIdOf(requestId);
    // Debug: at the default level a call has one line, when it ends ('tool call finished', or
    // 'request failed' with its code), so a busy gateway does not write three lines per call.
    log.debug({ tool: contract.id, taskId: task.id }, 'tool call started');
    const { id, name, title, description, riskLevel, mutating } = contract;
    const review = { requestId, principal, taskId: task.id, sessionId: task.sessionId, tool: { id, name, title, description, riskLevel, mutating }, arguments: call.arguments };
    const confirm = confirmation.confirm(context.confirm ?? strategyFor(principal), review, { tool: call.tool, answer: call.confirmation, argumentsDigest });
    const outcome = await tasks.runCall(
      task,
      {
        requestId,
        capability: contract.id,
        mutating,
        timeoutMs: tool.definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        details: { argumentsDigest, reference, traceId, ...scope?.details },
        callerGone: context.signal,
        confirm: contract.needConfirm
          ? async (stopped) => {
              const strategy = context.confirm ?? strategyFor(principal);
              const facts = await trace.wait(strategy.kind === 'approval' ? 'capstan.approval' : 'capstan.confirmation', () => confirm(stopped));
              confirmed();
              return facts;
            }
          : undefined,
      },
      (signal) => trace.provider(async () => tool.definition.run(call.arguments, { signal, requestId, mutating })),
    );
    trace.ended(outcome.status);
    // The duration the ledger records goes with the failure, so a run's record says the same.
    if (outcome.status !== 'ok') throw outcome.error.inTask(task.id).ranFor(outcome.durationMs);
    log.info({ tool: contract.id, taskId: task.id, durationMs: outcome.durationMs }, 'tool call finished');
    return { requestId, taskId: task.id, ok: true, result: outcome.result, durationMs: outcome.durationMs, traceId };
  }

  /** The live catalog's tool by name or id, in the task the call names (or its session's). */
  #byName(call: ToolCall): Resolved {
    const { catalog, tasks } = this.parts;
    const { contract, tool, contractHash, bindingGeneration } = catalog.resolveTool(call.tool);
    if (contract.kind !== 'tool') throw new CapstanError('TOOL_NOT_FOUND', `${contract.id} is not a tool`);
    assertRunnable(contract);
    // The task first, to know what the caller may do: its arguments are checked only when it
    // may execute the tool (see assertValidIfGranted). This starts the session's task for a
    // call with bad arguments too, as for any other refused call; the grants a task would get
    // are the runtime's to know, not this service's.
    const task = tasks.taskForCall(call);
    if (call.reference) assertLoaded(catalog, task, contract.id, call.reference);
    assertValidIfGranted(task, contract.id, tool, call.arguments);
    return { task, live: { contract, tool }, reference: { id: contract.id, catalogGeneration: catalog.generation, contractHash, bindingGeneration } };
  }

  /** The tool the scope's listing names, still current in its task's snapshot. */
  #inScope(call: ToolCall, scope: CallScope): Resolved {
    const task = this.parts.tasks.get(scope.taskId).running();
    try {
      const entry = scope.find(task, call.tool);
      if (!entry) throw new CapstanError('TOOL_NOT_FOUND', `no tool "${call.tool}" is listed for this task`);
      const reference = task.snapshot.reference(entry);
      const live = this.parts.catalog.verify(reference, task.snapshot);
      if (!live.tool || live.contract.kind !== 'tool') throw new CapstanError('TOOL_NOT_FOUND', `${entry.contract.id} is not a tool`);
      assertRunnable(live.contract);
      assertValidIfGranted(task, live.contract.id, live.tool, call.arguments);
      return { task, live: { contract: live.contract, tool: live.tool }, reference };
    } catch (error) {
      throw error instanceof CapstanError ? error.inTask(task.id) : error;
    }
  }
}

/**
 * Grants before arguments: a caller the task does not let execute the tool never has the
 * gateway evaluate the provider's schema (its patterns, formats, depth) for it. Its call goes on
 * unchecked to the runtime's call path, which refuses it NOT_GRANTED before anything runs and
 * records the refusal, as it always did.
 */
function assertValidIfGranted(task: RunningTask, toolId: string, tool: Pick<CompiledTool, 'validateArguments'>, args: Record<string, unknown>): void {
  if (task.grants.held(toolId, 'tool') === 'execute') assertValidArguments(tool, args);
}

/**
 * A requestId names one principal's calls: one another principal already used (its first entry
 * in the ledger names someone else) is refused before anything runs or is recorded, so the
 * ledger's trail of a requestId, evidence checks and cancellation never mix two callers' calls.
 * The message says neither whose it is nor how that call went.
 */
export function assertRequestIdFree(ledger: Pick<Ledger, 'firstPrincipalOf'>, { requestId, principal, requestIdIssued }: Pick<CallContext, 'requestId' | 'principal' | 'requestIdIssued'>): void {
  // One the gateway made for this very request cannot be anyone else's.
  if (requestIdIssued) return;
  const first = ledger.firstPrincipalOf(requestId);
  if (first !== undefined && first !== principal) {
    throw new CapstanError('REQUEST_ID_IN_USE', `requestId "${requestId}" is already used by another caller; send another, or none and the gateway makes one`, { field: 'requestId' });
  }
}

/** A tool Capstan lists but cannot run is refused as soon as it is resolved: nothing runs or is recorded as started. */
function assertRunnable(contract: ToolContract): void {
  if (contract.runnable === false) {
    throw new CapstanError('TOOL_NOT_RUNNABLE', `${contract.id} cannot run in Capstan: ${contract.notRunnableReason ?? 'no reason given'}`, { reason: contract.notRunnableReason });
  }
}

/**
 * A call by reference runs only what discovery handed out and the task loaded: the reference must
 * name this tool, still match the task's snapshot and the live catalog (STALE_CAPABILITY when it
 * does not, rather than running a different implementation), and be in the task's context.
 */
function assertLoaded(catalog: Catalog, task: RunningTask, toolId: string, reference: CapabilityReference): void {
  try {
    if (reference.id !== toolId) throw new CapstanError('ARGUMENT_INVALID', `the reference names ${reference.id}, the call ${toolId}`, { field: 'reference' });
    catalog.verify(reference, task.snapshot);
    if (!task.context.items.some((item) => item.id === toolId)) {
      throw new CapstanError('TOOL_NOT_LOADED', `${toolId} is not loaded in ${task.id}; load it with tools_load first`);
    }
  } catch (error) {
    throw error instanceof CapstanError ? error.inTask(task.id) : error;
  }
}
