/**
 * The HTTP gateway on loopback: the API contract's routes behind a bearer token, Host and
 * Origin checks and a body limit, plus the console bundle for browsers.
 */
import { existsSync } from 'node:fs';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { relative } from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { MAX_PATH_PARAM, operations, type OperationName } from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import { EVENTS_PATH } from '../../shared/events';
import { CONTENT_SECURITY_POLICY } from '../../shared/security';
import type { EventBus } from '../services/events';
import type { Ledger } from '../runtime/ledger';
import { ZodUndefined } from 'zod';
import { OPERATOR, type Principal } from '../../shared/principal';
import type { AgentTokens } from '../store/agentTokens';
import { asCapstanError, dispatch, errorEnvelope, resolveRequestId, type ApiHandlers } from '../services/api';
import { authorize, bearerAuthenticator, forbidden } from '../services/principal';
import { matchesIfNoneMatch } from '../catalog/catalogView';
import { jsonBody } from './jsonBody';
import { MAX_EVENT_STREAMS, streamEvents } from './eventStream';
import { DEFAULT_AGENT_QUOTAS, DEFAULT_MCP_SESSION_IDLE_MS } from '../config';
import type { AgentQuotas } from '../services/quotas';
import { MCP_PATH, mcpEndpoint } from './mcp/http';
import { allowedOrigin, hostMatcher } from './origin';
import { incomingTraceOf } from '../telemetry/trace';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface HttpGatewayOptions {
  handlers: ApiHandlers;
  events: EventBus;
  /** For replaying ledger entries a reconnecting event stream missed. */
  ledger: Ledger;
  /**
   * GET operations whose answer has an entity tag (the catalog view): answered with `ETag`, and
   * with 304 and no body when `If-None-Match` names the current tag.
   */
  entityTags?: Partial<Record<OperationName, () => string>>;
  logger: FastifyBaseLogger;
  token: string;
  /** Agent tokens, accepted besides the operator's `token` (without them, only the operator's is). */
  agents?: AgentTokens | undefined;
  host: string;
  port: number;
  /** The built console; when absent the API still works and `/` explains how to build it. */
  rendererDir?: string | undefined;
  /** How long an MCP client's session may be idle before it ends (config.json `mcp.sessionIdleMs`). */
  mcpSessionIdleMs?: number | undefined;
  /** What one agent may hold at once (config.json `quotas`). */
  quotas?: AgentQuotas | undefined;
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
    /** The gateway made `requestId` itself (the client sent none, or none well formed): no caller can have used it. */
    requestIdIssued: boolean;
    /**
     * Who the bearer token stands for, set by the token check on every route behind it
     * (services/principal.ts); undefined elsewhere, so a route outside that scope cannot pass for
     * the operator by mistake: read it with `principalOf(request)`.
     */
    principal: Principal | undefined;
    /** Whether the operation logged the request's one line at the default level itself (a tool call that succeeded). */
    loggedByCall: boolean;
  }
}

export async function startHttpGateway(options: HttpGatewayOptions): Promise<HttpGateway> {
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Capstan logs each request itself, once, with the call's requestId.
    logController: new LogController({ disableRequestLogging: true }),
    requestTimeout: 60_000,
    return503OnClosing: true,
    // Closing must not wait on a browser's idle pre-connected socket, a half-sent request or a
    // live event stream: on shutdown every connection is destroyed.
    forceCloseConnections: true,
    // A request without Host reaches the Host check and gets FORBIDDEN_ORIGIN in the envelope,
    // rather than Node's bodiless 400.
    http: { requireHostHeader: false },
    routerOptions: { maxParamLength: MAX_PATH_PARAM },
    // A URL that does not decode, or a path parameter over maxParamLength: errors Fastify
    // raises before routing, so before any hook has named the request.
    frameworkErrors: (error, request, reply) => {
      nameRequest(app, request, request.headers['x-request-id']);
      return sendError(request, reply.header('x-request-id', request.requestId).header('x-content-type-options', 'nosniff'), toCapstanError(error));
    },
    // What Node's HTTP parser refuses (headers over 16 KiB, bytes that are not HTTP, a request
    // that takes too long) never becomes a request: answer on the socket itself.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, options.logger),
  });
  let allowedHost: (hostHeader: string | undefined) => boolean = () => false;
  // Node answers an `Expect` other than 100-continue with a bodiless 417 unless someone listens.
  // HTTP lets a server ignore the expectation: the request goes through the usual checks instead.
  app.server.on('checkExpectation', (request, response) => {
    awaitAnswer(request, response);
    app.routing(request, response);
  });
  // What each connection still has to answer: a pipelined request's answer is not lost to the garbage after it (answerOnSocket).
  app.server.on('request', awaitAnswer);
  // CONNECT names no route here (this is no proxy); without a listener Node would just hang up.
  app.server.on('connect', (_request, socket: Socket) => answerOnSocket(socket, new CapstanError('NOT_FOUND', 'CONNECT: this gateway is not a proxy'), options.logger));

  app.decorateRequest('requestId', '');
  app.decorateRequest('requestIdIssued', false);
  app.addHook('onRequest', async (request) => {
    nameRequest(app, request, request.headers['x-request-id']);
    const origin = request.headers.origin;
    if (!allowedHost(request.headers.host) || (origin !== undefined && !allowedOrigin(origin, allowedHost))) {
      throw new CapstanError('FORBIDDEN_ORIGIN', 'this gateway only answers its own loopback address');
    }
  });
  // A body's requestId, when well formed, names the call in every later log line.
  app.addHook('preHandler', async (request) => {
    const fromBody = (request.body as { requestId?: unknown } | undefined)?.requestId;
    if (typeof fromBody === 'string' && resolveRequestId(fromBody) === fromBody) setRequestId(app, request, fromBody, false);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.requestId);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
  });
  // One line per request at the default level: a tool call that succeeded has had its own
  // ('tool call finished': requestId, tool, task, duration), so its request's line is debug.
  app.decorateRequest('loggedByCall', false);
  app.addHook('onResponse', async (request, reply) => {
    request.log[request.loggedByCall ? 'debug' : 'info'](
      { method: request.method, url: request.routeOptions.url ?? request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
  });
  app.setErrorHandler((error: FastifyError | CapstanError, request, reply) => sendError(request, reply, toCapstanError(error)));
  // The API's routes, so that a known path asked with another method is told which ones it takes.
  const routes: { methods: string[]; pattern: RegExp }[] = [];
  const knownRoute = (path: string, ...methods: string[]) => routes.push({ methods, pattern: new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}$`) });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routes.filter(({ pattern }) => pattern.test(path)).flatMap(({ methods }) => methods);
    if (allowed.length === 0) return sendError(request, reply, new CapstanError('NOT_FOUND', `${request.method} ${path}`));
    reply.header('allow', allowed.join(', '));
    return sendError(request, reply, new CapstanError('METHOD_NOT_ALLOWED', `${request.method} ${path}: this route takes ${allowed.join(', ')}`));
  });

  app.decorateRequest('principal', undefined);
  const authenticate = bearerAuthenticator(options.token, options.agents);
  await app.register(async (api) => {
    api.addHook('onRequest', async (request) => {
      const principal = authenticate(request.headers.authorization);
      if (!principal) throw new CapstanError('UNAUTHORIZED', 'send Authorization: Bearer <token>');
      request.principal = principal;
    });
    let openStreams = 0;
    // No HEAD: an event stream has no headers worth asking for, and a HEAD would hold a stream open with nowhere to write.
    knownRoute(EVENTS_PATH, 'GET');
    api.get(EVENTS_PATH, { exposeHeadRoute: false }, (request, reply) => {
      // Every session's tasks and the whole ledger go out on it: the operator's view.
      const principal = principalOf(request);
      if (principal !== OPERATOR) throw forbidden(principal, `GET ${EVENTS_PATH} is the operator's`);
      if (openStreams >= MAX_EVENT_STREAMS) {
        throw new CapstanError('TOO_MANY_STREAMS', `${MAX_EVENT_STREAMS} event streams are open; close one or retry later`);
      }
      streamEvents(request, reply, options.events, options.ledger);
      openStreams += 1;
      reply.raw.once('close', () => (openStreams -= 1));
    });
    for (const operation of Object.keys(operations) as OperationName[]) {
      const { method, path } = operations[operation];
      // Fastify answers HEAD on every GET route.
      knownRoute(path, ...(method === 'GET' ? ['GET', 'HEAD'] : [method]));
      api.route({
        method,
        url: path,
        handler: async (request, reply) => {
          // A GET's path parameters (`/mcp-servers/:name/log`) join its query, as a body's fields do.
          const input = method === 'GET' ? (operations[operation].input instanceof ZodUndefined ? undefined : withParams(request.query, request.params)) : withParams(request.body, request.params);
          const tagOf = options.entityTags?.[operation];
          if (tagOf) {
            // The same principal check dispatch makes, first: a 304 must not tell an agent anything either.
            authorize(operation, principalOf(request), input);
            // The tag and the body below are taken in the same turn, so the tag is the body's.
            const tag = tagOf();
            reply.header('etag', tag).header('cache-control', 'no-cache');
            if (matchesIfNoneMatch(request.headers['if-none-match'], tag)) return reply.code(304).send();
          }
          // A client that goes away before its answer cancels what it started (a call, or its wait for approval).
          const gone = new AbortController();
          reply.raw.once('close', () => {
            if (!reply.raw.writableFinished) gone.abort('the client went away before its answer');
          });
          const context = {
            requestId: request.requestId,
            requestIdIssued: request.requestIdIssued,
            log: request.log,
            principal: principalOf(request),
            signal: gone.signal,
            trace: incomingTraceOf(request.headers),
          };
          const answer = await dispatch(options.handlers, operation, input, context);
          request.loggedByCall = operation === 'callTool' && answer.ok;
          if (!answer.ok) return reply.code(answer.status).send(answer.envelope);
          const body = jsonBody(answer.value);
          if (body !== answer.value) reply.type('application/json; charset=utf-8');
          return reply.code(answer.status).send(body);
        },
      });
    }
    // MCP over Streamable HTTP (transports/mcp/): behind the same token check, as its principal.
    const mcp = mcpEndpoint(options.handlers, options.events, {
      sessionIdleMs: options.mcpSessionIdleMs ?? DEFAULT_MCP_SESSION_IDLE_MS,
      quotas: options.quotas ?? DEFAULT_AGENT_QUOTAS,
      log: options.logger,
    });
    api.addHook('onClose', () => mcp.close());
    knownRoute(MCP_PATH, 'GET', 'POST', 'DELETE');
    api.route({ method: ['GET', 'POST', 'DELETE'], url: MCP_PATH, exposeHeadRoute: false, handler: (request, reply) => mcp.handle(request, reply, principalOf(request)) });
  });

  if (options.rendererDir && existsSync(options.rendererDir)) {
    await app.register(fastifyStatic, {
      root: options.rendererDir,
      setHeaders: (reply, path) => {
        reply.header('content-security-policy', `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`);
        reply.header('cache-control', consoleFileCaching(relative(options.rendererDir!, path)));
      },
      // The build keeps source maps beside the bundle for local debugging; a browser gets 404.
      allowedPath: (path) => !/\.map$/i.test(path),
    });
  } else {
    app.get('/', async (request, reply) =>
      sendError(request, reply, new CapstanError('CONSOLE_NOT_BUILT', 'the console is not built: run `npm run build`, then start Capstan again')),
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
 * How long a browser may keep a console file without asking again. The bundle's files are named
 * by their content, so they never change under a name; the page is asked for every time, so a new
 * build shows at once; anything else (the favicon, which Chromium fetches again whenever the
 * address changes) for a day.
 */
function consoleFileCaching(file: string): string {
  if (/^assets[\\/]/.test(file)) return 'public, max-age=31536000, immutable';
  if (/\.html$/i.test(file)) return 'no-cache';
  return 'public, max-age=86400';
}

/** The principal the token check found; a request that did not pass it is UNAUTHORIZED, never the operator. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new CapstanError('UNAUTHORIZED', 'send Authorization: Bearer <token>');
  return request.principal;
}

/** Names the request by the requestId it asked for, when well formed, else by one the gateway makes (and says so). */
function nameRequest(app: FastifyInstance, request: FastifyRequest, asked: unknown): void {
  const requestId = resolveRequestId(asked);
  setRequestId(app, request, requestId, requestId !== asked);
}

function setRequestId(app: FastifyInstance, request: FastifyRequest, requestId: string, issued: boolean): void {
  request.requestId = requestId;
  request.requestIdIssued = issued;
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

/** Fastify's own errors (a bad URL, a bad body, an oversized one) in Capstan's codes. */
function toCapstanError(error: FastifyError | CapstanError): CapstanError {
  if (error instanceof CapstanError) return error;
  const status = error.statusCode ?? 500;
  if (status === 413) return new CapstanError('PAYLOAD_TOO_LARGE', `the body is over ${BODY_LIMIT_BYTES} bytes`);
  if (status === 414) return new CapstanError('URI_TOO_LONG', `a path parameter is over ${MAX_PATH_PARAM} characters as sent`);
  if (status === 415) return new CapstanError('BAD_REQUEST', 'the body must be JSON, sent with content-type: application/json');
  if (status === 404) return new CapstanError('NOT_FOUND', error.message);
  if (status >= 400 && status < 500) return new CapstanError('BAD_REQUEST', error.message);
  return asCapstanError(error);
}

/** Answers what Node's parser refused (so there is no request or reply to answer with) in the envelope, on the socket itself. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket, log: FastifyBaseLogger): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new CapstanError('HEADERS_TOO_LARGE', 'the request line and headers are over 16 KiB')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new CapstanError('REQUEST_TIMEOUT', 'the request did not arrive in full in time')
        : new CapstanError('BAD_REQUEST', `not a valid HTTP request (${error.code ?? 'parse error'})`);
  answerOnSocket(socket, problem, log);
}

/** Requests a connection has received and not yet answered in full. */
const unanswered = new WeakMap<Socket, number>();
/** Emitted on a socket when the last of them has been answered. */
const ANSWERED = 'capstan:answered';

/** Counts a request as unanswered on its connection until its response closes. */
function awaitAnswer(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  unanswered.set(socket, (unanswered.get(socket) ?? 0) + 1);
  response.once('close', () => {
    const left = (unanswered.get(socket) ?? 1) - 1;
    unanswered.set(socket, left);
    if (left === 0) socket.emit(ANSWERED);
  });
}

/**
 * Writes the envelope as a whole HTTP response and closes the connection, as Node itself does
 * after a parse error. Requests that came before the bad bytes on the same connection (pipelined)
 * are answered first, in order, as HTTP requires: closing at once lost the answer to a call that
 * had run.
 */
function answerOnSocket(socket: Socket, problem: CapstanError, log: FastifyBaseLogger): void {
  if ((unanswered.get(socket) ?? 0) > 0) {
    socket.once(ANSWERED, () => answerOnSocket(socket, problem, log));
    return;
  }
  if (socket.writable) {
    const requestId = resolveRequestId(undefined);
    const body = JSON.stringify(errorEnvelope(problem, { requestId, log: log.child({ requestId }) }));
    socket.write(
      [
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${requestId}`,
        'x-content-type-options: nosniff',
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy();
}
