/**
 * The HTTP gateway on loopback: the API contract's routes behind a bearer token, Host and
 * Origin checks and a body limit, plus the console bundle for browsers.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import fastifyStatic from '@fastify/static';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { operations, type OperationName } from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import { EVENTS_PATH, type CapstanEvent } from '../../shared/events';
import { CONTENT_SECURITY_POLICY } from '../../shared/security';
import type { EventBus } from '../events';
import type { Ledger } from '../runtime/ledger';
import { ZodUndefined } from 'zod';
import { asCapstanError, dispatch, errorEnvelope, resolveRequestId, type ApiHandlers } from './api';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface HttpGatewayOptions {
  handlers: ApiHandlers;
  events: EventBus;
  /** For replaying ledger entries a reconnecting event stream missed. */
  ledger: Ledger;
  logger: FastifyBaseLogger;
  token: string;
  host: string;
  port: number;
  /** The built console; when absent the API still works and `/` explains how to build it. */
  rendererDir?: string | undefined;
}

export interface HttpGateway {
  app: FastifyInstance;
  /** Base URL of the API, e.g. http://127.0.0.1:7077 */
  url: string;
  /** The console URL; the token rides in the fragment so it never reaches a server log. */
  consoleUrl: string;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
  }
}

export async function startHttpGateway(options: HttpGatewayOptions): Promise<HttpGateway> {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Capstan logs each request itself, once, with the call's requestId.
    logController: new LogController({ disableRequestLogging: true }),
    requestTimeout: 60_000,
    return503OnClosing: true,
    // Closing must not wait on a browser's idle pre-connected socket, a half-sent request or a
    // live event stream: on shutdown every connection is destroyed.
    forceCloseConnections: true,
  });
  let allowedHost: (hostHeader: string | undefined) => boolean = () => false;

  app.decorateRequest('requestId', '');
  app.addHook('onRequest', async (request) => {
    setRequestId(app, request, resolveRequestId(request.headers['x-request-id']));
    const origin = request.headers.origin;
    if (!allowedHost(request.headers.host) || (origin !== undefined && !allowedOrigin(origin, allowedHost))) {
      throw new CapstanError('FORBIDDEN_ORIGIN', 'this gateway only answers its own loopback address');
    }
  });
  // A body's requestId, when well formed, names the call in every later log line.
  app.addHook('preHandler', async (request) => {
    const fromBody = (request.body as { requestId?: unknown } | undefined)?.requestId;
    if (typeof fromBody === 'string' && resolveRequestId(fromBody) === fromBody) setRequestId(app, request, fromBody);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.requestId);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.routeOptions.url ?? request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });
  app.setErrorHandler((error: FastifyError | CapstanError, request, reply) => sendError(request, reply, toCapstanError(error)));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new CapstanError('NOT_FOUND', `${request.method} ${request.url.split('?')[0]}`)),
  );

  await app.register(async (api) => {
    api.addHook('onRequest', async (request) => {
      if (!bearerMatches(request.headers.authorization, options.token)) {
        throw new CapstanError('UNAUTHORIZED', 'send Authorization: Bearer <token>');
      }
    });
    api.get(EVENTS_PATH, (request, reply) => streamEvents(request, reply, options.events, options.ledger));
    for (const operation of Object.keys(operations) as OperationName[]) {
      const { method, path } = operations[operation];
      api.route({
        method,
        url: path,
        handler: async (request, reply) => {
          const input = method === 'GET' ? (operations[operation].input instanceof ZodUndefined ? undefined : request.query) : withParams(request.body, request.params);
          const answer = await dispatch(options.handlers, operation, input, { requestId: request.requestId, log: request.log });
          return reply.code(answer.status).send(answer.ok ? answer.value : answer.envelope);
        },
      });
    }
  });

  if (options.rendererDir && existsSync(options.rendererDir)) {
    await app.register(fastifyStatic, {
      root: options.rendererDir,
      setHeaders: (reply) => reply.header('content-security-policy', `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`),
      // The build keeps source maps beside the bundle for local debugging; a browser gets 404.
      allowedPath: (path) => !/\.map$/i.test(path),
    });
  } else {
    app.get('/', async (_request, reply) =>
      reply.code(503).type('text/plain').send('The console is not built. Run `npm run build`, then start Capstan again.\n'),
    );
  }

  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  allowedHost = hostMatcher(options.host, port);
  const url = `http://${isIP(options.host) === 6 ? `[${options.host}]` : options.host}:${port}`;
  return {
    app,
    url,
    consoleUrl: `${url}/#token=${encodeURIComponent(options.token)}`,
    close: () => app.close(),
  };
}

/**
 * Server-Sent Events: one `event:`/`data:` block per event, and a comment now and then so idle
 * connections stay open. Ledger entries carry their sequence number as `id:`, so a client that
 * reconnects with `Last-Event-ID` (or `?after=`) first gets every entry it missed.
 */
function streamEvents(request: FastifyRequest, reply: FastifyReply, events: EventBus, ledger: Ledger): void {
  const resumeFrom = Number(request.headers['last-event-id'] ?? (request.query as { after?: string }).after ?? ledger.lastSeq);
  reply.hijack();
  const stream = reply.raw;
  stream.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-request-id': request.requestId,
    'x-content-type-options': 'nosniff',
  });
  stream.write(': capstan events\n\n');
  let sentSeq = Number.isInteger(resumeFrom) && resumeFrom >= 0 ? resumeFrom : ledger.lastSeq;
  const send = (event: CapstanEvent) => {
    if (event.type === 'ledger') {
      if (event.entry.seq <= sentSeq) return;
      sentSeq = event.entry.seq;
      stream.write(`id: ${event.entry.seq}\n`);
    }
    stream.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  // Subscribe, then replay synchronously: nothing can be appended in between, and `send`
  // drops anything already sent, so each entry goes out exactly once and in order.
  const unsubscribe = events.subscribe(send);
  for (let page = ledger.query({ after: sentSeq, limit: 1000 }); page.length > 0; page = ledger.query({ after: sentSeq, limit: 1000 })) {
    for (const entry of page) send({ type: 'ledger', entry });
  }
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
  request.raw.once('close', () => {
    unsubscribe();
    clearInterval(heartbeat);
  });
}

const SSE_HEARTBEAT_MS = 15_000;

function setRequestId(app: FastifyInstance, request: FastifyRequest, requestId: string): void {
  request.requestId = requestId;
  request.log = app.log.child({ requestId });
}

/** A route's path parameters (`/tasks/:id/cancel`) join the body's fields. */
function withParams(body: unknown, params: unknown): unknown {
  const fromPath = params as Record<string, string>;
  if (Object.keys(fromPath).length === 0) return body;
  if (body === undefined || body === null) return { ...fromPath };
  return typeof body === 'object' && !Array.isArray(body) ? { ...body, ...fromPath } : body;
}

/** Refusals before an operation runs (auth, Host, routing, body parsing) get the same envelope as the operations' own. */
function sendError(request: FastifyRequest, reply: FastifyReply, error: CapstanError): FastifyReply {
  const envelope = errorEnvelope(error, { requestId: request.requestId, log: request.log });
  return reply.code(error.status).type('application/json').send(envelope);
}

/** Fastify's own errors (a bad body, an oversized one) in Capstan's codes. */
function toCapstanError(error: FastifyError | CapstanError): CapstanError {
  if (error instanceof CapstanError) return error;
  const status = error.statusCode ?? 500;
  if (status === 413) return new CapstanError('PAYLOAD_TOO_LARGE', `the body is over ${BODY_LIMIT_BYTES} bytes`);
  if (status === 404) return new CapstanError('NOT_FOUND', error.message);
  if (status >= 400 && status < 500) return new CapstanError('BAD_REQUEST', error.message);
  return asCapstanError(error);
}

/** Compares digests so the comparison takes the same time whatever the token's length. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
const WILDCARDS = new Set(['0.0.0.0', '::']);

/**
 * Which `Host` headers name this gateway. A DNS-rebinding page reaches us under its own domain
 * name, so only the bound address, loopback names (when bound to loopback) and, on a wildcard
 * bind, literal IP addresses are accepted.
 */
export function hostMatcher(boundHost: string, port: number): (hostHeader: string | undefined) => boolean {
  const loopback = LOOPBACK_NAMES.has(boundHost) || boundHost.startsWith('127.');
  return (hostHeader) => {
    if (!hostHeader) return false;
    let parsed: URL;
    try {
      parsed = new URL(`http://${hostHeader}`);
    } catch {
      return false;
    }
    if (Number(parsed.port || 80) !== port) return false;
    const name = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (name === boundHost.toLowerCase()) return true;
    if (loopback && LOOPBACK_NAMES.has(name)) return true;
    return WILDCARDS.has(boundHost) && isIP(name) !== 0;
  };
}

function allowedOrigin(origin: string, allowedHost: (host: string) => boolean): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && allowedHost(url.host);
  } catch {
    return false;
  }
}
