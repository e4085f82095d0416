/** Runs a tool from the console and records the call, whatever happens, in Recent executions. */
import { useCallback } from 'react';
import type { ErrorBody } from '../../../shared/api';
import { CONSOLE_REQUEST_PREFIX } from '../../../shared/policy';
import { useCallTool } from '../../api/hooks';
import { ApiError } from '../../api/transport';
import { useExecutions } from '../../state/executionsStore';

export const newRequestId = () => `${CONSOLE_REQUEST_PREFIX}${crypto.randomUUID()}`;

export interface ExecuteOptions {
  /** The operator reviewed the exact arguments and confirmed them in the review dialog. */
  confirmed: boolean;
}

function asErrorBody(error: unknown): ErrorBody {
  if (error instanceof ApiError) return error.body;
  return { code: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) };
}

export function useExecuteTool() {
  const { mutateAsync } = useCallTool();
  const started = useExecutions((state) => state.started);
  const finished = useExecutions((state) => state.finished);

  return useCallback(
    async (tool: string, args: Record<string, unknown>, { confirmed }: ExecuteOptions) => {
      const requestId = newRequestId();
      started({ requestId, tool, arguments: args, confirmed });
      const begin = performance.now();
      const roundTripMs = () => Math.round(performance.now() - begin);
      try {
        const response = await mutateAsync({ request: { tool, arguments: args, requestId }, confirmed });
        finished(requestId, { response, roundTripMs: roundTripMs() });
      } catch (error) {
        finished(requestId, { error: asErrorBody(error), roundTripMs: roundTripMs() });
      }
    },
    [mutateAsync, started, finished],
  );
}

/** Whether a call to this tool is still waiting for the gateway. */
export const useToolRunning = (tool: string) =>
  useExecutions((state) => state.executions.some((execution) => execution.tool === tool && execution.status === 'running'));
