/** Runs a tool from the console and records the call, whatever happens, in Recent executions. */
import { useCallback } from 'react';
import type { ToolContract } from '../../../shared/capability';
import { CONSOLE_REQUEST_PREFIX } from '../../../shared/policy';
import { useCallTool } from '../../api/hooks';
import { ApiError, toErrorBody } from '../../api/errors';
import { useExecutions } from '../../state/executionsStore';
import { useProgress } from '../../state/progressStore';

/**
 * What the console calls a tool by: builtins by name, as the seed's registry does; every other
 * provider's by id, since two MCP servers may well both offer a `read_file`.
 */
export const callName = (tool: Pick<ToolContract, 'id' | 'name' | 'provider'>) => (tool.provider === 'builtin' ? tool.name : tool.id);

export const newRequestId = () => `${CONSOLE_REQUEST_PREFIX}${crypto.randomUUID()}`;

export interface ExecuteOptions {
  /** The operator reviewed the exact arguments and confirmed them in the review dialog. */
  confirmed: boolean;
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
        // A failed call is still a call: the gateway names the task it joined, for the ledger link.
        const taskId = error instanceof ApiError ? error.taskId : undefined;
        finished(requestId, { error: toErrorBody(error), taskId, roundTripMs: roundTripMs() });
      } finally {
        // Its call_finished entry ends the bar too, but an answer can come first.
        useProgress.getState().end([requestId]);
      }
    },
    [mutateAsync, started, finished],
  );
}

/**
 * Whether a console's call to this tool is still waiting for the gateway (this window's, or
 * another console window's). Runs made elsewhere with the operator's token (the CLI, a script)
 * do not hold the button.
 */
export const useToolRunning = (tool: string) =>
  useExecutions((state) =>
    state.executions.some((execution) => execution.tool === tool && execution.status === 'running' && execution.requestId.startsWith(CONSOLE_REQUEST_PREFIX)),
  );
