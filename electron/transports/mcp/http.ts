/**
 * `/mcp` on the gateway: MCP's Streamable HTTP, stateless (a server of its own for each request),
 * for both the 2025 revisions and 2026-07-28. A 2025-era POST is served by legacyExchange.ts,
 * straight to the Node response; everything else by the SDK's `createMcpHandler`, whose web
 * `Response` Fastify sends. The gateway's hooks have run before this (Host and Origin checked,
 * the bearer token turned into a principal), and its response hooks apply to both.
 *
 * Sessions: the SDK's server keeps none, yet each client gets a Capstan session of its own (its
 * tasks, grants, context budget and loaded tools). A 2025-era client is handed an
 * `Mcp-Session-Id` with its `initialize` answer and, as that revision requires, presents it on
 * every later request; any request presenting one runs in `<principal>/mcp-<id>`, until the
 * client ends it or it goes idle (sessions.ts), after which that id answers 404. A client that
 * presents none (the 2026-07-28 revision has no sessions) runs in its principal's `…/mcp` session.
 *
 * Cancellation: a client's `notifications/cancelled`, or the client going away before its answer,
 * aborts the request, and the call it runs is cancelled through the runtime like any other.
 *
 * Streams: every SSE answer to a client of 2025-11-25 or later opens with a priming event (an id,
 * empty data) and a `retry:` field (SEP-1699), so a client knows the stream is live and how
 * soon to come back. A 2025-era answer is SSE only when something goes before it or it is slow
 * (legacyExchange.ts); otherwise it is one JSON body. Capstan keeps no stream to resume: a `GET`
 * (with or without Last-Event-ID) is 405, and `Allow` says what `/mcp` does take.
 */
import { randomUUID } from 'node:crypto';
import { classifyInboundRequest, createMcpHandler, isInitializeRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_REQUEST_ID } from '../../../shared/api';
import { clip } from '../../../shared/clip';
import { CapstanError } from '../../../shared/errors';
import { SYSTEM, type Principal } from '../../../shared/principal';
import type { Logger } from '../../logger';
import { dispatch, errorEnvelope, type ApiHandlers } from '../../services/api';
import type { EventBus } from '../../services/events';
import { sessionFor } from '../../services/principal';
import { assertWithinQuota, type AgentQuotas } from '../../services/quotas';
import { readLegacyPost, refuseLegacyPost, serveLegacyPost } from './legacyExchange';
import { LoadedTools } from './loadedTools';
import type { McpCaller } from './caller';
import { answerToolCall, createCapstanServer, listsLoadedTools } from './server';
import { McpServerPool } from './serverPool';
import { keyOf, McpSessions, type McpSession, type SessionEnd } from './sessions';

export const MCP_PATH = '/mcp';

/** What a client may present as its session id: what the gateway issues, or anything as plain. */
const SESSION_ID = /^[A-Za-z0-9_-]{8,64}$/;
/** Request headers the SDK never needs: the token stays with the gateway, the body is already parsed. */
const NOT_FORWARDED = new Set(['authorization', 'cookie', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** How soon a client whose SSE stream broke should come back, as the `retry:` field tells it. */
export const SSE_RETRY_MS = 1000;
/** The first revision whose clients read an SSE event with empty data (a priming event). */
const PRIMING_SINCE = '2025-11-25';

export interface McpEndpoint {
  handle(request: FastifyRequest, reply: FastifyReply, principal: Principal): Promise<FastifyReply>;
  close(): Promise<void>;
}

export interface McpEndpointOptions {
  sessionIdleMs: number;
  /** Each agent's quota of sessions (config.json `quotas.mcpSessions`). */
  quotas: AgentQuotas;
  log: Logger;
}

export function mcpEndpoint(handlers: ApiHandlers, events: EventBus, { sessionIdleMs, quotas, log }: McpEndpointOptions): McpEndpoint {
  const parts = { handlers, events, loaded: new LoadedTools() };
  const handler = createMcpHandler(({ era, authInfo }) => createCapstanServer(listsLoadedTools(era, authInfo!.extra!.caller as McpCaller), parts), {
    legacy: 'stateless',
  });
  const servers = new McpServerPool((dynamic) => createCapstanServer(dynamic, parts));
  const sessions = new McpSessions({
    idleMs: sessionIdleMs,
    onEnd: (session, how) => {
      parts.loaded.close(capstanSessionOf(session));
      return finishTask(session, how);
    },
  });

  return {
    async handle(request, reply, principal) {
      const presented = request.headers['mcp-session-id'];
      if (presented !== undefined && (typeof presented !== 'string' || !SESSION_ID.test(presented))) {
        throw new CapstanError('BAD_REQUEST', 'Mcp-Session-Id must be 8-64 of [A-Za-z0-9_-], as the gateway issues it');
      }
      const body = request.body;
      let session: McpSession | undefined;
      const initializing = request.method === 'POST' && isRequest(body, 'initialize');
      if (initializing) {
        try {
          assertWithinQuota(quotas, principal, 'mcpSessions', sessions.count(principal));
        } catch (error) {
          const refused = errorEnvelope(error as CapstanError, { requestId: request.requestId, log: request.log });
          return reply.code(409).send({ jsonrpc: '2.0', id: idOf(body), error: { code: -32000, message: refused.error.message, data: refused.error } });
        }
      } else if (presented !== undefined) {
        session = sessions.find(presented, principal);
        // Ended, expired, never issued, or issued to another principal: all alike, as MCP says.
        if (!session) return reply.code(404).send({ jsonrpc: '2.0', id: idOf(body), error: { code: -32001, message: 'Session not found: start a new one with initialize' } });
      }
      if (request.method === 'DELETE' && session) {
        await sessions.end(session, 'deleted');
        return reply.code(200).send();
      }
      // A 2025-era POST is read and checked whole before any of it, a cancellation included, has effect.
      const legacy = request.method === 'POST' && isLegacyPost(request) ? readLegacyPost(request) : undefined;
      if (legacy && 'refused' in legacy) return refuseLegacyPost(reply, legacy.refused);
      // A session only for an initialize the server will answer with one: a refused or malformed
      // one (or a 2026-era request, which has no sessions) must not hold a place in the quota.
      if (initializing && legacy && isInitializeRequest(body)) {
        session = sessions.issue(principal);
        parts.loaded.open(capstanSessionOf(session));
        reply.header('mcp-session-id', session.id);
      }
      for (const { requestId: cancelled, reason } of cancellationsIn(legacy?.messages ?? [body])) {
        sessions.cancel(session, principal, cancelled, typeof reason === 'string' && reason !== '' ? `cancelled by the client: ${clip(reason, 200)}` : 'cancelled by the client');
      }
      // A client that goes away before its answer stops the exchange (`gone`) and cancels what it
      // runs (`running`, which its cancellation or its session's end aborts too); its request stays
      // cancellable until the answer has gone out. Each request of a batch is cancelled on its own.
      const gone = new AbortController();
      const running = new AbortController();
      const inBatch = legacy?.batch ? batchRequests(legacy.messages, request, running.signal) : undefined;
      const tracked = inBatch
        ? [...inBatch.values()].map(({ id, controller }) => sessions.track(session, principal, id, controller))
        : isRequest(body)
          ? [sessions.track(session, principal, body.id, running)]
          : [];
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) {
          gone.abort('the client went away before its answer');
          running.abort(gone.signal.reason);
        }
        for (const request of tracked) request.done();
      });
      const caller: McpCaller = {
        principal,
        sessionId: session ? capstanSessionOf(session) : sessionFor(principal, 'mcp'),
        keepsSession: session !== undefined,
        requestId: request.requestId,
        requestIdIssued: request.requestIdIssued,
        log: request.log,
        signal: running.signal,
        inBatch,
      };
      const authInfo = { token: '', clientId: principal, scopes: [], extra: { caller } };
      if (legacy) {
        const dynamic = listsLoadedTools('legacy', caller);
        return serveLegacyPost(legacy, request, reply, { servers, dynamic, authInfo, retryMs: SSE_RETRY_MS, answerToolCall: (params, exchange) => answerToolCall(params, { ...exchange, caller }, dynamic, parts) });
      }
      const response = await handler.fetch(new Request(`http://${request.headers.host ?? 'localhost'}${request.url}`, { method: request.method, headers: forwarded(request), signal: gone.signal }), {
        parsedBody: body,
        authInfo,
      });
      return reply.send(withStreamHeaders(response, protocolOf(request)));
    },
    close: async () => {
      sessions.close();
      await handler.close();
    },
  };

  /**
   * A session that ended (its client's DELETE, as `capstan mcp` sends when its host closes it, or
   * idle for `sessionIdleMs`): its task is finished, like any task whose work is done; by the
   * client, or by the gateway itself for an expiry. One that never ran anything, or whose task
   * already ended, has nothing to finish.
   */
  async function finishTask(session: McpSession, how: SessionEnd): Promise<void> {
    const requestId = `mcp-session-${how}-${randomUUID()}`;
    const minutes = Math.round(sessionIdleMs / 60_000);
    const message = how === 'deleted' ? 'The MCP client ended its session.' : `The MCP session expired after ${minutes >= 1 ? `${minutes} min` : `${sessionIdleMs / 1000} s`} without a request.`;
    const finished = await dispatch(
      handlers,
      'taskAction',
      { action: 'finish', sessionId: capstanSessionOf(session), message, outcome: 'succeeded' },
      { requestId, log: log.child({ requestId }), principal: how === 'deleted' ? session.principal : SYSTEM },
    );
    if (!finished.ok && !finished.envelope.error.code.startsWith('TASK_')) log.warn({ code: finished.envelope.error.code, session: session.id }, 'could not finish an ended MCP session\'s task');
  }
}

/** The Capstan session an MCP session's operations run in (its tasks, its loaded tools). */
const capstanSessionOf = (session: McpSession): string => sessionFor(session.principal, `mcp-${session.id}`);

/**
 * The SDK's answer with what Capstan adds: a priming event opening each SSE stream for clients
 * that read one, and an `Allow` header naming every method `/mcp` takes on a 405.
 */
function withStreamHeaders(response: Response, protocolVersion: string | undefined): Response {
  if (response.status === 405) {
    const headers = new Headers(response.headers);
    headers.set('allow', 'POST, DELETE');
    return new Response(response.body, { status: 405, statusText: response.statusText, headers });
  }
  const streaming = response.body && response.headers.get('content-type')?.startsWith('text/event-stream');
  if (!streaming || protocolVersion === undefined || protocolVersion < PRIMING_SINCE) return response;
  const priming = new TextEncoder().encode(`id: ${randomUUID()}\nretry: ${SSE_RETRY_MS}\ndata: \n\n`);
  const body = response.body!.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ start: (controller) => controller.enqueue(priming) }));
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The revision the client speaks: its header, or what an `initialize` asks for. */
function protocolOf(request: FastifyRequest): string | undefined {
  const header = request.headers['mcp-protocol-version'];
  if (typeof header === 'string') return header;
  const asked = isRequest(request.body, 'initialize') ? (request.body.params as { protocolVersion?: unknown } | undefined)?.protocolVersion : undefined;
  return typeof asked === 'string' ? asked : undefined;
}

/**
 * Whether the SDK would serve this POST as 2025-era traffic. A plain request that claims no
 * 2026 envelope in `_meta`, under no header or a 2024/2025 one, is, as `classifyInboundRequest`
 * rules; one other than `initialize` whose envelope claims the later revision its header names is
 * not (the SDK's handler classifies it again as it serves it: modern or refused). Anything else is left to that
 * classifier, whose schema checks cost 1% of a call.
 */
function isLegacyPost(request: FastifyRequest): boolean {
  const body = request.body;
  const header = request.headers['mcp-protocol-version'];
  if (isRequest(body)) {
    const meta = isMessage(body.params) && isMessage(body.params._meta) ? (body.params._meta as Record<string, unknown>) : undefined;
    const legacyHeader = header === undefined || (typeof header === 'string' && /^202[45]-\d\d-\d\d$/.test(header));
    if (legacyHeader && !(meta && PROTOCOL_VERSION_META_KEY in meta)) return true;
    // An initialize the SDK does not take for a modern one is 2025-era whatever it claims.
    if (!legacyHeader && body.method !== 'initialize' && meta?.[PROTOCOL_VERSION_META_KEY] === header) return false;
  }
  return classifyInboundRequest({ httpMethod: 'POST', body, ...standardHeaders(request) }).kind === 'legacy';
}

/** The SEP-2243 headers the SDK classifies a request's revision by, as it reads them. */
function standardHeaders(request: FastifyRequest): { protocolVersionHeader?: string; mcpMethodHeader?: string; mcpNameHeader?: string } {
  const one = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const [protocolVersionHeader, mcpMethodHeader, mcpNameHeader] = [one('mcp-protocol-version'), one('mcp-method'), one('mcp-name')];
  return { ...(protocolVersionHeader !== undefined && { protocolVersionHeader }), ...(mcpMethodHeader !== undefined && { mcpMethodHeader }), ...(mcpNameHeader !== undefined && { mcpNameHeader }) };
}

function forwarded(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

interface JsonRpcMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  _meta?: unknown;
}

const isMessage = (body: unknown): body is JsonRpcMessage => typeof body === 'object' && body !== null && !Array.isArray(body);

/** A JSON-RPC request (a method, and an id), of `method` when given; a response has an id and no method. */
const isRequest = (body: unknown, method?: string): body is JsonRpcMessage & { id: unknown } =>
  isMessage(body) && body.id !== undefined && body.id !== null && typeof body.method === 'string' && (method === undefined || body.method === method);

const isNotification = (body: unknown, method: string): body is JsonRpcMessage => isMessage(body) && body.id === undefined && body.method === method;

/**
 * Each request of a batch, by JSON-RPC id (`keyOf`), as a request of its own: a requestId (the POST's with
 * `.1`, `.2`… in the batch's order, since calls in flight in one task need requestIds of their
 * own), its log, and a controller that its own cancellation or its session's end aborts, whose
 * signal aborts with the batch's too (`running`: the client gone).
 */
function batchRequests(messages: readonly unknown[], request: FastifyRequest, running: AbortSignal) {
  const ids = messages.filter((message) => isRequest(message)).map((message) => message.id);
  return new Map(
    ids.map((id, index) => {
      const suffix = `.${index + 1}`;
      const requestId = `${request.requestId.slice(0, MAX_REQUEST_ID - suffix.length)}${suffix}`;
      const controller = new AbortController();
      return [keyOf(id), { id, requestId, log: request.log.child({ requestId }), controller, signal: AbortSignal.any([controller.signal, running]) }];
    }),
  );
}

/** The parameters of each `notifications/cancelled` among the messages. */
function cancellationsIn(messages: readonly unknown[]): { requestId?: unknown; reason?: unknown }[] {
  return messages.filter((message) => isNotification(message, 'notifications/cancelled')).map((message) => (isMessage(message.params) ? message.params : {}) as { requestId?: unknown; reason?: unknown });
}

const idOf = (body: unknown): unknown => (isRequest(body) ? body.id : null);
