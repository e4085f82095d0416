/**
 * One server's log lines (`notifications/message`), bounded, secrets masked, and the level the
 * operator asked it to send. It outlives the server's connections, so a reconnect keeps the
 * lines that explain it, and the level is asked for again on each new connection.
 */
import { LogLevel, SERVER_LOG_DATA_CHARS, SERVER_LOG_LINES, atLeast, type ServerLogLine, type ServerLogView } from '../../../shared/serverLog';
import { redactClipped } from './secrets';

export interface ServerLogParts {
  server: string;
  secrets(): readonly string[];
  /** Each line as it is kept (the host publishes it as a `serverLog` event). */
  onLine(line: ServerLogLine): void;
}

export class ServerLog {
  readonly #lines: ServerLogLine[] = [];
  #seq = 0;
  #dropped = 0;
  /** The operator's choice; null until they make one. */
  level: LogLevel | null = null;
  /** Whether the connected server declared `logging`; null while none is connected. */
  supported: boolean | null = null;

  constructor(private readonly parts: ServerLogParts) {}

  /** A `notifications/message`'s params, as the server sent them (checked here: the server is not trusted). */
  add(params: unknown): void {
    const { level, logger, data } = (params ?? {}) as { level?: unknown; logger?: unknown; data?: unknown };
    const parsed = LogLevel.safeParse(level);
    const text = typeof data === 'string' ? data : safeJson(data);
    const line: ServerLogLine = {
      seq: ++this.#seq,
      at: new Date().toISOString(),
      level: parsed.success ? parsed.data : 'info',
      logger: typeof logger === 'string' ? redactClipped(logger, this.parts.secrets(), 200) : null,
      data: redactClipped(text, this.parts.secrets(), SERVER_LOG_DATA_CHARS),
    };
    this.#lines.push(line);
    if (this.#lines.length > SERVER_LOG_LINES) {
      this.#dropped += this.#lines.length - SERVER_LOG_LINES;
      this.#lines.splice(0, this.#lines.length - SERVER_LOG_LINES);
    }
    this.parts.onLine(line);
  }

  view({ level, after, limit }: { level?: LogLevel | undefined; after?: number | undefined; limit?: number | undefined } = {}): ServerLogView {
    const lines = this.#lines.filter((line) => (after === undefined || line.seq > after) && (level === undefined || atLeast(line.level, level)));
    return {
      server: this.parts.server,
      level: this.level,
      supported: this.supported,
      lines: limit === undefined ? lines : lines.slice(-limit),
      dropped: this.#dropped,
    };
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}
