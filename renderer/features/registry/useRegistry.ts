/** The registry as the console shows it: the gateway's tools, each with its state under the operator's whitelist. */
import { useMemo } from 'react';
import type { ToolDescriptor } from '../../../shared/api';
import { toolState, type ToolState } from '../../../shared/policy';
import { useSettings, useTools } from '../../api/hooks';

export interface RegistryTool {
  tool: ToolDescriptor;
  state: ToolState;
}

export function useRegistry() {
  const tools = useTools();
  const settings = useSettings();
  const whitelist = settings.data?.whitelist;

  const entries = useMemo<RegistryTool[] | undefined>(
    () => (tools.data && whitelist ? tools.data.tools.map((tool) => ({ tool, state: toolState(tool, whitelist) })) : undefined),
    [tools.data, whitelist],
  );

  return {
    entries,
    generation: tools.data?.generation,
    whitelist,
    /** The first failure, if any: the console needs both queries to show a tool's state. */
    error: tools.error ?? settings.error,
    isPending: tools.isPending || settings.isPending,
    isFetching: tools.isFetching || settings.isFetching,
    retry: () => Promise.all([tools.refetch(), settings.refetch()]),
  };
}
