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
import type { McpClientSide } from './clientSide';

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
  /** What Capstan declares and answers as this server's client, and keeps of what it says (clientSide.ts); one per server, across settings. */
  clientSide?: McpClientSide | undefined;
}

export function mcpSettings(name: string, entry: McpServerEntry, clientSide?: McpClientSide): McpSettings {
  return {
    name,
    entry,
    transport: transportOf(entry),
    enabled: entry.enabled ?? true,
    timeoutMs: entry.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
    toolTimeoutMs: entry.toolTimeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
    maxResultBytes: entry.maxResultBytes ?? DEFAULT_MCP_MAX_RESULT_BYTES,
    ...(clientSide ? { clientSide } : {}),
  };
}
