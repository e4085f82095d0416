/**
 * The tools a Harn script sees through `host/tools/list`, and the name it calls one by. A script
 * sees its task's snapshot through its grants, like any model: a tool is listed when the task
 * holds `load` or more on it and it is neither revoked nor of a disabled provider, in exactly the
 * seed's normalized form `{ name, description, schema, deprecated }`.
 *
 * Names: a tool is listed under its own name. Where two listed tools share a name, the one whose
 * provider was registered first (builtin, then skills, then MCP servers in config.json's order)
 * keeps it and every later one is listed under its capability id (`fixture:echo`); either form
 * is accepted by `builtin_call`.
 */
import type { ToolContract } from '../../shared/capability';
import type { Catalog } from '../catalog/catalog';
import type { SnapshotEntry } from '../catalog/snapshot';
import { outranks } from '../runtime/grants';
import type { RunningTask } from '../runtime/task';

/** What `host/tools/list` answers for each tool. */
export interface HostTool {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  deprecated: boolean;
}

type ToolEntry = SnapshotEntry & { contract: ToolContract };

const isTool = (entry: SnapshotEntry): entry is ToolEntry => entry.contract.kind === 'tool';

/** The listed tools of a task, by the name the script uses, in listing order. */
export function hostToolNames(catalog: Catalog, task: RunningTask): Map<string, ToolEntry> {
  const providerOrder = new Map(catalog.providers().map((provider, index) => [provider.name, index]));
  const order = (entry: ToolEntry) => providerOrder.get(entry.contract.provider) ?? Number.MAX_SAFE_INTEGER;
  const listed = task.snapshot.entries
    .filter(isTool)
    .filter(({ contract }) => !outranks('load', task.grants.held(contract.id, 'tool')) && catalog.isEnabled(contract.provider) && !catalog.isRevoked(contract.id))
    // Stable: the snapshot is in canonical id order, so equal providers keep it.
    .sort((a, b) => order(a) - order(b));
  const byName = new Map<string, ToolEntry>();
  for (const entry of listed) byName.set(byName.has(entry.contract.name) ? entry.contract.id : entry.contract.name, entry);
  return byName;
}

export function hostTools(catalog: Catalog, task: RunningTask): HostTool[] {
  return [...hostToolNames(catalog, task)].map(([name, { contract }]) => ({
    name,
    description: contract.description,
    schema: contract.inputSchema,
    deprecated: contract.deprecated ?? false,
  }));
}

/**
 * The snapshot entry a `builtin_call` names: a listed name first; else a tool of the snapshot
 * under that id or name which the listing left out (revoked, disabled, granted too little), so
 * the call is refused for what it is rather than as unknown; else none.
 */
export function findHostTool(catalog: Catalog, task: RunningTask, name: string): ToolEntry | undefined {
  const listed = hostToolNames(catalog, task).get(name);
  if (listed) return listed;
  const tools = task.snapshot.entries.filter(isTool);
  const seen = (entry: ToolEntry) => task.grants.held(entry.contract.id, 'tool') !== 'none';
  return tools.find((entry) => entry.contract.id === name && seen(entry)) ?? tools.find((entry) => entry.contract.name === name && seen(entry));
}
