/**
 * The protocol view's capture: every JSON-RPC message between Capstan and one server, both ways,
 * the last PROTOCOL_LOG_MESSAGES kept. It watches the SDK's transport in place (its `send` and
 * its `onmessage`), rather than wrapping it in another object, because the SDK treats a stdio
 * transport differently (it probes in place and reads a lost probe as a 2025 server) and knows
 * one by its own fields.
 *
 * Each message is tied to the Capstan call it belongs to: a request Capstan sends carries the
 * requestId in `_meta` (calls.ts); its response, the progress notifications naming its progress
 * token and a cancellation naming its id inherit it; a request the server sends while exactly
 * one call is in flight (an elicitation, say) is that call's.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { PROTOCOL_LOG_MESSAGES, PROTOCOL_MESSAGE_CHARS, type ProtocolLogView, type ProtocolMessage } from '../../../shared/protocolLog';
import { redactClipped } from './secrets';

type Id = string | number;
const PENDING_LIMIT = 1000;
interface Pending {
  method: string;
  at: number;
  requestId: string | null;
}

export class ProtocolLog {
  /** The newest messages, oldest first: up to twice PROTOCOL_LOG_MESSAGES, the view reading the last of them. */
  readonly #messages: ProtocolMessage[] = [];
  /** Messages kept so far; all but the last PROTOCOL_LOG_MESSAGES are dropped from the view. */
  #seq = 0;
  /** Requests each way awaiting their answer, by direction and id (cleared with each new connection). */
  #pending = new Map<string, Pending>();
  /** Progress tokens of Capstan's requests, to the request's Capstan requestId. */
  #progress = new Map<Id, string | null>();

  constructor(
    private readonly server: string,
    private readonly secrets: () => readonly string[],
  ) {}

  /** Starts watching a new connection's transport, before the client connects it. */
  capture(transport: Transport): void {
    this.#pending.clear();
    this.#progress.clear();
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.#record('out', message);
      return send(message, options);
    };
    let handler: Transport['onmessage'];
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      enumerable: true,
      get: () => handler,
      set: (next: Transport['onmessage']) => {
        handler = next
          ? (message, extra) => {
              this.#record('in', message);
              next(message, extra);
            }
          : next;
      },
    });
  }

  /** The Capstan requestIds of Capstan's calls awaiting their server's answer, oldest first. */
  callsInFlight(): string[] {
    return [...this.#pending.entries()].flatMap(([key, pending]) => (key.startsWith('out:') && pending.method === 'tools/call' && pending.requestId ? [pending.requestId] : []));
  }

  view({ q, requestId, limit }: { q?: string | undefined; requestId?: string | undefined; limit?: number | undefined } = {}): ProtocolLogView {
    const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const messages = this.#messages.slice(-PROTOCOL_LOG_MESSAGES).filter((message) => {
      if (requestId !== undefined && message.requestId !== requestId) return false;
      if (words.length === 0) return true;
      const text = `${message.method ?? ''} ${message.requestId ?? ''} ${message.json}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
    return { server: this.server, messages: limit === undefined ? messages : messages.slice(-limit), dropped: Math.max(0, this.#seq - PROTOCOL_LOG_MESSAGES) };
  }

  #record(direction: 'out' | 'in', message: JSONRPCMessage): void {
    try {
      this.#keep(this.#describe(direction, message as Record<string, unknown>));
    } catch {
      // A message that cannot be described (not JSON-able) is left out of the view, never out of the connection.
    }
  }

  #describe(direction: 'out' | 'in', message: Record<string, unknown>): ProtocolMessage {
    const json = JSON.stringify(message);
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    const method = typeof message.method === 'string' ? message.method : null;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    const now = Date.now();
    let kind: ProtocolMessage['kind'];
    let requestId: string | null = null;
    let shownMethod = method;
    let durationMs: number | null = null;
    if (method !== null && id !== null) {
      kind = 'request';
      requestId = typeof meta.requestId === 'string' ? meta.requestId : null;
      if (direction === 'in' && requestId === null) {
        // The server asks during a call (elicitation, sampling, roots): the call's, when only one is running.
        const running = this.callsInFlight();
        requestId = running.length === 1 ? running[0]! : null;
      }
      this.#pending.set(`${direction}:${id}`, { method, at: now, requestId });
      // Requests never answered (a server that drops them) must not pile up.
      if (this.#pending.size > PENDING_LIMIT) this.#pending.delete(this.#pending.keys().next().value!);
      const token = meta.progressToken;
      if (direction === 'out' && (typeof token === 'string' || typeof token === 'number')) this.#progress.set(token, requestId);
    } else if (method !== null) {
      kind = 'notification';
      if (method === 'notifications/progress') {
        const token = params.progressToken;
        requestId = typeof token === 'string' || typeof token === 'number' ? (this.#progress.get(token) ?? null) : null;
      } else if (method === 'notifications/cancelled') {
        const cancelled = params.requestId;
        // A request is cancelled by whoever sent it; no answer will come, so it no longer waits.
        const key = `${direction}:${String(cancelled)}`;
        requestId = typeof cancelled === 'string' || typeof cancelled === 'number' ? (this.#pending.get(key)?.requestId ?? null) : null;
        this.#pending.delete(key);
      }
    } else {
      kind = 'error' in message ? 'error' : 'response';
      // An answer goes the other way from its request.
      const key = `${direction === 'in' ? 'out' : 'in'}:${String(id)}`;
      const request = this.#pending.get(key);
      if (request) {
        this.#pending.delete(key);
        shownMethod = request.method;
        requestId = request.requestId;
        durationMs = now - request.at;
        if (request.method === 'tools/call') for (const [token, owner] of this.#progress) if (owner === requestId) this.#progress.delete(token);
      }
    }
    return {
      seq: ++this.#seq,
      at: new Date(now).toISOString(),
      direction,
      kind,
      method: shownMethod,
      id,
      size: Buffer.byteLength(json),
      durationMs,
      requestId,
      json: redactClipped(json, this.secrets(), PROTOCOL_MESSAGE_CHARS),
    };
  }

  #keep(message: ProtocolMessage): void {
    this.#messages.push(message);
    // Trimmed in one go now and then, not by one message per message: shifting the whole window
    // on every message was a fifth of what the log cost a busy server's calls (node --cpu-prof).
    if (this.#messages.length >= 2 * PROTOCOL_LOG_MESSAGES) this.#messages.splice(0, this.#messages.length - PROTOCOL_LOG_MESSAGES);
  }
}
