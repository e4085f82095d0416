/**
 * Export of Recent executions as JSON lines: one run a line, oldest first, in the shape of the
 * gateway's records (shared/executions.ts), for a ticket, a diff between two runs, or `jq`.
 * Free of the DOM, so it is tested in node; RecentExecutions hands the lines to the browser.
 */
import type { Execution } from '../../state/executionsStore';

/** One run as a line: what it sent, what came back, and where to find it in the ledger. */
export function executionLine(execution: Execution): string {
  const { requestId, tool, capability, arguments: args, sessionId, taskId, status, confirmed, durationMs, error, omittedBytes } = execution;
  return JSON.stringify({
    requestId,
    tool,
    capability,
    arguments: args,
    sessionId,
    taskId,
    status: execution.declined ? 'not_confirmed' : status,
    confirmed,
    startedAt: new Date(execution.startedAt).toISOString(),
    durationMs,
    result: execution.response?.result,
    error,
    omittedBytes,
  });
}

export const historyFileName = (now = new Date()) => `capstan-executions-${now.toISOString().replace(/[:.]/g, '-')}.jsonl`;

/** The runs as JSON lines, oldest first. */
export const historyLines = (executions: readonly Execution[]): string[] => [...executions].reverse().map((execution) => `${executionLine(execution)}\n`);
