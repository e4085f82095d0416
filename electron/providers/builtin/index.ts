/**
 * The builtin provider: the seed's eight tools. To add one, write a `defineTool` in this folder
 * and list it in `builtinTools`; the catalog validates it when the provider loads.
 */
import type { Provider } from '../../catalog/provider';
import type { ToolDefinition } from '../../catalog/tool';
import type { Database } from '../../store/database';
import { deviceInspectTool } from './deviceInspect';
import { httpCheckTool } from './httpCheck';
import { localStatusTool } from './localStatus';
import { noteAddTool, noteSearchTool } from './notes';
import { timeNowTool } from './timeNow';
import { todoAddTool, todoListTool } from './todos';

export const BUILTIN_PROVIDER = 'builtin';

export function builtinTools({ db, dataDir }: { db: Database; dataDir: string }): ToolDefinition[] {
  return [
    timeNowTool,
    localStatusTool(dataDir),
    deviceInspectTool,
    noteAddTool(db),
    noteSearchTool(db),
    todoAddTool(db),
    todoListTool(db),
    httpCheckTool,
  ];
}

export function builtinProvider(store: { db: Database; dataDir: string }): Provider {
  const tools = builtinTools(store);
  return { name: BUILTIN_PROVIDER, kind: 'builtin', load: () => ({ tools, skills: [], diagnostics: [] }) };
}
