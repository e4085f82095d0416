/**
 * `capstan mcp`'s connection to the gateway: an SDK client on `/mcp` under the agent's token, in
 * one HTTP session (so one Capstan session). When the gateway goes away (stopped, restarted by
 * its operator), the call that finds it gone answers GATEWAY_UNREACHABLE, and the next one
 * reaches the data dir's gateway anew, started if none runs. That is a new session: what the
 * old one loaded is gone, so the host is told its tool list changed. A session the gateway ended
 * (idle too long) is replaced the same way, without the host noticing more than that.
 */
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SERVER_INFO } from '../../shared/mcpTools';
import { OutputSchemaValidator } from '../providers/mcp/outputSchemas';
import { MCP_PATH } from './localGateway';

interface Connection {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export class Upstream {
  #connection: Promise<Connection> | undefined;

  constructor(
    /** The URL of the data dir's gateway, found or started. */
    private readonly gateway: () => Promise<string>,
    private readonly token: string,
    private readonly onListChanged: () => void,
  ) {}

  /** Runs `work` on the connection; a gateway that stopped answering is reported and dropped. */
  async use<T>(work: (client: Client) => Promise<T>, retried = false): Promise<T> {
    const connecting = (this.#connection ??= this.#connect());
    const { client } = await connecting;
    try {
      return await work(client);
    } catch (error) {
      // The gateway no longer knows the session (it expired while the host was idle, or the
      // gateway restarted): nothing ran, so the call goes again once, in a new session.
      if (!retried && sessionGone(error)) {
        this.#drop(connecting, client);
        return this.use(work, true);
      }
      if (!unreachable(error)) throw error;
      this.#drop(connecting, client);
      throw new GatewayUnreachable(error);
    }
  }

  /** Forgets a connection that no longer serves (once, however many calls found it so); what it loaded is gone. */
  #drop(connecting: Promise<Connection>, client: Client): void {
    if (this.#connection !== connecting) return;
    this.#connection = undefined;
    void client.close().catch(() => undefined);
    this.onListChanged();
  }

  /** Ends the session (its task is finished: DELETE /mcp) and the connection. */
  async close(warn: (message: string) => void): Promise<void> {
    const connection = await this.#connection?.catch(() => undefined);
    if (!connection) return;
    await connection.transport.terminateSession().catch((error: Error) => warn(`could not end the session: ${error.message}`));
    await connection.client.close();
  }

  async #connect(): Promise<Connection> {
    const url = await this.gateway();
    // The tools it relays carry their providers' output schemas: checked with the gateway's own
    // linear-time validator, so a hostile pattern cannot freeze the relay either.
    const client = new Client({ name: 'capstan-mcp', version: SERVER_INFO.version }, { jsonSchemaValidator: new OutputSchemaValidator() });
    const transport = new StreamableHTTPClientTransport(new URL(MCP_PATH, url), { requestInit: { headers: { authorization: `Bearer ${this.token}` } } });
    client.setNotificationHandler('notifications/tools/list_changed', () => this.onListChanged());
    try {
      await client.connect(transport);
    } catch (error) {
      this.#connection = undefined;
      throw error;
    }
    return { client, transport };
  }
}

/** The gateway did not answer: the call may or may not have run (its requestId is in the ledger if it did). */
export class GatewayUnreachable extends Error {
  static readonly reason = 'the Capstan gateway stopped answering; the call may or may not have run. The next call reconnects, in a new session: discover and load again';
  constructor(cause: unknown) {
    super(`GATEWAY_UNREACHABLE: ${GatewayUnreachable.reason}`, { cause });
  }
}

/** A 404 on the session: the gateway ended it (expired, or a restart forgot it), as MCP's Streamable HTTP says. */
const sessionGone = (error: unknown): boolean => error instanceof SdkHttpError && error.status === 404;

/** A connection refused or cut, as fetch reports it (its cause carries the socket's code). */
function unreachable(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || cause.message === 'fetch failed') return true;
  }
  return false;
}
