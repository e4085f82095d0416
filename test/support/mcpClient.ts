/** The official SDK v2 client against Capstan's MCP server, over Streamable HTTP or `capstan mcp` on stdio. */
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export type Era = 'legacy' | 'modern';

export interface McpTestClient {
  client: Client;
  /** How many `notifications/tools/list_changed` arrived so far. */
  listChanged(): number;
  /** Calls a tool and returns its result with `structuredContent` as a plain object. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { structuredContent?: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

/** 2025-era (`initialize`) or 2026-07-28 (`server/discover`, pinned so a fallback cannot hide a failure). */
function newClient(era: Era): Client {
  return new Client({ name: 'capstan-test', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
}

async function wrap(client: Client, connect: () => Promise<void>): Promise<McpTestClient> {
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void (changes += 1));
  await connect();
  return {
    client,
    listChanged: () => changes,
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as never,
    close: () => client.close(),
  };
}

export function connectHttp(url: string, token: string, era: Era = 'legacy'): Promise<McpTestClient> {
  const client = newClient(era);
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  return wrap(client, () => client.connect(transport));
}

/** `capstan mcp` as an MCP host launches it: a child process speaking MCP on its stdin and stdout. */
export function connectStdio(command: string, args: string[], env: Record<string, string>, era: Era = 'legacy'): Promise<McpTestClient & { stderr(): string }> {
  const client = newClient(era);
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return wrap(client, () => client.connect(transport)).then((wrapped) => ({ ...wrapped, stderr: () => stderr }));
}
