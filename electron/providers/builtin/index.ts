/**
 * The builtin provider: the seed's eight tools. To add one, write a `defineTool` in this folder
 * and list it in `builtinTools`; the catalog validates it when the provider loads.
 */
import { BUILTIN_PROVIDER } from '../../../shared/capability';
import type { Provider } from '../../catalog/provider';
import type { ToolDefinition } from '../../catalog/tool';
import type { Database } from '../../store/database';
import { deviceInspectTool } from './deviceInspect';
import { DestinationPolicy } from './destinations';
import { httpCheckTool } from './httpCheck';
import { localStatusTool } from './localStatus';
import { noteAddTool, noteSearchTool } from './notes';
import { timeNowTool } from './timeNow';
import { todoAddTool, todoListTool } from './todos';

export { BUILTIN_PROVIDER, DestinationPolicy };

export interface BuiltinOptions {
  db: Database;
  dataDir: string;
  /** config.json's `httpCheck`: where http_check may connect besides public addresses. */
  httpCheck?: { allow: readonly string[] };
  /** http_check's destination policy, when the caller changes its allow list later (config.json edited live); built from `httpCheck` otherwise. */
  destinations?: DestinationPolicy;
}

export function builtinTools({ db, dataDir, httpCheck = { allow: [] }, destinations }: BuiltinOptions): ToolDefinition[] {
  return [
    timeNowTool,
    localStatusTool(dataDir),
    deviceInspectTool,
    noteAddTool(db),
    noteSearchTool(db),
    todoAddTool(db),
    todoListTool(db),
    httpCheckTool(destinations ?? new DestinationPolicy(httpCheck.allow)),
  ];
}

export function builtinProvider(options: BuiltinOptions): Provider {
  const tools = builtinTools(options);
  return { name: BUILTIN_PROVIDER, kind: 'builtin', load: () => ({ tools, skills: [], diagnostics: [] }) };
}
