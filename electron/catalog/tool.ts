/** What a provider supplies for each tool, before the catalog validates it into a contract. */
import type { RiskLevel } from '../../shared/capability';

export interface ToolRunContext {
  /** Aborted when the call times out or is cancelled; long-running tools must honour it. */
  signal: AbortSignal;
  requestId: string;
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

/** Helps a provider keep its definitions typed while the catalog stores them uniformly. */
export const defineTool = <Args>(definition: ToolDefinition<Args>) => definition as unknown as ToolDefinition;
