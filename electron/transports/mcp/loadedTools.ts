/**
 * The tools an MCP client has loaded, listed under their own names in that client's `tools/list`.
 *
 * "That client" is the Capstan session its operations run in, which only a client that keeps a
 * session has (a 2025-era client presenting the Mcp-Session-Id the gateway issued at initialize,
 * and `capstan mcp`): the server itself stays stateless, and this is the one thing the MCP entry
 * remembers between requests. A loaded tool belongs to the task it was loaded in: once the
 * session's operations report another task, what the old one loaded leaves the list. A call
 * that finds a tool no longer loaded or stale drops it too. The runtime stays the judge either
 * way: a listed tool is called by its reference, which the call path verifies.
 *
 * Kept for the sessions the gateway has open, and for as long as each is (`open` as it is issued,
 * `close` as it ends): each agent's sessions are bounded by its quota, so no agent's churn can
 * push another's loaded tools out, and an ended session leaves nothing behind.
 */
import type { CapabilityReference, ToolContract } from '../../../shared/capability';
import { CAPSTAN_TOOLS, toolAnnotations, type McpTool } from '../../../shared/mcpTools';

interface Loaded {
  reference: CapabilityReference;
  descriptor: McpTool;
}

interface SessionTools {
  /** The task its operations run in, once one has reported it. */
  taskId: string | undefined;
  byName: Map<string, Loaded>;
}

export class LoadedTools {
  readonly #sessions = new Map<string, SessionTools>();

  /** A session the gateway just issued: it may list tools from now on. */
  open(sessionId: string): void {
    if (!this.#sessions.has(sessionId)) this.#sessions.set(sessionId, { taskId: undefined, byName: new Map() });
  }

  /** The session ended: its list goes with it. */
  close(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  list(sessionId: string): McpTool[] {
    return [...(this.#sessions.get(sessionId)?.byName.values() ?? [])].map((loaded) => loaded.descriptor);
  }

  reference(sessionId: string, name: string): CapabilityReference | undefined {
    return this.#sessions.get(sessionId)?.byName.get(name)?.reference;
  }

  /**
   * Lists a tool the session's task just loaded; false when it was listed already under the same
   * reference, or when the session is not open (it ended while the tool was being loaded).
   */
  add(sessionId: string, taskId: string, contract: ToolContract, reference: CapabilityReference): boolean {
    this.observe(sessionId, taskId);
    const session = this.#sessions.get(sessionId);
    if (!session) return false;
    const existing = [...session.byName].find(([, loaded]) => loaded.reference.id === contract.id);
    if (existing && sameReference(existing[1].reference, reference)) return false;
    const name = existing?.[0] ?? freeName(contract, session.byName);
    session.byName.set(name, { reference, descriptor: describe(name, contract) });
    return true;
  }

  /** Drops a listed tool; true when it was listed. */
  remove(sessionId: string, name: string): boolean {
    return this.#sessions.get(sessionId)?.byName.delete(name) ?? false;
  }

  /** The session's operations now run in `taskId`: what another task loaded is gone. True when the list changed. */
  observe(sessionId: string, taskId: string): boolean {
    const session = this.#sessions.get(sessionId);
    if (!session || session.taskId === taskId) return false;
    const changed = session.byName.size > 0;
    session.taskId = taskId;
    session.byName.clear();
    return changed;
  }
}

const sameReference = (a: CapabilityReference, b: CapabilityReference) =>
  a.id === b.id && a.catalogGeneration === b.catalogGeneration && a.contractHash === b.contractHash && a.bindingGeneration === b.bindingGeneration;

/** Its own name, unless a Capstan tool or another loaded tool has it: then `<provider>.<name>`. */
function freeName(contract: ToolContract, taken: ReadonlyMap<string, Loaded>): string {
  const free = (name: string) => !CAPSTAN_TOOLS.has(name) && !taken.has(name);
  if (free(contract.name)) return contract.name;
  const qualified = `${contract.provider}.${contract.name}`.slice(0, 128);
  return free(qualified) ? qualified : `${qualified.slice(0, 120)}.${taken.size}`;
}

/**
 * The tool as its provider declared it (title, icons, annotations, output), tightened by what
 * Capstan decided (shared/mcpTools.ts toolAnnotations), with Capstan's facts added to the description.
 */
function describe(name: string, contract: ToolContract): McpTool {
  const approval = contract.needConfirm ? " A call waits for the operator's approval." : '';
  const outputSchema = callOutputSchema(contract.outputSchema);
  return {
    name,
    title: contract.title,
    description: `${contract.description} (Capstan: ${contract.id}, risk ${contract.riskLevel}.${approval})`,
    inputSchema: { ...contract.inputSchema, type: 'object' },
    ...(outputSchema ? { outputSchema } : {}),
    annotations: toolAnnotations(contract),
    ...(contract.icons?.length ? { icons: contract.icons } : {}),
  };
}

/**
 * A call to a loaded tool answers with Capstan's call response as its `structuredContent`
 * (`{ ok, requestId, taskId, durationMs, result }`, transports/mcp/server.ts), not the provider's
 * own, and clients check `structuredContent` against the advertised outputSchema. So the provider's
 * schema is advertised where its structured result really is, `result.structuredContent`, inside a
 * schema of the response. Only a self-contained schema is nested (a `$ref`, `$id` or anchor would
 * resolve against the wrong root); otherwise none is advertised, and capabilities_inspect still
 * gives the provider's schema as declared.
 */
export function callOutputSchema(declared: Record<string, unknown> | null | undefined): McpTool['outputSchema'] {
  if (!declared || !selfContained(declared)) return undefined;
  const { $schema: _dialect, ...schema } = declared;
  return {
    type: 'object',
    properties: {
      ok: { type: 'boolean' },
      requestId: { type: 'string' },
      taskId: { type: 'string' },
      durationMs: { type: 'number' },
      result: {
        type: 'object',
        description: "The provider's answer: its content blocks, and its structuredContent as its outputSchema describes it.",
        properties: { content: { type: 'array' }, structuredContent: schema },
        required: ['content'],
      },
    },
    required: ['ok', 'requestId', 'taskId', 'result'],
  };
}

const REFERENCES = new Set(['$ref', '$dynamicRef', '$recursiveRef', '$id', '$anchor', '$dynamicAnchor', '$recursiveAnchor']);

function selfContained(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (Array.isArray(value)) return value.every((item) => selfContained(item, depth + 1));
  if (typeof value !== 'object' || value === null) return true;
  return Object.entries(value).every(([key, item]) => !REFERENCES.has(key) && selfContained(item, depth + 1));
}
