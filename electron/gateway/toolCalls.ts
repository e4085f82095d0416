/**
 * The one policy path every tool call takes, whatever the entry (HTTP, IPC, later MCP and
 * bridge): exists? → arguments valid? → confirmed? → run with a deadline → one response.
 */
import type { ToolCallResponse } from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import type { Catalog } from '../catalog/catalog';
import { assertValidArguments } from '../catalog/contract';
import { ToolArgumentError, type ToolDefinition } from '../catalog/tool';
import type { Logger } from '../logger';
import type { Confirmations } from './confirmations';

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  confirmation?: string | undefined;
}

export interface CallContext {
  requestId: string;
  log: Logger;
}

export function createToolCaller({ catalog, confirmations }: { catalog: Catalog; confirmations: Confirmations }) {
  return async function callTool(call: ToolCall, { requestId, log }: CallContext): Promise<ToolCallResponse> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    try {
      const { contract, tool } = catalog.resolveTool(call.tool);
      assertValidArguments(tool, call.arguments);
      if (contract.needConfirm) checkConfirmation(confirmations, call);

      log.info({ tool: call.tool }, 'tool call started');
      const result = await runWithDeadline(tool.definition, call.arguments, requestId);
      const durationMs = elapsed();
      log.info({ tool: call.tool, ok: true, durationMs }, 'tool call finished');
      return { requestId, ok: true, result, durationMs };
    } catch (error) {
      const failure = asCapstanError(error, call.tool);
      const level = failure.code === 'TOOL_FAILED' ? 'warn' : 'info';
      log[level]({ tool: call.tool, ok: false, code: failure.code, durationMs: elapsed() }, failure.message);
      return { requestId, ok: false, error: { code: failure.code, message: failure.message, ...failure.details } };
    }
  };
}

function checkConfirmation(confirmations: Confirmations, call: ToolCall): void {
  let reason = 'this tool needs an operator confirmation';
  if (call.confirmation !== undefined) {
    const outcome = confirmations.redeem(call.confirmation, call.tool, call.arguments);
    if (outcome.ok) return;
    reason = outcome.reason;
  }
  const challenge = confirmations.issue(call.tool, call.arguments);
  throw new CapstanError(
    'CONFIRMATION_REQUIRED',
    `CONFIRMATION_REQUIRED: ${reason}; re-send the same call with "confirmation": "${challenge.id}" before ${challenge.expiresAt}`,
    { challenge },
  );
}

class DeadlineExceeded extends Error {}

async function runWithDeadline(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  requestId: string,
): Promise<unknown> {
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The deadline wins even when a tool ignores its signal, so a stuck tool never hangs a caller.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineExceeded(`${definition.name} did not finish within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => definition.run(args, { signal: controller.signal, requestId })), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function asCapstanError(error: unknown, tool: string): CapstanError {
  if (error instanceof CapstanError) return error;
  if (error instanceof ToolArgumentError) {
    return new CapstanError('ARGUMENT_INVALID', `ARGUMENT_INVALID: ${error.field} ${error.message}`, { field: error.field });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CapstanError('TOOL_FAILED', `TOOL_FAILED: ${tool}: ${message}`);
}
