/**
 * The one policy path every tool call takes, whatever the entry (HTTP, IPC, later MCP and
 * bridge): exists? → arguments valid? → in a running task? → granted? → mutations allowed? →
 * confirmed? → run under a deadline, abortable by cancellation → recorded → one response.
 */
import type { ToolCallResponse } from '../../shared/api';
import { CapstanError, type ErrorCode } from '../../shared/errors';
import type { Catalog } from '../catalog/catalog';
import { assertValidArguments } from '../catalog/contract';
import { ToolArgumentError } from '../catalog/tool';
import type { Logger } from '../logger';
import type { Ledger } from '../runtime/ledger';
import type { CallOutcome, Task, TaskRuntime } from '../runtime/tasks';
import type { Confirmations } from './confirmations';

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  confirmation?: string | undefined;
  sessionId?: string | undefined;
  taskId?: string | undefined;
}

export interface CallContext {
  requestId: string;
  log: Logger;
}

interface Parts {
  catalog: Catalog;
  confirmations: Confirmations;
  tasks: TaskRuntime;
  ledger: Ledger;
}

export function createToolCaller({ catalog, confirmations, tasks, ledger }: Parts) {
  return async function callTool(call: ToolCall, { requestId, log }: CallContext): Promise<ToolCallResponse> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    let task: Task | undefined;
    try {
      const { contract, tool, contractHash, bindingGeneration } = catalog.resolveTool(call.tool);
      assertValidArguments(tool, call.arguments);
      task = tasks.taskForCall(call);
      const running = task;
      const refuse = (check: () => void) => {
        try {
          check();
        } catch (error) {
          if (error instanceof CapstanError) tasks.refuseCall(running, requestId, contract.id, error.code);
          throw error;
        }
      };
      refuse(() => running.grants?.require(contract.id, 'tool', 'execute'));
      if (contract.mutating) refuse(() => tasks.assertMayMutate(running));
      if (contract.needConfirm) refuse(() => checkConfirmation(confirmations, call, () => ledger.append({
        kind: 'confirmation',
        taskId: running.id,
        sessionId: running.sessionId,
        requestId,
        capability: contract.id,
        details: { challengeId: call.confirmation, argumentsDigest: ledger.digest(call.arguments) },
      })));

      const inFlight = tasks.beginCall(
        task,
        {
          requestId,
          capability: contract.id,
          mutating: contract.mutating,
          details: {
            argumentsDigest: ledger.digest(call.arguments),
            reference: { id: contract.id, catalogGeneration: catalog.generation, contractHash, bindingGeneration },
          },
        },
        (outcome) => (outcome.status === 'ok' ? { resultDigest: ledger.digest(asJson(outcome.result)) } : { code: failure(outcome, contract.id).code }),
      );
      log.info({ tool: contract.id, taskId: task.id }, 'tool call started');
      const outcome = await inFlight.run((signal) => tool.definition.run(call.arguments, { signal, requestId }), tool.definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
      // The response waits for the ledger: a call a client heard about is a call on record.
      await inFlight.recorded;
      if (outcome.status !== 'ok') throw failure(outcome, contract.id);
      const durationMs = elapsed();
      log.info({ tool: contract.id, taskId: task.id, ok: true, durationMs }, 'tool call finished');
      return { requestId, taskId: task.id, ok: true, result: asJson(outcome.result), durationMs };
    } catch (error) {
      const problem = error instanceof CapstanError ? error : failure({ status: 'error', error, timedOut: false }, call.tool);
      // A refusal recorded in the task is on disk before the client hears of it.
      if (task) await ledger.durable();
      const level = problem.status >= 500 ? 'warn' : 'info';
      log[level]({ tool: call.tool, taskId: task?.id, ok: false, code: problem.code, durationMs: elapsed() }, problem.message);
      return { requestId, ...(task ? { taskId: task.id } : {}), ok: false, error: { code: problem.code, message: problem.message, ...problem.details } };
    }
  };
}

/** What the client receives is what the digest covers: the result as JSON. */
function asJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function checkConfirmation(confirmations: Confirmations, call: ToolCall, onAccepted: () => void): void {
  let reason = 'this tool needs an operator confirmation';
  if (call.confirmation !== undefined) {
    const outcome = confirmations.redeem(call.confirmation, call.tool, call.arguments);
    if (outcome.ok) return onAccepted();
    reason = outcome.reason;
  }
  const challenge = confirmations.issue(call.tool, call.arguments);
  throw new CapstanError(
    'CONFIRMATION_REQUIRED',
    `CONFIRMATION_REQUIRED: ${reason}; re-send the same call with "confirmation": "${challenge.id}" before ${challenge.expiresAt}`,
    { challenge },
  );
}

/** The error a client sees for a call that did not end well. */
function failure(outcome: Exclude<CallOutcome, { status: 'ok' }>, tool: string): CapstanError {
  const as = (code: ErrorCode, message: string, details?: Record<string, unknown>) => new CapstanError(code, `${code}: ${message}`, details);
  switch (outcome.status) {
    case 'cancelled':
      return as('CALL_CANCELLED', `${tool} stopped because its task was cancelled`);
    case 'outcome_unknown':
      return as('OUTCOME_UNKNOWN', `${tool} did not end within the grace period after it was stopped; its effects are unknown`);
    case 'error': {
      const { error, timedOut } = outcome;
      if (error instanceof CapstanError) return error;
      if (error instanceof ToolArgumentError) return as('ARGUMENT_INVALID', `${error.field} ${error.message}`, { field: error.field });
      if (timedOut) return as('TOOL_FAILED', `${tool} did not finish within its deadline`);
      return as('TOOL_FAILED', `${tool}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
