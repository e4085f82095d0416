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
 * young generation promoted per scavenge under `/mcp` load (docs/benchmarks.md).
 *
 * A server is only given back when it is safe to lend again: its exchange answered every request
 * (ids are unique within an exchange, so nothing of it still runs and nothing late can reach the
 * next exchange), and none of them was an `initialize`, the one request that leaves state in a
 * server (the client's capabilities and the negotiated revision). That holds only while the
 * server declares nothing that keeps per-client state of its own, which `borrow` checks of every
 * server it builds: no `logging` (a level per session), no resource subscriptions.
 */
import type { Server } from '@modelcontextprotocol/server';

/** Idle servers kept for each kind; more than this many at once are built and let go. */
export const KEEP_IDLE = 32;

export class McpServerPool {
  readonly #idle = new Map<boolean, Server[]>([
    [false, []],
    [true, []],
  ]);

  /** `build(dynamic)` makes a server that lists loaded tools (`dynamic`) or does not (server.ts). */
  constructor(private readonly build: (dynamic: boolean) => Server) {}

  borrow(dynamic: boolean): Server {
    return this.#idle.get(dynamic)!.pop() ?? lendable(this.build(dynamic));
  }

  /** Takes back a server that is closed (no transport) and safe to lend again (see above). */
  giveBack(dynamic: boolean, server: Server): void {
    const idle = this.#idle.get(dynamic)!;
    if (server.transport === undefined && idle.length < KEEP_IDLE) idle.push(server);
  }

  get idle(): number {
    return this.#idle.get(false)!.length + this.#idle.get(true)!.length;
  }
}

function lendable(server: Server): Server {
  const { logging, resources } = server.getCapabilities();
  if (logging !== undefined || resources?.subscribe) throw new Error('A server that keeps per-client state (logging, resource subscriptions) cannot be lent from request to request');
  return server;
}
