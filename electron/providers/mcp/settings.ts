/**
 * One MCP server's settings: its config.json entry with Capstan's defaults filled in. The entry
 * itself stays as the operator wrote it (it is what gets saved back); this is what runs.
 */
import {
  DEFAULT_MCP_MAX_RESULT_BYTES,
  DEFAULT_MCP_TIMEOUT_MS,
  DEFAULT_MCP_TOOL_TIMEOUT_MS,
  transportOf,
  type McpServerEntry,
  type McpTransport,
} from '../../../shared/mcp';

export interface McpSettings {
  name: string;
  entry: McpServerEntry;
  transport: McpTransport;
  enabled: boolean;
  /** How long any request may go unanswered; progress on a tool call restarts the clock. */
  timeoutMs: number;
  /** The most one tool call may take, progress or not. */
  toolTimeoutMs: number;
  maxResultBytes: number;
}

export function mcpSettings(name: string, entry: McpServerEntry): McpSettings {
  return {
    name,
    entry,
    transport: transportOf(entry),
    enabled: entry.enabled ?? true,
    timeoutMs: entry.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
    toolTimeoutMs: entry.toolTimeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
    maxResultBytes: entry.maxResultBytes ?? DEFAULT_MCP_MAX_RESULT_BYTES,
  };
}
