/**
 * Recent executions: every call the console made in this window, newest first. Full results
 * stay in memory only (the ledger keeps digests, never raw data), so a reload forgets them.
 */
import { create } from 'zustand';
import type { ErrorBody, ToolCallResponse } from '../../shared/api';

/** Enough to read an operator's screen without scrolling forever, and to bound memory. */
export const MAX_EXECUTIONS = 50;

export interface Execution {
  requestId: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** Sent through the review-and-confirm flow. */
  confirmed: boolean;
  startedAt: number;
  status: 'running' | 'ok' | 'error';
  /** The gateway's own timing when it reports one, otherwise the round trip seen by the console. */
  durationMs?: number;
  durationSource?: 'gateway' | 'round-trip';
  /** What the gateway answered to a call that ran, exactly. */
  response?: ToolCallResponse;
  /** Why the call failed: the gateway's error, or the console's when no answer came back. */
  error?: ErrorBody;
  /** The task the call joined; absent when it was refused before joining one (unknown tool, bad arguments) or never arrived. */
  taskId?: string;
}

export type ExecutionOutcome =
  | { response: ToolCallResponse; roundTripMs: number }
  | { error: ErrorBody; taskId: string | undefined; roundTripMs: number };

interface ExecutionsState {
  executions: Execution[];
  started(execution: Pick<Execution, 'requestId' | 'tool' | 'arguments' | 'confirmed'>): void;
  finished(requestId: string, outcome: ExecutionOutcome): void;
  clear(): void;
}

function settle(execution: Execution, outcome: ExecutionOutcome): Execution {
  if ('error' in outcome) {
    const { error, taskId, roundTripMs } = outcome;
    return { ...execution, status: 'error', error, ...(taskId ? { taskId } : {}), durationMs: roundTripMs, durationSource: 'round-trip' };
  }
  const { response } = outcome;
  return { ...execution, status: 'ok', response, taskId: response.taskId, durationMs: response.durationMs, durationSource: 'gateway' };
}

export const useExecutions = create<ExecutionsState>()((set) => ({
  executions: [],
  started: (execution) =>
    set((state) => ({
      executions: [{ ...execution, startedAt: Date.now(), status: 'running' as const }, ...state.executions].slice(0, MAX_EXECUTIONS),
    })),
  finished: (requestId, outcome) =>
    set((state) => ({
      executions: state.executions.map((execution) => (execution.requestId === requestId ? settle(execution, outcome) : execution)),
    })),
  clear: () => set({ executions: [] }),
}));
