/**
 * What an MCP server says in its log (`notifications/message`): kept per server, bounded, with
 * its level, for the server's Providers page, `GET /mcp-servers/<name>/log`, `capstan logs` and
 * the `serverLog` event. The operator chooses how much the server sends (`logging/setLevel`).
 * Known secret values of the server's entry are masked before a line is kept.
 */
import { z } from 'zod';

/** RFC 5424 severities, as MCP names them, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export const LogLevel = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof LogLevel>;

/** Whether a line at `level` is at least as severe as `floor`. */
export const atLeast = (level: LogLevel, floor: LogLevel): boolean => LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(floor);

/** The most lines kept per server; older ones are dropped (`dropped` counts them). */
export const SERVER_LOG_LINES = 500;
/** A line's data is kept as JSON text of at most this many characters (cut with `…`). */
export const SERVER_LOG_DATA_CHARS = 4000;

export const ServerLogLine = z.object({
  /** Grows by one per line the server sent since Capstan started (over reconnects too). */
  seq: z.number().int().positive(),
  at: z.string(),
  level: LogLevel,
  /** The server's own logger name, when it gave one. */
  logger: z.string().nullable(),
  /** The line's `data`: a string as is, anything else as JSON text. */
  data: z.string(),
});
export type ServerLogLine = z.infer<typeof ServerLogLine>;

export const ServerLogQuery = z.strictObject({
  name: z.string().min(1).max(128),
  /** Only lines at this level or more severe. */
  level: LogLevel.optional(),
  /** Only lines after this seq (a follower's last one). */
  after: z.coerce.number().int().nonnegative().optional(),
  /** The latest this many (default and most: all kept). */
  limit: z.coerce.number().int().min(1).max(SERVER_LOG_LINES).optional(),
});
export type ServerLogQuery = z.input<typeof ServerLogQuery>;

export const ServerLogView = z.object({
  server: z.string(),
  /** What the operator asked the server to send (`logging/setLevel`); null: the server's own default. */
  level: LogLevel.nullable(),
  /** Whether the connected server declared the logging capability (null: not connected). */
  supported: z.boolean().nullable(),
  lines: z.array(ServerLogLine),
  /** Lines dropped because more than SERVER_LOG_LINES arrived. */
  dropped: z.number().int().nonnegative(),
});
export type ServerLogView = z.infer<typeof ServerLogView>;

export const SetServerLogLevelInput = z.strictObject({ name: z.string().min(1).max(128), level: LogLevel });

/** A line as it arrives, for a console or `capstan logs --follow` that shows the server. */
export const ServerLogAppended = z.object({ type: z.literal('serverLog'), server: z.string(), line: ServerLogLine });
export type ServerLogAppended = z.infer<typeof ServerLogAppended>;
