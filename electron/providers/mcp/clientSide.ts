/**
 * Capstan as the client of one MCP server: what it declares it can do, and the handlers that
 * keep that promise. One per configured server, outliving its connections: its log lines, its
 * protocol messages and its roots carry over a reconnect.
 *
 * - roots: the entry's `roots` (absolute folders, none by default) answer `roots/list` as
 *   file:// URIs; a change made without reconnecting is announced with
 *   `notifications/roots/list_changed`.
 * - logging: each `notifications/message` goes to the server's log (serverLog.ts); the level the
 *   operator chose is asked for again on every connection.
 * - the protocol view: every message, both ways (protocolLog.ts).
 * - elicitation and sampling: declared only when the host gives a way to put them to the
 *   operator (`asks`), never answered by Capstan itself.
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client, ClientCapabilities, Transport } from '@modelcontextprotocol/client';
import type { LogLevel } from '../../../shared/serverLog';
import type { ServerLogLine } from '../../../shared/serverLog';
import { installAskHandlers, type AskOperator } from './asks';
import { ProtocolLog } from './protocolLog';
import { ServerLog } from './serverLog';

export interface ClientSideParts {
  server: string;
  roots: readonly string[];
  secrets(): readonly string[];
  onLogLine(line: ServerLogLine): void;
  /** How the server's elicitation and sampling requests reach the operator; without it, neither is declared. */
  ask?: AskOperator | undefined;
}

/**
 * What Capstan declares to a server: roots (with list_changed), and, when the operator can be
 * asked, form elicitation (SEP-1034 defaults applied to what the operator leaves out), URL
 * elicitation and sampling answered by hand, each also as a task the server polls.
 */
export function declaredCapabilities(asks: boolean): ClientCapabilities {
  return {
    roots: { listChanged: true },
    ...(asks
      ? {
          elicitation: { form: { applyDefaults: true }, url: {} },
          sampling: {},
          // Both may be asked for as tasks of Capstan's, which the server then polls (asks.ts).
          tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} }, sampling: { createMessage: {} } } },
        }
      : {}),
  };
}

export class McpClientSide {
  readonly log: ServerLog;
  readonly protocol: ProtocolLog;
  #roots: readonly string[];
  /** The connected client, while there is one. */
  #client: Client | undefined;
  /** Capstan's calls to the server now running, by requestId: aborted when each ends, withdrawing what the server asked during it. */
  readonly #calls = new Map<string, AbortController>();

  constructor(private readonly parts: ClientSideParts) {
    this.#roots = [...parts.roots];
    this.log = new ServerLog({ server: parts.server, secrets: parts.secrets, onLine: parts.onLogLine });
    this.protocol = new ProtocolLog(parts.server, parts.secrets);
  }

  /** Exactly what the handlers below answer. */
  capabilities(): ClientCapabilities {
    return declaredCapabilities(this.parts.ask !== undefined);
  }

  /** Sets up a new connection's handlers and capture, before it connects. */
  prepare(client: Client, transport: Transport): void {
    this.protocol.capture(transport);
    client.setRequestHandler('roots/list', () => ({ roots: this.#roots.map((path) => ({ uri: pathToFileURL(path).href, name: basename(path) || path })) }));
    client.setNotificationHandler('notifications/message', (notification) => this.log.add(notification.params));
    if (this.parts.ask) installAskHandlers(client, { server: this.parts.server, ask: this.parts.ask, callFor: () => this.#callNow() });
  }

  /**
   * A call to the server starts (calls.ts): what the server asks while it runs belongs to it, and
   * is withdrawn when it ends. Returns the function that says it ended.
   */
  callStarted(requestId: string): () => void {
    const running = new AbortController();
    this.#calls.set(requestId, running);
    return () => {
      running.abort('its call ended');
      if (this.#calls.get(requestId) === running) this.#calls.delete(requestId);
    };
  }

  /** The call a request from the server belongs to: the one running, when exactly one is. */
  #callNow(): { requestId: string | null; ended: AbortSignal | null } {
    if (this.#calls.size !== 1) return { requestId: null, ended: null };
    const [requestId, running] = [...this.#calls][0]!;
    return { requestId, ended: running.signal };
  }

  /** The connection is up: the operator's log level is asked for again. */
  async connected(client: Client, timeoutMs: number): Promise<void> {
    this.#client = client;
    this.log.supported = client.getServerCapabilities()?.logging !== undefined;
    if (this.log.level && this.log.supported) await client.setLoggingLevel(this.log.level, { timeout: timeoutMs }).catch(() => {});
  }

  disconnected(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.log.supported = null;
  }

  roots(): readonly string[] {
    return this.#roots;
  }

  /** New roots: the connected server is told they changed (it asks `roots/list` again). */
  setRoots(roots: readonly string[]): void {
    if (sameList(roots, this.#roots)) return;
    this.#roots = [...roots];
    void this.#client?.sendRootsListChanged().catch(() => {});
  }

  /** The operator's log level: kept, and sent to the connected server when it takes one. Resolves once the server answered. */
  async setLogLevel(level: LogLevel, timeoutMs: number): Promise<void> {
    this.log.level = level;
    if (this.#client && this.log.supported) await this.#client.setLoggingLevel(level, { timeout: timeoutMs });
  }
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, index) => value === b[index]);
