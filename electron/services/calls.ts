/**
 * A tool call as the gateway takes it, whatever the entry (HTTP, IPC, later MCP and Harn):
 * exists? → arguments valid? → in a running task? → then the runtime's one call path (granted?
 * → may mutate? → confirmed? → run under a deadline, abortable → recorded). A call that does
 * not end well throws, like every other operation; the dispatcher makes the envelope.
 *
 * Who confirms depends on who calls: the operator answers the HTTP challenge (or, over IPC, the
 * native dialog); an agent never confirms for itself, so its call waits in the approvals queue.
 */
import type { ToolCallResponse } from '../../shared/api';
import type { CapabilityReference } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import { isAgent, type Principal } from '../../shared/principal';
import type { Catalog } from '../catalog/catalog';
import { assertValidArguments } from '../catalog/contract';
import type { Logger } from '../logger';
import type { Ledger } from '../runtime/ledger';
import type { TaskRuntime } from '../runtime/runtime';
import type { RunningTask } from '../runtime/task';
import type { Approvals, ApprovalWait } from './approvals';
import type { Confirmations } from './confirmations';

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  confirmation?: string | undefined;
  sessionId?: string | undefined;
  taskId?: string | undefined;
  reference?: CapabilityReference | undefined;
}

export interface CallContext {
  requestId: string;
  log: Logger;
  /** Who the operation runs for (services/principal.ts); dispatch also makes it `currentPrincipal()` for everything it runs. */
  principal: Principal;
  /** Told while an agent's call waits for the operator's approval: at once, then every 5 s (the MCP entry sends progress). */
  onWaiting?: ((wait: ApprovalWait) => void) | undefined;
}

interface Parts {
  catalog: Catalog;
  confirmations: Confirmations;
  approvals: Approvals;
  tasks: TaskRuntime;
  ledger: Ledger;
}

export function createToolCaller({ catalog, confirmations, approvals, tasks, ledger }: Parts) {
  return async function callTool(call: ToolCall, { requestId, log, principal, onWaiting }: CallContext): Promise<ToolCallResponse> {
    const { contract, tool, contractHash, bindingGeneration } = catalog.resolveTool(call.tool);
    assertValidArguments(tool, call.arguments);
    const task = tasks.taskForCall(call);
    if (call.reference) assertLoaded(catalog, task, contract.id, call.reference);
    const argumentsDigest = ledger.digest(call.arguments);
    // Debug: at the default level a call has one line, when it ends ('tool call finished', or
    // 'request failed' with its code), so a busy gateway does not write three lines per call.
    log.debug({ tool: contract.id, taskId: task.id }, 'tool call started');
    const { id, name, title, description, riskLevel, mutating } = contract;
    const outcome = await tasks.runCall(
      task,
      {
        requestId,
        capability: contract.id,
        mutating: contract.mutating,
        timeoutMs: tool.definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        details: { argumentsDigest, reference: { id: contract.id, catalogGeneration: catalog.generation, contractHash, bindingGeneration } },
        confirm: !contract.needConfirm
          ? undefined
          : isAgent(principal)
            ? (stopped) =>
                approvals.wait(
                  { requestId, principal, taskId: task.id, sessionId: task.sessionId, tool: { id, name, title, description, riskLevel, mutating }, arguments: call.arguments },
                  { signal: stopped, onWaiting },
                )
            : () => redeemConfirmation(confirmations, call, task.sessionId, argumentsDigest),
      },
      (signal) => tool.definition.run(call.arguments, { signal, requestId }),
    );
    // The duration the ledger records goes with the failure, so a run's record says the same.
    if (outcome.status !== 'ok') throw outcome.error.inTask(task.id).ranFor(outcome.durationMs);
    log.info({ tool: contract.id, taskId: task.id, durationMs: outcome.durationMs }, 'tool call finished');
    return { requestId, taskId: task.id, ok: true, result: outcome.result, durationMs: outcome.durationMs };
  };
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

/**
 * The HTTP confirmation round trip: a call without a valid challenge answer is refused with a
 * new challenge bound to the tool, the exact arguments and the session the call runs in (the
 * task's, so a call naming only its task is bound as well); a redeemed one is what gets recorded.
 */
function redeemConfirmation(confirmations: Confirmations, call: ToolCall, sessionId: string, argumentsDigest: string): Record<string, unknown> {
  let reason = 'this tool needs an operator confirmation';
  if (call.confirmation !== undefined) {
    const outcome = confirmations.redeem(call.confirmation, call.tool, call.arguments, sessionId);
    if (outcome.ok) return { challengeId: call.confirmation, argumentsDigest };
    reason = outcome.reason;
  }
  const challenge = confirmations.issue(call.tool, call.arguments, sessionId);
  throw new CapstanError('CONFIRMATION_REQUIRED', `${reason}; re-send the same call with "confirmation": "${challenge.id}" before ${challenge.expiresAt}`, {
    challenge,
  });
}
