/**
 * Newline-delimited JSON-RPC 2.0 between Capstan and a Harn child, both ways on one channel:
 * Capstan's ACP requests out, Harn's bridge requests and notifications in. Everything Harn sends
 * is checked here before any handler sees it; a malformed message gets the JSON-RPC error the
 * specification names (or is reported, when it cannot be answered) and never throws out of
 * `receive`. Ids are echoed exactly: a numeric id keeps its source text, so a u64 beyond 2^53
 * goes back as Harn sent it.
 */
import { assertWellFormed } from '../services/wellFormed';

/** The JSON-RPC error codes Capstan answers with. */
export const RpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Harn's ToolRejected category: the host refused the call (nothing ran). */
  TOOL_REJECTED: -32001,
  /** Anything else a script sees as "Host error (code): message": here, a tool that ran and failed. */
  HOST_ERROR: -32000,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A JSON-RPC id as it arrived: a string, null, a safe integer, or a number kept as its source text. */
export type RpcId = string | number | null | object;

export interface RpcHandlers {
  /** Answers a request; throws an RpcError to answer with an error (anything else is -32603). */
  request(method: string, params: Record<string, unknown>, id: RpcId): Promise<unknown>;
  notification(method: string, params: Record<string, unknown>): void;
  /** Something the other side sent that could not be taken, for the run's log. */
  problem(text: string): void;
}

/** A line longer than this is not read: the child is broken or hostile. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
/**
 * How many of the child's requests are served at once. One more is refused at once with an
 * error rather than queued or left unread: a queue would grow as the child sends, and pausing
 * its stdout would also hold back the answers and notifications the run waits for. Harn sends a
 * handful at a time (a script's parallel tool calls); a flood is a broken or hostile child.
 */
export const MAX_REQUESTS_SERVED_AT_ONCE = 64;

const { rawJSON } = JSON as unknown as { rawJSON(text: string): object };

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: RpcError): void;
  timer: NodeJS.Timeout | undefined;
}

export class RpcPeer {
  readonly #pending = new Map<string, Pending>();
  #serving = 0;
  #nextId = 1;
  #closed: RpcError | undefined;

  constructor(
    private readonly write: (line: string) => void,
    private readonly handlers: RpcHandlers,
  ) {}

  /** Sends a request with an unsigned integer id (Harn matches answers by that number). */
  request(method: string, params: unknown, timeoutMs?: number): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#pending.delete(String(id));
              reject(new RpcError(RpcCode.INTERNAL_ERROR, `Harn did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`));
            }, timeoutMs);
      this.#pending.set(String(id), { method, resolve, reject, timer });
      this.#send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.#closed) this.#send({ jsonrpc: '2.0', method, params });
  }

  /** Fails every request still waiting (the child exited); later sends are dropped. */
  close(reason: string): void {
    this.#closed ??= new RpcError(RpcCode.INTERNAL_ERROR, reason);
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(this.#closed);
    }
  }

  /** One line from the child. */
  receive(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = parseKeepingIdSource(line);
    } catch {
      this.handlers.problem('a line that is not JSON');
      this.#error(null, RpcCode.PARSE_ERROR, 'Parse error: not a JSON value');
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      // A batch is valid JSON-RPC 2.0 but nothing in Harn's protocol sends one.
      this.handlers.problem('a message that is not a JSON object');
      this.#error(null, RpcCode.INVALID_REQUEST, 'Invalid Request: expected one JSON-RPC object per line');
      return;
    }
    const fields = message as Record<string, unknown>;
    const id = fields.id;
    try {
      // Lone surrogates, non-finite numbers and deep nesting would fault the hashing and validation behind.
      assertWellFormed(message);
    } catch (error) {
      this.handlers.problem('a message that is not well-formed JSON for Capstan');
      const answerable = typeof id === 'string' || typeof id === 'number' || isRawJson(id);
      this.#error(answerable ? (id as RpcId) : null, RpcCode.INVALID_REQUEST, `Invalid Request: ${(error as Error).message.replace(/^BAD_REQUEST: /, '')}`);
      return;
    }
    const validId = id === undefined || id === null || typeof id === 'string' || typeof id === 'number' || isRawJson(id);
    if (fields.jsonrpc !== '2.0' || !validId) {
      this.handlers.problem(fields.jsonrpc !== '2.0' ? 'a message without "jsonrpc": "2.0"' : 'a message with an id that is not a string or number');
      if (fields.method !== undefined || id !== undefined) this.#error(validId ? (id ?? null) : null, RpcCode.INVALID_REQUEST, 'Invalid Request: needs "jsonrpc": "2.0" and a string or number id');
      return;
    }
    if (fields.method === undefined) {
      this.#answer(fields);
      return;
    }
    if (typeof fields.method !== 'string') {
      this.handlers.problem('a message whose method is not a string');
      if (id !== undefined) this.#error(id as RpcId, RpcCode.INVALID_REQUEST, 'Invalid Request: method must be a string');
      return;
    }
    const params = fields.params ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      this.handlers.problem(`${fields.method} with params that are not an object`);
      if (id !== undefined) this.#error(id as RpcId, RpcCode.INVALID_PARAMS, 'Invalid params: expected an object');
      return;
    }
    if (id === undefined) {
      this.handlers.notification(fields.method, params as Record<string, unknown>);
      return;
    }
    void this.#serve(fields.method, params as Record<string, unknown>, id as RpcId);
  }

  async #serve(method: string, params: Record<string, unknown>, id: RpcId): Promise<void> {
    if (this.#serving >= MAX_REQUESTS_SERVED_AT_ONCE) {
      this.handlers.problem(`${method.slice(0, 100)} while ${MAX_REQUESTS_SERVED_AT_ONCE} of its requests were being served`);
      // Tool rejected: nothing ran, which is what Harn's category says.
      this.#error(id, RpcCode.TOOL_REJECTED, `LIMIT_REACHED: Capstan serves at most ${MAX_REQUESTS_SERVED_AT_ONCE} of a script's requests at once; this one was not run, send it again once some are answered`, {
        code: 'LIMIT_REACHED',
        what: 'requests served at once',
        limit: MAX_REQUESTS_SERVED_AT_ONCE,
      });
      return;
    }
    this.#serving += 1;
    try {
      const result = await this.handlers.request(method, params, id);
      this.#send({ jsonrpc: '2.0', id, result: result ?? null });
    } catch (error) {
      if (error instanceof RpcError) this.#error(id, error.code, error.message, error.data);
      else this.#error(id, RpcCode.INTERNAL_ERROR, 'Internal error: the host could not answer this request');
    } finally {
      this.#serving -= 1;
    }
  }

  /** An answer to one of Capstan's requests. */
  #answer(fields: Record<string, unknown>): void {
    const key = fields.id === undefined || fields.id === null ? undefined : JSON.stringify(fields.id);
    const pending = key === undefined ? undefined : this.#pending.get(key);
    if (!pending) {
      // An error with a null id is Harn's answer to something it could not read.
      this.handlers.problem(fields.id === null ? `Harn reported an error: ${errorText(fields.error)}` : 'an answer to no request Capstan sent');
      return;
    }
    const hasResult = 'result' in fields;
    const error = fields.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    this.#pending.delete(key!);
    clearTimeout(pending.timer);
    if (hasResult === (error !== undefined)) {
      pending.reject(new RpcError(RpcCode.INVALID_REQUEST, `Harn's answer to ${pending.method} has ${hasResult ? 'both a result and an error' : 'neither a result nor an error'}`));
    } else if (error !== undefined) {
      pending.reject(new RpcError(typeof error.code === 'number' ? error.code : RpcCode.INTERNAL_ERROR, errorText(error), error.data));
    } else {
      pending.resolve(fields.result);
    }
  }

  #error(id: RpcId, code: number, message: string, data?: unknown): void {
    this.#send({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  }

  #send(message: Record<string, unknown>): void {
    try {
      this.write(JSON.stringify(message));
    } catch {
      // The child is gone; its exit ends the run.
    }
  }
}

function errorText(error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : 'an error without a message';
}

/**
 * Parses a line, the message's own numeric id beyond a safe integer kept as its source text
 * (JSON.parse with source access, Node ≥ 21). Only the top-level id: an `id` inside the params
 * (a tool's arguments) is data, and stays a number the well-formedness check and the tool both see.
 */
function parseKeepingIdSource(line: string): unknown {
  const idSources = new WeakMap<object, string>();
  const message: unknown = JSON.parse(line, function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
    // The reviver cannot tell the top-level object from a nested one yet: note each, keep the top's.
    if (key === 'id' && typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && typeof this === 'object' && this !== null) idSources.set(this, context.source);
    return value;
  });
  const source = typeof message === 'object' && message !== null ? idSources.get(message) : undefined;
  if (source !== undefined) (message as Record<string, unknown>).id = rawJSON(source);
  return message;
}

function isRawJson(value: unknown): boolean {
  return (JSON as unknown as { isRawJSON(value: unknown): boolean }).isRawJSON(value);
}

/**
 * Splits a byte stream into lines (UTF-8, `\n`, a trailing `\r` dropped). A line over
 * MAX_LINE_BYTES is a protocol error: `onTooLong` is told once and nothing more is read.
 */
export function lineSplitter(onLine: (line: string) => void, onTooLong: () => void): (chunk: Buffer) => void {
  let buffered: Buffer[] = [];
  let size = 0;
  let broken = false;
  return (chunk) => {
    if (broken) return;
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      if (size + end - start > MAX_LINE_BYTES) {
        broken = true;
        onTooLong();
        return;
      }
      const line = Buffer.concat([...buffered, chunk.subarray(start, end)]).toString('utf8');
      buffered = [];
      size = 0;
      start = end + 1;
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    const rest = chunk.subarray(start);
    size += rest.length;
    if (size > MAX_LINE_BYTES) {
      broken = true;
      onTooLong();
      return;
    }
    if (rest.length > 0) buffered.push(rest);
  };
}
