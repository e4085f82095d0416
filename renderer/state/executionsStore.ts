/**
 * Recent executions as this page shows them: the gateway's history of the operator's calls
 * (shared/executions.ts, read with GET /executions and kept current by `executions` events), so a
 * reload finds them again, plus what only this page knows: a call it just sent (shown at once,
 * before the gateway's record arrives) and one the gateway never answered.
 */
import { create } from 'zustand';
import { ErrorBody, type ToolCallResponse } from '../../shared/api';
import { MAX_HISTORY_ENTRIES, type ExecutionRecord, type ExecutionsView, type HistorySettings } from '../../shared/executions';

export interface Execution {
  /** The gateway's id for the run; `local:<requestId>` for one only this page knows. */
  id: string;
  requestId: string;
  /** As the call named it: a builtin's name or a capability id. */
  tool: string;
  /** The capability it resolved to (for Re-run), when known. */
  capability?: string | undefined;
  arguments: Record<string, unknown>;
  sessionId?: string | undefined;
  /** The operator confirmed it (in the review dialog, or answering the gateway's challenge). */
  confirmed: boolean;
  startedAt: number;
  status: 'running' | 'ok' | 'error' | 'awaiting_confirmation';
  /** While awaiting confirmation: when the challenge expires (past it, the call was not confirmed). */
  confirmationExpiresAt?: string | undefined;
  /** The operator declined the confirmation this page asked for: nothing ran. */
  declined?: boolean | undefined;
  /** The gateway's own timing when it reports one, otherwise the round trip seen by the console. */
  durationMs?: number | undefined;
  durationSource?: 'gateway' | 'round-trip' | undefined;
  /** What the gateway answered to a call that ran, exactly. */
  response?: ToolCallResponse | undefined;
  /** Why the call failed: the gateway's error, or the console's when no answer came back. */
  error?: ErrorBody | undefined;
  /** The task the call joined; absent when it was refused before joining one (unknown tool, bad arguments) or never arrived. */
  taskId?: string | undefined;
  /** The gateway kept neither arguments nor result: they were this many bytes of JSON. */
  omittedBytes?: number | undefined;
  /** Only this page knows it (the gateway has no record of it, or not yet). */
  local: boolean;
}

export type ExecutionOutcome =
  | { response: ToolCallResponse; roundTripMs: number }
  | { error: ErrorBody; taskId: string | undefined; roundTripMs: number };

interface ExecutionsState {
  executions: Execution[];
  /** The gateway's history state this page has read up to (null before the first read). */
  epoch: string | null;
  revision: number;
  settings: HistorySettings | null;
  started(execution: Pick<Execution, 'requestId' | 'tool' | 'arguments' | 'confirmed'>): void;
  finished(requestId: string, outcome: ExecutionOutcome): void;
  /** Takes the gateway's view: all of it (`full`, dropping runs it no longer has), or the runs changed since the last read. */
  received(view: ExecutionsView, full: boolean): void;
}

/** A gateway record as the page shows it. */
export function fromRecord(record: ExecutionRecord): Execution {
  const error = record.error ? ErrorBody.safeParse(record.error) : undefined;
  return {
    id: record.id,
    requestId: record.requestId,
    tool: record.tool,
    capability: record.capability,
    arguments: record.arguments,
    sessionId: record.sessionId,
    confirmed: record.confirmed,
    startedAt: Date.parse(record.startedAt),
    status: record.status,
    confirmationExpiresAt: record.confirmationExpiresAt,
    durationMs: record.durationMs,
    durationSource: record.durationMs === undefined ? undefined : 'gateway',
    response:
      record.status === 'ok' && record.taskId
        ? { requestId: record.requestId, taskId: record.taskId, ok: true, result: record.result, durationMs: record.durationMs ?? 0, ...(record.traceId ? { traceId: record.traceId } : {}) }
        : undefined,
    // A code this console does not know (a newer gateway) still shows, as an internal error with its message.
    error: error === undefined ? undefined : error.success ? error.data : { code: 'INTERNAL_ERROR', message: `${record.error!.code}: ${record.error!.message}` },
    taskId: record.taskId,
    omittedBytes: record.omittedBytes,
    local: false,
  };
}

function settle(execution: Execution, outcome: ExecutionOutcome): Execution {
  if ('error' in outcome) {
    const { error, taskId, roundTripMs } = outcome;
    // Over IPC a declined native dialog ends the call this way: the confirmation was asked and not given.
    if (error.code === 'CONFIRMATION_REQUIRED' && execution.confirmed) {
      return { ...execution, status: 'awaiting_confirmation', confirmed: false, declined: true, ...(taskId ? { taskId } : {}) };
    }
    return { ...execution, status: 'error', error, ...(taskId ? { taskId } : {}), durationMs: roundTripMs, durationSource: 'round-trip' };
  }
  const { response } = outcome;
  return { ...execution, status: 'ok', response, taskId: response.taskId, durationMs: response.durationMs, durationSource: 'gateway' };
}

const newestFirst = (a: Execution, b: Execution) => b.startedAt - a.startedAt;

export const useExecutions = create<ExecutionsState>()((set) => ({
  executions: [],
  epoch: null,
  revision: 0,
  settings: null,
  started: (execution) =>
    set((state) => ({
      executions: [{ ...execution, id: `local:${execution.requestId}`, startedAt: Date.now(), status: 'running' as const, local: true }, ...state.executions].slice(
        0,
        MAX_HISTORY_ENTRIES,
      ),
    })),
  finished: (requestId, outcome) =>
    set((state) => ({
      executions: state.executions.map((execution) => {
        if (execution.requestId !== requestId) return execution;
        // The gateway's record already says how it went; only a decline is news to it.
        if (!execution.local) {
          return 'error' in outcome && outcome.error.code === 'CONFIRMATION_REQUIRED' && execution.status === 'awaiting_confirmation' ? { ...execution, declined: true } : execution;
        }
        return settle(execution, outcome);
      }),
    })),
  received: (view, full) =>
    set((state) => {
      const incoming = view.executions.map(fromRecord);
      const fromGateway = new Set(incoming.map((execution) => execution.requestId));
      const declined = new Set(state.executions.filter((execution) => execution.declined).map((execution) => execution.requestId));
      const changed = new Set(incoming.map((execution) => execution.id));
      // A page's own run gives way to the gateway's record of it; runs the gateway never saw stay.
      const kept = state.executions.filter((execution) =>
        execution.local ? !fromGateway.has(execution.requestId) : !full && !changed.has(execution.id),
      );
      const merged = [...incoming.map((execution) => (declined.has(execution.requestId) ? { ...execution, declined: true } : execution)), ...kept];
      let fromHistory = 0;
      return {
        // The gateway's limit bounds its runs; the page's own few stay until the page goes.
        executions: merged.sort(newestFirst).filter((execution) => execution.local || ++fromHistory <= view.settings.maxEntries),
        epoch: view.epoch,
        revision: view.revision,
        settings: view.settings,
      };
    }),
}));
