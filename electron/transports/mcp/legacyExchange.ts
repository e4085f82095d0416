/**
 * One 2025-era `POST /mcp`, served as the SDK's stateless legacy serving serves it (a server of
 * its own for the request over a Streamable HTTP transport, with its checks and its errors) but
 * written straight to the Node response, through Fastify so the gateway's response hooks still
 * apply. The server is borrowed from a pool and given back once it has answered (serverPool.ts).
 *
 * The answer is one JSON body when it is ready first, as the Streamable HTTP transport lets a
 * server answer a client that accepts both. It becomes an SSE stream, opened by its priming event
 * (SEP-1699) for clients that read one, only when the server sends something before it (progress,
 * `notifications/tools/list_changed`) or when it is not ready within `STREAM_AFTER_MS`, so a call
 * waiting for approval shows its client a live stream, kept alive by comments.
 *
 * Why not the SDK's own fallback: per call it built a web Request, a ReadableStream and its SSE
 * framing, re-read through a monitoring stream and Fastify's web-stream sender, and every answer
 * was an SSE stream the client parsed again. That was 40% of the gateway's CPU for an agent's
 * call over `/mcp` (`npm run bench mcp`, docs/benchmarks.md).
 *
 * A lone `tools/call` whose params are plainly well formed (a name, an arguments object, `_meta`
 * with at most a progress token of the right type beside other keys) is answered by the same
 * function the server's handler calls (server.ts `answerToolCall`), without a server of the pool:
 * the server would only check again what is checked here, by trying the message against each of
 * JSON-RPC's shapes, then the request and the result against MCP's schemas (zod, 5% of an agent's
 * call). Anything else, and any error the SDK words itself, goes to a server as before.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import {
  isJsonContentType,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  type AuthInfo,
  type CallToolResult,
  type JSONRPCMessage,
  type ProgressToken,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Lease, McpServerPool, ServerExchange } from './serverPool';
import type { ToolCallExchange, ToolCallParams } from './server';
import { keyOf } from './sessions';

/** How long an answer may take before its client is shown a live stream instead. */
const STREAM_AFTER_MS = 1000;
/** How often a comment keeps an open stream from looking dead to proxies and clients. */
const KEEP_ALIVE_MS = 15_000;
/** As the SDK's transport: a batch of more messages is refused. */
const MAX_BATCH_SIZE = 100;
/** The first revision whose clients read an SSE event with empty data (a priming event). */
const PRIMING_SINCE = '2025-11-25';

export interface LegacyExchangeOptions {
  /** Where the request's server comes from, and goes back to. */
  servers: McpServerPool;
  /** Whether the server lists loaded tools (server.ts `listsLoadedTools`). */
  dynamic: boolean;
  authInfo: AuthInfo;
  /** How soon a client whose stream broke should come back (the priming event's `retry:`). */
  retryMs: number;
  /** Answers a plainly well-formed `tools/call` without a server (server.ts `answerToolCall`, for this request's caller); without it, a server does. */
  answerToolCall?: ((params: ToolCallParams, exchange: Omit<ToolCallExchange, 'caller'>) => Promise<CallToolResult>) | undefined;
}

type Id = string | number;
type Response = JSONRPCMessage & { id: Id };

/** A 2025-era POST as read and checked (`readLegacyPost`): what to serve, or why it is refused. */
export type LegacyPost = { refused: Refusal } | ReadPost;
interface Refusal {
  status: number;
  code: number;
  message: string;
}
export interface ReadPost {
  /** What the server is given: the body's messages, less a batch's requests it cancels itself and those cancellations. */
  messages: JSONRPCMessage[];
  batch: boolean;
  /** The one message is an `initialize`, which leaves state in the server that answers it. */
  initialize: boolean;
  protocolVersion: string | undefined;
}

/** Reads a 2025-era POST and checks it as the SDK's stateless serving would, before anything of it runs. */
export function readLegacyPost(request: FastifyRequest): LegacyPost {
  const accept = request.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return refusal(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(request.headers['content-type'] ?? null)) return refusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  const raw = request.body;
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) return refusal(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  let messages: JSONRPCMessage[];
  try {
    messages = (Array.isArray(raw) ? raw : [raw]).map((message) => parseJSONRPCMessage(message));
  } catch {
    return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
  }
  // parseJSONRPCMessage checked the shape; the server checks initialize's params when it answers.
  const initialize = messages.find((message): message is JSONRPCMessage & { method: 'initialize'; params?: { protocolVersion?: unknown } } => isRequest(message) && message.method === 'initialize');
  if (initialize && messages.length > 1) return refusal(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  // MCP 2025-03-26, the one revision with batches: initialize must not be part of one. Served, it
  // would open no session (http.ts issues one for a lone initialize), leaving the client sessionless.
  if (initialize && Array.isArray(request.body)) return refusal(400, -32600, 'Invalid Request: initialize must not be part of a JSON-RPC batch');
  const header = request.headers['mcp-protocol-version'];
  const version = typeof header === 'string' ? header : undefined;
  if (!initialize && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return refusal(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
  }
  // Two requests under one id could not be told apart in the answer, nor could the server tell
  // when each has ended: a request still running must never outlive its exchange (serverPool.ts).
  const ids = messages.filter(isRequest).map((message) => keyOf(message.id));
  if (new Set(ids).size < ids.length) return refusal(400, -32600, 'Invalid Request: each request in a batch needs an id of its own');
  const asked = initialize?.params?.protocolVersion;
  return {
    // A request its own batch cancels is not run: MCP wants no answer for it, and the server would
    // start it, abort it and send nothing, leaving the exchange waiting for an answer to the end.
    messages: withoutCancelledInBatch(messages),
    batch: Array.isArray(raw),
    initialize: initialize !== undefined,
    protocolVersion: initialize ? (typeof asked === 'string' ? asked : undefined) : version,
  };
}

/** Answers a POST that `readLegacyPost` refused, as the SDK's transport does. */
export function refuseLegacyPost(reply: FastifyReply, { status, code, message }: Refusal): FastifyReply {
  return reply.code(status).type('application/json').send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const refusal = (status: number, code: number, message: string): { refused: Refusal } => ({ refused: { status, code, message } });

/** Serves a POST `readLegacyPost` let through; resolves once the reply is sent, or its stream has started. */
export async function serveLegacyPost(post: ReadPost, request: FastifyRequest, reply: FastifyReply, options: LegacyExchangeOptions): Promise<FastifyReply> {
  const { messages, initialize, protocolVersion } = post;
  // Notifications and responses alone: a stateless server has nothing to answer and no state
  // they could change (a cancellation is the gateway's own, http.ts), so none is made for them.
  const requests = messages.filter(isRequest);
  if (requests.length === 0) return reply.code(202).send();

  const exchange = new LegacyExchange(reply, requests, { batch: post.batch, priming: protocolVersion !== undefined && protocolVersion >= PRIMING_SINCE, retryMs: options.retryMs });
  const toolCall = options.answerToolCall && !post.batch && messages.length === 1 ? plainToolCall(messages[0]!) : undefined;
  if (toolCall && options.answerToolCall) {
    // The response closing (answered, or its client gone) ends the exchange, as a lease's end does.
    reply.raw.once('close', () => void exchange.close());
    const { id, params } = toolCall;
    const notify = (notification: { method: string; params?: Record<string, unknown> }) => exchange.send({ jsonrpc: '2.0', ...notification } as JSONRPCMessage, { relatedRequestId: id });
    void options.answerToolCall(params, { progressToken: params._meta?.progressToken as ProgressToken | undefined, notify }).then(
      (result) => exchange.send({ jsonrpc: '2.0', id, result }),
      // As the SDK's server words a handler's failure: its code when it has one (an unknown tool's -32602), else -32603.
      (error: { code?: unknown; message?: string; data?: unknown }) =>
        exchange.send({ jsonrpc: '2.0', id, error: { code: Number.isSafeInteger(error.code) ? (error.code as number) : -32603, message: error.message ?? 'Internal error', ...(error.data !== undefined ? { data: error.data } : {}) } }),
    );
    await exchange.sent;
    return reply;
  }
  let lease: Lease;
  try {
    lease = await options.servers.lend(options.dynamic, exchange);
  } catch (error) {
    request.log.error({ err: error }, 'could not make an MCP server for the exchange');
    await exchange.close();
    return reply;
  }
  // The response closing (answered, or its client gone) ends the exchange; a server that
  // answered everything, and was not initialized, can serve another.
  reply.raw.once('close', () => void lease.end(exchange.answered && !initialize).catch(() => undefined));
  // A client gone while the server was being made: nothing to answer, and no 'close' to come.
  if (reply.raw.destroyed) {
    await lease.end(false);
    return reply;
  }
  for (const message of messages) lease.deliver(message, { authInfo: options.authInfo });
  await exchange.sent;
  return reply;
}

/**
 * The batch without each request that a message of it cancels, nor those cancellations. Before
 * or after the request, alike: the SDK's server handles a notification a turn later than a
 * request, so a cancellation sent first would abort the request too.
 */
function withoutCancelledInBatch(messages: JSONRPCMessage[]): JSONRPCMessage[] {
  const asked = new Set(messages.filter(isRequest).map((message) => keyOf(message.id)));
  const cancelled = new Set(messages.filter(isCancellation).map((message) => keyOf(message.params.requestId)).filter((key) => asked.has(key)));
  if (cancelled.size === 0) return messages;
  const named = (message: JSONRPCMessage) => (isRequest(message) ? message.id : isCancellation(message) ? message.params.requestId : undefined);
  return messages.filter((message) => {
    const id = named(message);
    return id === undefined || !cancelled.has(keyOf(id));
  });
}

/**
 * A `tools/call` whose params are plainly what MCP defines (server.ts `ToolCallParams`), nothing
 * more: no task augmentation, no reserved envelope in `_meta`, a progress token of the right type.
 */
function plainToolCall(message: JSONRPCMessage): { id: Id; params: ToolCallParams } | undefined {
  if (!isRequest(message) || message.method !== 'tools/call') return undefined;
  const params = (message as { params?: unknown }).params;
  if (!isPlainObject(params) || !Object.keys(params).every((key) => key === 'name' || key === 'arguments' || key === '_meta')) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args)) || (meta !== undefined && !isPlainObject(meta))) return undefined;
  if (meta && (Object.keys(meta).some((key) => key.startsWith('io.modelcontextprotocol/')) || !(meta.progressToken === undefined || typeof meta.progressToken === 'string' || Number.isInteger(meta.progressToken)))) return undefined;
  return { id: message.id, params: params as unknown as ToolCallParams };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isCancellation = (message: JSONRPCMessage): message is JSONRPCMessage & { params: { requestId?: unknown } } =>
  'method' in message && !('id' in message) && message.method === 'notifications/cancelled' && typeof message.params === 'object' && message.params !== null;
const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: Id; method: string } => 'method' in message && 'id' in message;
const isResponse = (message: JSONRPCMessage): message is Response => !('method' in message) && 'id' in message;

/**
 * One exchange: what the server sends for the request's ids goes into the one HTTP response, as
 * JSON or as SSE (see the top of this file).
 */
class LegacyExchange implements ServerExchange {
  /** Resolves once the reply is sent (JSON) or its stream is open (SSE). */
  readonly sent: Promise<void>;
  /** By request, in the request's order: its answer once it came. */
  readonly #answers = new Map<string, Response | undefined>();
  #stream: PassThrough | undefined;
  #finished = false;
  /** Every request got its answer. */
  #answered = false;
  /** A JSON answer went to Fastify (which may still be running its hooks: `reply.sent` is not yet true). */
  #replied = false;
  #streamTimer: NodeJS.Timeout;
  #keepAlive: NodeJS.Timeout | undefined;
  #resolveSent!: () => void;

  constructor(
    private readonly reply: FastifyReply,
    requests: readonly { id: Id }[],
    private readonly options: { batch: boolean; priming: boolean; retryMs: number },
  ) {
    for (const { id } of requests) this.#answers.set(keyOf(id), undefined);
    this.sent = new Promise((resolve) => (this.#resolveSent = resolve));
    this.#streamTimer = setTimeout(() => this.#openStream(), STREAM_AFTER_MS);
  }

  /** Every request of the exchange was answered: nothing the server ran for it is still running. */
  get answered(): boolean {
    return this.#answered;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#finished) return;
    const key = isResponse(message) ? keyOf(message.id) : options?.relatedRequestId !== undefined ? keyOf(options.relatedRequestId) : undefined;
    // A stateless exchange has no standalone stream: what belongs to no request of it goes nowhere.
    if (key === undefined || !this.#answers.has(key)) return;
    if (isResponse(message)) {
      this.#answers.set(key, message);
      if (this.#stream) this.#event(message);
      if ([...this.#answers.values()].every((answer) => answer !== undefined)) this.#finish();
      return;
    }
    this.#openStream();
    this.#event(message);
  }

  /**
   * Ends the exchange once the response is done: a stream still open ends, and a request never
   * answered (its client gone, or the gateway closing) gets an error if it still can.
   */
  async close(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    this.#stop();
    if (this.#stream) this.#stream.end();
    else if (!this.#replied && !this.reply.raw.destroyed) refuseLegacyPost(this.reply, { status: 503, code: -32000, message: 'The exchange closed before its answer' });
    this.#resolveSent();
  }

  /** Every request answered: the answer goes out, and the exchange waits for the response to close. */
  #finish(): void {
    this.#finished = true;
    this.#answered = true;
    this.#stop();
    if (this.#stream) this.#stream.end();
    else {
      const answers = [...this.#answers.values()];
      this.#replied = true;
      this.reply.code(200).type('application/json').send(JSON.stringify(this.options.batch ? answers : answers[0]));
    }
    this.#resolveSent();
  }

  #openStream(): void {
    if (this.#stream || this.#finished) return;
    clearTimeout(this.#streamTimer);
    this.#stream = new PassThrough();
    if (this.options.priming) this.#stream.write(`id: ${randomUUID()}\nretry: ${this.options.retryMs}\ndata: \n\n`);
    // A batch's answers that came before the stream go first.
    for (const answer of this.#answers.values()) if (answer) this.#event(answer);
    this.#keepAlive = setInterval(() => this.#stream?.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    this.#keepAlive.unref();
    this.reply
      .code(200)
      .headers({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' })
      .send(this.#stream);
    this.#resolveSent();
  }

  #event(message: JSONRPCMessage): void {
    this.#stream!.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  #stop(): void {
    clearTimeout(this.#streamTimer);
    clearInterval(this.#keepAlive);
  }
}
