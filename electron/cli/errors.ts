/**
 * The operator commands' exit codes (README, Running → `capstan tools`, `call`, `tasks`), so a
 * script can tell "the tool failed" from "nothing was asked" from "no gateway to ask".
 */
import type { ErrorEnvelope } from '../../shared/api';

export const EXIT = {
  /** Done: the listing printed, or the call succeeded. */
  ok: 0,
  /** The gateway answered with an error: the call failed or was refused (its code is printed). */
  failed: 1,
  /** A bad flag or argument, or no token: nothing was sent. */
  usage: 2,
  /** No gateway answered (GATEWAY_UNREACHABLE): none runs for the data dir, or the URL is wrong. */
  unreachable: 3,
  /** The tool needs confirmation and it was not given: no terminal to ask on, or the operator said no. Nothing ran. */
  notConfirmed: 4,
} as const;

/** A failure with its exit code and, when there is one, the error code printed beside it. */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code?: string,
  ) {
    // The gateway's own message may already start with its code (`ARGUMENT_MISSING: query`).
    super(code && !message.startsWith(code) ? `${code}: ${message}` : message);
  }
}

/** The gateway answered with its error envelope (exit 1); the envelope is kept as it was sent. */
export class GatewayError extends OperatorError {
  constructor(
    /** The HTTP status it came with. */
    readonly status: number,
    readonly envelope: ErrorEnvelope,
    /** What to print instead of the gateway's own message (its code still leads it). */
    message = envelope.error.message,
  ) {
    super(message, EXIT.failed, envelope.error.code);
  }
}
