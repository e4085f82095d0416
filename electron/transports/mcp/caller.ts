/**
 * Who asks `/mcp`: each request's caller, as the HTTP entry established it (http.ts), carried to
 * the server's handlers in the request's `authInfo` rather than kept by the server, which may
 * serve another caller's request next (serverPool.ts).
 */
import { ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import type { Principal } from '../../../shared/principal';
import type { Logger } from '../../logger';
import { keyOf } from './sessions';

/** One request's caller. */
export interface McpCaller {
  principal: Principal;
  /** The Capstan session the client's operations run in. */
  sessionId: string;
  /** The client keeps a session of its own (it presented an Mcp-Session-Id), so its tools/list may grow. */
  keepsSession: boolean;
  requestId: string;
  /** The gateway made `requestId` itself (http.ts): no caller can have used it. */
  requestIdIssued: boolean;
  log: Logger;
  /** Aborts when the client cancels the request or goes away before its answer: what it runs is cancelled. */
  signal?: AbortSignal | undefined;
  /** A batch's requests, by JSON-RPC id (`keyOf`): each its own requestId and log, and a signal its own cancellation aborts too. */
  inBatch?: ReadonlyMap<string, { requestId: string; log: Logger; signal: AbortSignal }> | undefined;
}

/** The caller of the request a handler serves, as that request (one of a batch has its own requestId and signal); every handler acts for it. */
export function callerOf(ctx: ServerContext): McpCaller {
  const caller = (ctx.http?.authInfo?.extra as { caller?: McpCaller } | undefined)?.caller;
  if (!caller) throw new ProtocolError(ProtocolErrorCode.InternalError, 'The request reached the server without its caller');
  const own = caller.inBatch?.get(keyOf(ctx.mcpReq.id));
  return own ? { ...caller, requestId: own.requestId, log: own.log, signal: own.signal, inBatch: undefined } : caller;
}
