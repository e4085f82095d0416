/**
 * The CLI's one HTTP client of the gateway, built on the contract's `operations` table as the
 * console's HTTP transport is (renderer/api/transport.ts): `call(operation, input)` takes its
 * method and path from the table, fills the path's parameters from the input, sends a GET's input
 * as the query string the gateway reads (transports/http.ts: `request.query`, each value a
 * string the schema coerces) and any other input as the JSON body, checks the answer against the
 * operation's output schema, and throws the gateway's error envelope as a GatewayError (exit 1).
 * `events()` reads the gateway's event stream (`GET /events`, not an operation).
 *
 * Which gateway, and with which token, is connection.ts's business.
 */
import { ErrorEnvelope, operations, type OperationInput, type OperationName, type OperationOutput } from '../../shared/api';
import { CapstanEvent, EVENTS_PATH } from '../../shared/events';
import { operationRequest } from '../../shared/routes';
import { EXIT, GatewayError, OperatorError } from './errors';

export interface Client {
  /** The gateway's base URL, e.g. http://127.0.0.1:7077 */
  url: string;
  /** Runs one operation of the contract; resolves with its checked output or throws an OperatorError. */
  call<K extends OperationName>(operation: K, input: OperationInput<K>): Promise<OperationOutput<K>>;
  /** Opens the live event stream: open it before doing what it should report, so nothing is missed. */
  events(): Promise<EventFeed>;
}

/** The gateway's events as they come, those of a type this CLI does not know left out. */
export interface EventFeed extends AsyncIterable<CapstanEvent> {
  /** Stops reading and closes the connection (also what ending a `for await` over it does). */
  close(): void;
}

/**
 * `tokenFrom` says where the token came from (connection.ts), so that a gateway refusing it
 * (UNAUTHORIZED) reads as "this token was refused", not as the gateway's "send a token": the CLI
 * never sends a request without one.
 */
export function createClient(baseUrl: string, token: string, tokenFrom = '--token-file or CAPSTAN_TOKEN'): Client {
  /** One exchange; a gateway that does not answer is exit 3, whatever the operation. */
  const send = async (method: string, url: URL, body: string | null): Promise<Response> => {
    try {
      return await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === null ? {} : { 'content-type': 'application/json' }) },
        body,
      });
    } catch (error) {
      const why = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      // After anything but a read the operation may have run: the ledger, not this message, can tell.
      const maybe = method !== 'GET' ? '; the call may or may not have run (look it up in the ledger)' : '';
      throw new OperatorError(`the gateway at ${baseUrl} did not answer (${why})${maybe}`, EXIT.unreachable, 'GATEWAY_UNREACHABLE');
    }
  };

  /** A failure status as the gateway's envelope; something else answering as what it is. */
  const failure = async (response: Response): Promise<OperatorError> => {
    const text = await response.text().catch(() => '');
    const parsed = parseJson(text);
    if (parsed === undefined) return notJson(response.status);
    const envelope = ErrorEnvelope.safeParse(parsed);
    // The answer as sent (an envelope may carry details the schema does not name), once it has the envelope's shape.
    if (envelope.success && envelope.data.error.code === 'UNAUTHORIZED') {
      const message = `the token from ${tokenFrom} was refused by the gateway at ${baseUrl}: it is not that gateway's operator token (the one \`capstan serve\` was started with)`;
      return new GatewayError(response.status, parsed as ErrorEnvelope, message);
    }
    if (envelope.success) return new GatewayError(response.status, parsed as ErrorEnvelope);
    return new OperatorError(`HTTP ${response.status} from ${baseUrl}, without an error envelope`, EXIT.failed, `HTTP_${response.status}`);
  };

  const notJson = (status: number) => new OperatorError(`${baseUrl} answered HTTP ${status} with a body that is not JSON: is it a Capstan gateway?`, EXIT.failed);

  return {
    url: baseUrl,
    call: async (operation, input) => {
      const request = operationRequest(baseUrl, operation, input);
      const response = await send(request.method, request.url, request.body);
      if (!response.ok) throw await failure(response);
      const value = parseJson(await response.text());
      if (value === undefined) throw notJson(response.status);
      return checkedOutput(operation, value);
    },
    events: async () => {
      const response = await send('GET', new URL(EVENTS_PATH, baseUrl), null);
      if (!response.ok) throw await failure(response);
      if (!response.body) throw new OperatorError(`${baseUrl} answered ${EVENTS_PATH} without a stream`, EXIT.failed);
      return eventFeed(response.body);
    },
  };
}

/**
 * An answer checked against the operation's contract. One that does not fit is the gateway's
 * fault (or a gateway of another version), and is reported as such.
 */
function checkedOutput<K extends OperationName>(operation: K, value: unknown): OperationOutput<K> {
  const parsed = operations[operation].output.safeParse(value);
  if (parsed.success) return parsed.data as OperationOutput<K>;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new OperatorError(`the gateway's answer to ${operation} does not match the contract${where}: ${issue?.message ?? 'invalid'}`, EXIT.failed, 'INTERNAL_ERROR');
}

/** The body's JSON, or undefined when it is not JSON (a proxy's error page, a cut-off answer). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Server-sent events, one `data:` payload per event (blank-line separated), as the gateway writes them. */
function eventFeed(body: ReadableStream<Uint8Array>): EventFeed {
  const reader = body.getReader();
  const close = () => void reader.cancel().catch(() => undefined);
  async function* read(): AsyncGenerator<CapstanEvent> {
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffered += decoder.decode(value, { stream: true }).replaceAll('\r\n', '\n');
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const data = buffered
            .slice(0, end)
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(line.startsWith('data: ') ? 'data: '.length : 'data:'.length))
            .join('\n');
          buffered = buffered.slice(end + 2);
          const parsed = data ? CapstanEvent.safeParse(parseJson(data)) : undefined;
          if (parsed?.success) yield parsed.data;
        }
      }
    } finally {
      close();
    }
  }
  const events = read();
  return { [Symbol.asyncIterator]: () => events, close };
}
