/**
 * `/mcp` on the gateway: MCP's Streamable HTTP, served by the SDK's `createMcpHandler`, stateless
 * (a fresh server per request), for both the 2025 revisions and 2026-07-28. The gateway's hooks
 * have run before this: Host and Origin checked, the bearer token turned into a principal. Fastify
 * sends the SDK's web `Response` itself, so the gateway's response hooks apply here too.
 *
 * Sessions: the server keeps no MCP session, yet each client gets a Capstan session of its own
 * (its tasks, grants, context budget and loaded tools). A 2025-era client is handed an
 * `Mcp-Session-Id` with its `initialize` answer and, as that revision requires, presents it on
 * every later request; any request presenting one runs in `<principal>/mcp-<id>`. A client that
 * presents none (the 2026-07-28 revision has no sessions) runs in its principal's `…/mcp` session.
 */
import { randomBytes } from 'node:crypto';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CapstanError } from '../../../shared/errors';
import type { Principal } from '../../../shared/principal';
import type { EventBus } from '../../services/events';
import { dispatch, type ApiHandlers } from '../../services/api';
import { sessionFor } from '../../services/principal';
import { LoadedTools } from './loadedTools';
import { createCapstanServer, type McpCaller } from './server';

export const MCP_PATH = '/mcp';

/** What a client may present as its session id: what the gateway issues, or anything as plain. */
const SESSION_ID = /^[A-Za-z0-9_-]{8,64}$/;
/** Request headers the SDK never needs: the token stays with the gateway, the body is already parsed. */
const NOT_FORWARDED = new Set(['authorization', 'cookie', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export interface McpEndpoint {
  handle(request: FastifyRequest, reply: FastifyReply, principal: Principal): Promise<FastifyReply>;
  close(): Promise<void>;
}

export function mcpEndpoint(handlers: ApiHandlers, events: EventBus): McpEndpoint {
  const parts = { handlers, events, loaded: new LoadedTools() };
  const handler = createMcpHandler(({ era, authInfo }) => createCapstanServer(era, authInfo!.extra!.caller as McpCaller, parts), {
    legacy: 'stateless',
  });

  return {
    async handle(request, reply, principal) {
      const presented = request.headers['mcp-session-id'];
      if (presented !== undefined && (typeof presented !== 'string' || !SESSION_ID.test(presented))) {
        throw new CapstanError('BAD_REQUEST', 'Mcp-Session-Id must be 8-64 of [A-Za-z0-9_-], as the gateway issues it');
      }
      const initialize = isInitialize(request.body);
      const clientSession = initialize ? randomBytes(16).toString('base64url') : presented;
      if (initialize) reply.header('mcp-session-id', clientSession);
      const caller: McpCaller = {
        principal,
        sessionId: sessionFor(principal, clientSession ? `mcp-${clientSession}` : 'mcp'),
        keepsSession: clientSession !== undefined,
        requestId: request.requestId,
        log: request.log,
      };
      if (request.method === 'DELETE' && presented !== undefined) return endSession(caller, reply);
      // A client that goes away mid-stream stops the exchange; a call it started still runs to its end.
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      const response = await handler.fetch(new Request(`http://${request.headers.host ?? 'localhost'}${request.url}`, { method: request.method, headers: forwarded(request), signal: gone.signal }), {
        parsedBody: request.body,
        authInfo: { token: '', clientId: principal, scopes: [], extra: { caller } },
      });
      return reply.send(response);
    },
    close: () => handler.close(),
  };

  /**
   * A 2025-era client ending its session (DELETE with its Mcp-Session-Id, as `capstan mcp` does
   * when its host closes it): its task is finished, like any task whose work is done. A session
   * that never ran anything, or whose task already ended, has nothing to finish.
   */
  async function endSession(caller: McpCaller, reply: FastifyReply): Promise<FastifyReply> {
    const { sessionId, requestId, log, principal } = caller;
    const finished = await dispatch(handlers, 'taskAction', { action: 'finish', sessionId, message: 'The MCP client ended its session.', outcome: 'succeeded' }, { requestId, log, principal });
    if (finished.ok || finished.envelope.error.code.startsWith('TASK_')) return reply.code(200).send();
    return reply.code(finished.status).send(finished.envelope);
  }
}

function forwarded(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

const isInitialize = (body: unknown) => typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
