/** What a provider supplies for each tool, before the catalog validates it into a contract. */
import type { RiskLevel, ToolAnnotations, ToolIcon } from '../../shared/capability';

export interface ToolRunContext {
  /** Aborted when the call times out or is cancelled; long-running tools must honour it. */
  signal: AbortSignal;
  requestId: string;
  /**
   * Whether Capstan treats the call as changing state (its contract's `mutating`, after tool
   * policy). A tool that cannot tell for sure that a stopped call stopped must then report the
   * outcome unknown rather than failed or cancelled.
   */
  mutating?: boolean | undefined;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  title: string;
  description: string;
  riskLevel: RiskLevel;
  needConfirm: boolean;
  /** True when a call changes state (writes data, sends something). */
  mutating: boolean;
  tags: string[];
  /** JSON Schema 2020-12 for the arguments object. */
  inputSchema: Record<string, unknown>;
  /** A real result of this tool, shown to operators and models before they call it. */
  returnExample: unknown;
  /** False keeps the tool out of model-facing discovery; defaults to true. */
  modelDiscoverable?: boolean;
  /** How long a call may take before it is aborted and reported as TOOL_FAILED. */
  timeoutMs?: number;
  // The fields below are for tools from outside Capstan (an MCP server); builtins leave them out.
  /**
   * The input schema was written elsewhere: it is compiled in the dialect its `$schema` names
   * (draft-07 or 2020-12, the default) and unknown keywords are ignored, as JSON Schema allows.
   * Capstan's own schemas are held to strict 2020-12.
   */
  externalSchema?: boolean;
  /** The JSON Schema of the result's `structuredContent`, when declared (null: none). */
  outputSchema?: Record<string, unknown> | null;
  /** The annotations as the tool's server declared them (null: none at all). */
  declared?: ToolAnnotations | null;
  deprecated?: boolean;
  /** The icons the server declared (absent or empty: none). */
  icons?: ToolIcon[];
  /** The tool's `_meta` as the server declared it (absent or empty: none). */
  meta?: Record<string, unknown> | undefined;
  /** Why Capstan cannot run this tool, when it cannot (it stays listed; calls are refused with TOOL_NOT_RUNNABLE). */
  notRunnable?: string;
  /**
   * The descriptor exactly as its provider sent it (an MCP server's Tool), for pinning: the
   * catalog holds a tool whose descriptor no longer matches its pin (services/pins.ts).
   */
  descriptor?: Record<string, unknown>;
  run(args: Args, context: ToolRunContext): Promise<unknown> | unknown;
}

/**
 * Thrown by a tool when an argument passes the schema but is still unusable (an unknown time
 * zone, say). The gateway reports it as ARGUMENT_INVALID naming the field.
 */
export class ToolArgumentError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Thrown by a tool that lost track of its call: the connection to the server that ran it dropped
 * mid-call, or the server neither answered nor acknowledged a cancellation in time. The call
 * ends `outcome_unknown`, and a mutating one arms its session's mutation gate.
 */
export class OutcomeUnknownError extends Error {}

/** Helps a provider keep its definitions typed while the catalog stores them uniformly. */
export const defineTool = <Args>(definition: ToolDefinition<Args>) => definition as unknown as ToolDefinition;
