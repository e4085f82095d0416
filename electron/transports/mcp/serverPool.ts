/**
 * Idle Capstan MCP servers for 2025-era `POST /mcp` exchanges: a request borrows one and gives it
 * back once it has answered, instead of building one for itself (as the SDK's stateless serving
 * does). Handlers take their caller from each request (caller.ts), so one instance can serve any
 * caller's requests, one exchange at a time.
 *
 * Why not a fresh one per request: connecting a server assigns its transport callbacks to
 * properties (the SDK's `Protocol.connect`), and V8 allocates a function literal assigned to a
 * property straight in old space. Those closures hold the server until the next full GC, so each
 * request's server (about 7 KB) survived every scavenge and was promoted: most of the 6–7 MB the
 * young generation promoted per scavenge under `/mcp` load (docs/benchmarks.md). So a server is
 * connected once, when it is built, to a `Link` of its own, which hands what it sends to the
 * exchange it serves at the moment; no request connects anything.
 *
 * A server is only given back when it is safe to lend again: its exchange answered every request
 * (ids are unique within an exchange, so nothing of it still runs and nothing late can reach the
 * next exchange), and none of them was an `initialize`, the one request that leaves state in a
 * server (the client's capabilities and the negotiated revision). That holds only while the
 * server declares nothing that keeps per-client state of its own, which `lend` checks of every
 * server it builds: no `logging` (a level per session), no resource subscriptions.
 */
import type { JSONRPCMessage, MessageExtraInfo, Server, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

/** Idle servers kept for each kind; more than this many at once are built, then closed and let go. */
export const KEEP_IDLE = 32;

/** What a lent server answers into: one HTTP exchange (legacyExchange.ts). */
export interface ServerExchange {
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
  /** Ends the exchange; a request it never answered gets an error if it still can. */
  close(): Promise<void>;
}

export class McpServerPool {
  readonly #idle = new Map<boolean, Link[]>([
    [false, []],
    [true, []],
  ]);

  /** `build(dynamic)` makes a server that lists loaded tools (`dynamic`) or does not (server.ts). */
  constructor(private readonly build: (dynamic: boolean) => Server) {}

  /** An idle server of the kind asked for, or a new one, now serving `exchange`. */
  async lend(dynamic: boolean, exchange: ServerExchange): Promise<Lease> {
    let link = this.#idle.get(dynamic)!.pop();
    if (!link) {
      link = new Link(lendable(this.build(dynamic)));
      await link.server.connect(link);
    }
    link.exchange = exchange;
    return new Lease(this, dynamic, link);
  }

  /** Takes back a server whose exchange ended, safe to lend again (see above). */
  keep(dynamic: boolean, link: Link): void {
    // A server closed meanwhile answers nothing any more: never lend it again.
    if (link.server.transport !== link) return;
    const idle = this.#idle.get(dynamic)!;
    if (idle.length < KEEP_IDLE) idle.push(link);
    else void link.server.close();
  }

  get idle(): number {
    return this.#idle.get(false)!.length + this.#idle.get(true)!.length;
  }
}

/** One exchange's use of a server. */
export class Lease {
  #ended = false;

  constructor(
    private readonly pool: McpServerPool,
    private readonly dynamic: boolean,
    private readonly link: Link,
  ) {}

  get server(): Server {
    return this.link.server;
  }

  /** Hands one of the request's messages to the server. */
  deliver(message: JSONRPCMessage, extra: MessageExtraInfo): void {
    this.link.onmessage?.(message, extra);
  }

  /**
   * Ends the exchange. A server that is `reusable` (it answered everything, and nothing of it was
   * an `initialize`) goes back to the pool; any other is closed, which aborts whatever it still
   * runs, and let go.
   */
  async end(reusable: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    const { link } = this;
    if (!reusable) return link.server.close();
    const exchange = link.exchange;
    link.exchange = undefined;
    await exchange?.close();
    this.pool.keep(this.dynamic, link);
  }
}

/**
 * A lent server's one connection: what the server sends goes to the exchange it serves now, and
 * nowhere between two exchanges (there is nothing of an earlier one left to send: see above).
 */
class Link implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  exchange: ServerExchange | undefined;

  constructor(readonly server: Server) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    await this.exchange?.send(message, options);
  }

  async close(): Promise<void> {
    const exchange = this.exchange;
    this.exchange = undefined;
    await exchange?.close();
    this.onclose?.();
  }
}

function lendable(server: Server): Server {
  const { logging, resources } = server.getCapabilities();
  if (logging !== undefined || resources?.subscribe) throw new Error('A server that keeps per-client state (logging, resource subscriptions) cannot be lent from request to request');
  return server;
}
