/**
 * The logging surface the core needs. Both a pino logger and Fastify's request loggers fit it,
 * so core code does not depend on either.
 */
import type { LogFn } from 'pino';

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}
