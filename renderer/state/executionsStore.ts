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
  /** What the gateway answered, exactly; absent when the call never got an answer. */
  response?: ToolCallResponse;
  error?: ErrorBody;
}

export type ExecutionOutcome =
  | { response: ToolCallResponse; roundTripMs: number }
  | { error: ErrorBody; roundTripMs: number };

interface ExecutionsState {
  executions: Execution[];
  started(execution: Pick<Execution, 'requestId' | 'tool' | 'arguments' | 'confirmed'>): void;
  finished(requestId: string, outcome: ExecutionOutcome): void;
  clear(): void;
}

function settle(execution: Execution, outcome: ExecutionOutcome): Execution {
  if ('error' in outcome) {
    return { ...execution, status: 'error', error: outcome.error, durationMs: outcome.roundTripMs, durationSource: 'round-trip' };
  }
  const { response } = outcome;
  return response.ok
    ? { ...execution, status: 'ok', response, durationMs: response.durationMs, durationSource: 'gateway' }
    : { ...execution, status: 'error', response, error: response.error, durationMs: outcome.roundTripMs, durationSource: 'round-trip' };
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
