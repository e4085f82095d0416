/**
 * The builtin provider: the seed's eight tools. To add one, write a `defineTool` in this folder
 * and list it here; the catalog validates it at start-up.
 */
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
