/**
 * One live connection to an MCP server, through the official SDK v2 client: stdio (a child
 * process Capstan starts, its stderr kept in a bounded tail) or Streamable HTTP. The protocol
 * revision is negotiated (`versionNegotiation: 'auto'`): a 2026-07-28 server is spoken to in its
 * revision, a 2025 one in its own. A verdict from an earlier connection can be handed back
 * (`prior`) to skip the probe. A connection is opened once and closed once; reconnecting is a
 * new connection (the provider's business). A tool's `structuredContent` is checked against its
 * `outputSchema` with RE2 for patterns, never the SDK's own Ajv and backtracking `RegExp`
 * (outputSchemas.ts).
 */
import { Client, SdkError, SdkErrorCode, StreamableHTTPClientTransport, type PriorDiscovery, type Tool, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { childEnvironment } from '../childEnvironment';
import { OutputSchemaValidator } from './outputSchemas';
import type { HttpAuth } from './oauth/bearer';
import type { McpSettings } from './settings';
import type { StderrTail } from './stderrTail';

export const CLIENT_INFO = { name: 'capstan', version: '0.1.0' };
/** How long one burst of list_changed notifications is gathered into one reload. */
const LIST_CHANGED_DEBOUNCE_MS = 100;
/** A server gets at least this long to start and answer its first exchange, whatever its `timeoutMs`. */
export const CONNECT_TIMEOUT_MS = 30_000;

/**
 * The SDK probes a server on its base stdio transport from a second, throwaway process (for
 * servers that exit on a request before `initialize`), and on a subclass in place. In place
 * halves the processes started per connection; a server that does exit on the probe fails that
 * attempt, and the provider's next attempt skips the probe (the plain 2025 handshake).
 */
class InPlaceStdioTransport extends StdioClientTransport {}

export interface ConnectionEvents {
  /** The connection ended without Capstan closing it: the process exited, the stream dropped. */
  onLost(reason: string): void;
  /** The server announced notifications/tools/list_changed. */
  onToolsChanged(): void;
  stderr: StderrTail;
}

export class McpConnection {
  #closing = false;

  private constructor(
    readonly client: Client,
    private readonly transport: Transport,
    /** What the client checks results against: the provider prepares it with each listing. */
    readonly outputSchemas: OutputSchemaValidator,
  ) {}

  /** `auth`: an OAuth-protected URL server's bearer token and refresh (oauth/bearer.ts). */
  static async open(settings: McpSettings, events: ConnectionEvents, prior?: PriorDiscovery, auth?: HttpAuth): Promise<McpConnection> {
    const transport = createTransport(settings, events.stderr, auth);
    const outputSchemas = new OutputSchemaValidator();
    const side = settings.clientSide;
    const client = new Client(CLIENT_INFO, {
      // Exactly what the client side answers (clientSide.ts): a server shows the tools it would to any client declaring the same.
      capabilities: side?.capabilities() ?? {},
      versionNegotiation: { mode: 'auto' },
      jsonSchemaValidator: outputSchemas,
      listChanged: { tools: { autoRefresh: false, debounceMs: LIST_CHANGED_DEBOUNCE_MS, onChanged: () => events.onToolsChanged() } },
    });
    const connection = new McpConnection(client, transport, outputSchemas);
    side?.prepare(client, transport);
    client.onclose = () => {
      side?.disconnected(client);
      if (!connection.#closing) events.onLost(settings.transport === 'stdio' ? 'the server process exited' : 'the connection to the server closed');
    };
    // Out-of-band reports (a late answer to a cancelled call, a stray progress): nothing to act on.
    client.onerror = () => {};
    try {
      await client.connect(transport, { timeout: Math.max(settings.timeoutMs, CONNECT_TIMEOUT_MS), ...(prior ? { prior } : {}) });
    } catch (error) {
      await connection.close();
      throw error;
    }
    await side?.connected(client, settings.timeoutMs);
    return connection;
  }

  /**
   * Whether a call to this tool runs as an MCP task: always when the tool requires it; when it
   * only allows it, if the server declares task-augmented tools/call (then the call's status shows
   * and its cancellation is acknowledged). As the catalog's tool says, not the latest listing's
   * tool of that name (a server may list two).
   */
  runsAsTask(tool: Tool): boolean {
    const support = tool.execution?.taskSupport;
    const declared = (this.client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks?.requests?.tools?.call !== undefined;
    return support === 'required' || (support === 'optional' && declared);
  }

  /** A stdio server's process id (for diagnostics and tests); null over HTTP. */
  get pid(): number | null {
    return this.transport instanceof StdioClientTransport ? this.transport.pid : null;
  }

  /** The negotiated protocol revision: `2026-07-28`, `2025-11-25`… */
  get protocolVersion(): string | null {
    return this.client.getNegotiatedProtocolVersion() ?? null;
  }

  /** What was negotiated, to hand back to the next connection to the same server. */
  get verdict(): PriorDiscovery {
    const discover = this.client.getDiscoverResult();
    return this.client.getProtocolEra() === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  }

  /** Every tool, across every page the server hands out. */
  async listTools(timeoutMs: number): Promise<Tool[]> {
    const { tools } = await this.client.listTools(undefined, { cacheMode: 'refresh', timeout: timeoutMs });
    return tools;
  }

  /**
   * Does the server answer at all? A `ping` on a 2025 connection, `server/discover` on a
   * 2026-07-28 one (which has no ping). Messages on one connection are handled in order, so an
   * answer also says the server has read everything sent before it (a cancellation, say).
   */
  async probe(timeoutMs: number): Promise<void> {
    if (this.client.getProtocolEra() === 'modern') await this.client.discover({ timeout: timeoutMs });
    else await this.client.ping({ timeout: timeoutMs });
  }

  /**
   * Ends the connection. A child process gets SIGTERM at once when `now` (Capstan is quitting),
   * else the SDK's orderly end (stdin closed, then SIGTERM, then SIGKILL); either way this
   * resolves when the process is gone.
   */
  async close({ now = false }: { now?: boolean } = {}): Promise<void> {
    this.#closing = true;
    const pid = this.pid;
    if (now && pid !== null) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    if (this.transport instanceof StreamableHTTPClientTransport) await this.transport.terminateSession().catch(() => {});
    await this.client.close().catch(() => {});
  }
}

function createTransport(settings: McpSettings, stderr: StderrTail, auth?: HttpAuth): Transport {
  const { entry } = settings;
  if (settings.transport === 'http') {
    return new StreamableHTTPClientTransport(new URL(entry.url!), { requestInit: { headers: entry.headers ?? {} }, ...(auth ? { authProvider: auth.authProvider, fetch: auth.fetch } : {}) });
  }
  const transport = new InPlaceStdioTransport({
    command: entry.command!,
    args: entry.args ?? [],
    // Only an allowed few of Capstan's own variables (PATH, HOME…), never its token.
    env: childEnvironment(entry.env),
    ...(entry.cwd ? { cwd: entry.cwd } : {}),
    stderr: 'pipe',
    // Room for a result somewhat over the limit, so it is refused as RESULT_TOO_LARGE rather than dropping the connection.
    maxBufferSize: Math.max(10 * 1024 * 1024, 4 * settings.maxResultBytes),
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
  return transport;
}

/** The SDK's own timeout, as opposed to an abort, a lost connection or an error from the server. */
export const isTimeout = (error: unknown) => error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
/** The revision probe failed: the connection closed under it (a server that exits when probed). */
export const probeFailed = (error: unknown) => error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
export const isConnectionLost = (error: unknown) =>
  error instanceof SdkError && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected || error.code === SdkErrorCode.SendFailed);
