/**
 * The MCP sessions `/mcp` has issued (2025-era clients: an `Mcp-Session-Id` with each
 * `initialize` answer), and the requests in flight in them.
 *
 * A session lives until its client ends it (`DELETE /mcp`) or it has had no request for
 * `idleMs`; after that its id, like any id the gateway never issued or issued to another
 * principal, answers 404, as the specification requires, so the client starts a new one. Ending
 * a session finishes its Capstan task, on record (`onEnd`).
 *
 * Each request that can run a call is tracked under its JSON-RPC id, so that the client's
 * `notifications/cancelled` for it, or the client going away before its answer, aborts it. A
 * 2026-07-28 client keeps no session: its requests are tracked per principal.
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../../shared/principal';

export interface McpSession {
  readonly id: string;
  readonly principal: Principal;
  lastSeenMs: number;
  /** Requests in flight, by JSON-RPC id: aborting one cancels what it runs. */
  readonly inFlight: Map<string, AbortController>;
}

export type SessionEnd = 'deleted' | 'expired';

export interface McpSessionsOptions {
  idleMs: number;
  /** Told once per ended session, after it is gone (its id already answers 404). */
  onEnd(session: McpSession, how: SessionEnd): Promise<void>;
  now?: () => number;
}

/**
 * A JSON-RPC id as a map key: `1` and `"1"` are different ids. An id JSON-RPC does not allow (an
 * object, an array; its request is refused as invalid) keys by its type alone, without being walked:
 * a client's id nested thousands deep would overflow JSON.stringify's stack.
 */
export const keyOf = (id: unknown): string => (typeof id === 'string' || typeof id === 'number' || id === null ? JSON.stringify(id) : `(${typeof id})`);

export class McpSessions {
  readonly #sessions = new Map<string, McpSession>();
  /** Requests of clients without a session, per principal. */
  readonly #sessionless = new Map<Principal, Map<string, AbortController>>();
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(private readonly options: McpSessionsOptions) {
    this.#now = options.now ?? Date.now;
    // A sweep at a tenth of the idle time ends a session at most 10% late.
    this.#sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(60_000, options.idleMs / 10)));
    this.#sweeper.unref();
  }

  issue(principal: Principal): McpSession {
    const session: McpSession = { id: randomBytes(16).toString('base64url'), principal, lastSeenMs: this.#now(), inFlight: new Map() };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session under this id for this principal, seen now; undefined for any other id. */
  find(id: string, principal: Principal): McpSession | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.principal !== principal) return undefined;
    session.lastSeenMs = this.#now();
    return session;
  }

  /** How many sessions a principal holds now. */
  count(principal: Principal): number {
    let count = 0;
    for (const session of this.#sessions.values()) if (session.principal === principal) count += 1;
    return count;
  }

  /**
   * Tracks one request until `done`: `controller`, what the request runs, is aborted when the
   * client cancels it (`cancel`) or the session ends. A request reusing an id still in flight
   * replaces it.
   */
  track(session: McpSession | undefined, principal: Principal, id: unknown, controller: AbortController): { done(): void } {
    const requests = session?.inFlight ?? this.#sessionlessOf(principal);
    const key = keyOf(id);
    requests.set(key, controller);
    return {
      done: () => {
        if (requests.get(key) === controller) requests.delete(key);
        if (!session && requests.size === 0) this.#sessionless.delete(principal);
        if (session) session.lastSeenMs = this.#now();
      },
    };
  }

  /** The client's `notifications/cancelled`: aborts that request, if it is still in flight. */
  cancel(session: McpSession | undefined, principal: Principal, id: unknown, reason: string): boolean {
    const controller = (session?.inFlight ?? this.#sessionless.get(principal))?.get(keyOf(id));
    controller?.abort(reason);
    return controller !== undefined;
  }

  /** Ends a session: its id answers 404 from now on, its requests are aborted, its task is finished. */
  async end(session: McpSession, how: SessionEnd): Promise<void> {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    const why = how === 'deleted' ? 'the client ended its MCP session' : 'the MCP session expired';
    for (const controller of session.inFlight.values()) controller.abort(why);
    await this.options.onEnd(session, how);
  }

  /** Ends every session without a request in flight that has been idle for `idleMs`. */
  sweep(): void {
    const cutoff = this.#now() - this.options.idleMs;
    for (const session of [...this.#sessions.values()]) {
      if (session.inFlight.size === 0 && session.lastSeenMs <= cutoff) void this.end(session, 'expired').catch(() => undefined);
    }
  }

  /** Stops the sweep. Sessions end with the process: its next start closes their tasks as restarted. */
  close(): void {
    clearInterval(this.#sweeper);
    this.#sessions.clear();
    this.#sessionless.clear();
  }

  #sessionlessOf(principal: Principal): Map<string, AbortController> {
    let requests = this.#sessionless.get(principal);
    if (!requests) this.#sessionless.set(principal, (requests = new Map()));
    return requests;
  }
}
