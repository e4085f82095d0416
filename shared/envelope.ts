/**
 * The one envelope builder: every failure a client sees, whoever refuses (an operation, the HTTP
 * edge, the preload, the IPC sender check, the `capstan mcp` relay), has this shape:
 * `{ ok: false, requestId?, taskId?, error: { code, message, ...details } }`. Kept apart from
 * shared/api.ts so the sandboxed preload can build one without bundling the contract's schemas.
 */
import { CapstanError, type ErrorCode } from './errors';

export interface Envelope {
  ok: false;
  requestId?: string;
  taskId?: string;
  error: { code: string; message: string; [detail: string]: unknown };
}

export function envelopeOf(error: CapstanError, requestId?: string): Envelope {
  return {
    ok: false,
    ...(requestId !== undefined ? { requestId } : {}),
    ...(error.taskId ? { taskId: error.taskId } : {}),
    error: { code: error.code, message: error.message, ...error.details },
  };
}

/** A refusal by its code and message alone. */
export const refusal = (code: ErrorCode, message: string, requestId?: string): Envelope => envelopeOf(new CapstanError(code, message), requestId);
