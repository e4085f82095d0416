/**
 * How the console holds a failure: every operation that fails, over either transport, rejects
 * with an ApiError carrying the gateway's error envelope (or one the console wrote for a request
 * the gateway never answered). Views turn whatever they caught into an ErrorBody with toErrorBody.
 */
import type { ErrorBody, ErrorEnvelope } from '../../shared/api';
import type { ErrorCode } from '../../shared/errors';

/** A failed operation, with its error code (see shared/errors.ts) and, for a tool call, its requestId and task. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly body: ErrorBody;
  /** The request's id, when the gateway named it (tool calls always do). */
  readonly requestId: string | undefined;
  /** The task the operation had joined before it failed (a tool call refused by its grant, say). */
  readonly taskId: string | undefined;

  constructor({ error, requestId, taskId }: Omit<ErrorEnvelope, 'ok'>) {
    super(error.message);
    this.body = error;
    this.requestId = requestId;
    this.taskId = taskId;
  }

  get code(): ErrorCode {
    return this.body.code;
  }
}

/** An error the console reports itself, worded like the gateway's own: `CODE: what happened`. */
export const consoleError = (code: ErrorCode, message: string): ApiError => new ApiError({ error: { code, message: `${code}: ${message}` } });

/**
 * What a view shows for anything an operation threw. Transports only ever reject with an
 * ApiError (or the caller's own abort), so anything else is a bug in the page itself. It is
 * reported as INTERNAL_ERROR, "an unexpected fault", with a message that says the fault is the
 * console's: GATEWAY_UNREACHABLE would send the operator to restart a gateway that is fine, and
 * the shared table has no code for a fault on this side of the boundary. (Pure: views call it
 * while rendering.)
 */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof ApiError) return error.body;
  const what = error instanceof Error ? error.message : String(error);
  return consoleError('INTERNAL_ERROR', `The console itself failed, not the gateway: ${what}`).body;
}
