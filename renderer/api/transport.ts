/**
 * The console's two transports behind one interface: IPC through the preload in Electron,
 * HTTP with the bearer token in a browser. Every reply and event is validated against the
 * shared contract, and every failure rejects with an ApiError (./errors.ts), a failed tool call
 * included: callers never inspect a reply for `ok: false`.
 */
import {
  ErrorEnvelope,
  operations,
  type OperationInput,
  type OperationName,
  type OperationOutput,
  type ToolCallRequest,
  type ToolCallResponse,
} from '../../shared/api';
import type { CatalogView } from '../../shared/discovery';
import { CapstanEvent, EVENTS_PATH } from '../../shared/events';
import type { CapstanBridge } from '../../shared/ipc';
import { operationRequest } from '../../shared/routes';
import { ApiError, consoleError } from './errors';
import { openEventStream, type EventStream } from './eventStream';

export interface RequestOptions {
  /** Aborts the request over HTTP (a superseded search); over IPC the answer is only ignored. */
  signal?: AbortSignal | undefined;
}

/** Every operation of the contract, each taking request options as well as its input. */
export type ConsoleApi = {
  [K in OperationName]: (input: OperationInput<K>, options?: RequestOptions) => Promise<OperationOutput<K>>;
};

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface SubscribeOptions {
  /** The stream came back after a drop: events may have been missed, so refresh everything they cover. */
  onReconnect?(): void;
  /** Whether events are flowing, for the operator to know the page is current. */
  onStatus?(status: LiveStatus): void;
}

/** A catalog read: the view with its entity tag (null over IPC, which has none), or `unchanged` when it still has the tag sent. */
export type CatalogRead = { view: CatalogView; tag: string | null } | 'unchanged';

export interface ConsoleTransport extends ConsoleApi {
  kind: 'ipc' | 'http';
  /**
   * `GET /catalog`, conditional on the tag of the view the console holds: over HTTP an unchanged
   * catalog answers 304 and nothing is read or parsed. IPC, which never drops an event, reads it whole.
   */
  readCatalog(tag: string | null): Promise<CatalogRead>;
  /**
   * Live events from the gateway (shared/events.ts). Events of a type this console does not
   * know are dropped here, so newer gateways can add types. Returns the function that stops
   * listening.
   */
  subscribe(listener: (event: CapstanEvent) => void, options?: SubscribeOptions): () => void;
  /**
   * Runs a call the operator has just reviewed and confirmed. Over HTTP the page answers the
   * gateway's challenge; in Electron the main process asks again with a native dialog, so a
   * page can never confirm on the operator's behalf.
   */
  callConfirmed(request: ToolCallRequest): Promise<ToolCallResponse>;
  /** A dropped event stream tries again now rather than after its backoff (the operator's Retry now). */
  reconnectNow(): void;
}

declare global {
  interface Window {
    capstan?: CapstanBridge;
  }
}

/** Every operation of the contract over one invoke function, so new operations need no new wiring here. */
function everyOperation(
  invoke: <K extends OperationName>(operation: K, input: OperationInput<K>, options?: RequestOptions) => Promise<OperationOutput<K>>,
): ConsoleApi {
  const entries = (Object.keys(operations) as OperationName[]).map((operation) => [
    operation,
    (input: OperationInput<typeof operation>, options?: RequestOptions) => invoke(operation, input, options),
  ]);
  return Object.fromEntries(entries) as ConsoleApi;
}

/**
 * An answer checked against the operation's contract. One that does not fit is the gateway's
 * fault (or a gateway of another version), so it fails like any other gateway fault.
 */
function checkedOutput<K extends OperationName>(operation: K, value: unknown): OperationOutput<K> {
  const parsed = operations[operation].output.safeParse(value);
  if (parsed.success) return parsed.data as OperationOutput<K>;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  throw consoleError('INTERNAL_ERROR', `The gateway's answer to ${operation} does not match the contract${where}: ${issue?.message ?? 'invalid'}`);
}

const UNREACHABLE = 'The gateway cannot be reached, or its answer never came back. Is `capstan serve` still running?';

/** The event if it is one this console knows, else undefined. */
function knownEvent(payload: unknown): CapstanEvent | undefined {
  const parsed = CapstanEvent.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}

export function createIpcTransport(bridge: CapstanBridge): ConsoleTransport {
  const invoke = async <K extends OperationName>(operation: K, input: OperationInput<K>): Promise<OperationOutput<K>> => {
    // Main answers every invoke with an envelope; a rejected invoke never reached its handler.
    const reply = await bridge.invoke(operation, input).catch((error: unknown) => {
      throw consoleError('GATEWAY_UNREACHABLE', `${UNREACHABLE} (${error instanceof Error ? error.message : String(error)})`);
    });
    if (!reply.ok) throw new ApiError(reply);
    return checkedOutput(operation, reply.value);
  };
  return {
    ...everyOperation(invoke),
    kind: 'ipc',
    readCatalog: async () => ({ view: await invoke('getCatalog', undefined), tag: null }),
    callConfirmed: (request) => invoke('callTool', request),
    reconnectNow: () => undefined,
    // IPC does not drop while the window lives, so there is nothing to reconnect.
    subscribe: (listener, { onStatus } = {}) => {
      const stop = bridge.onEvent((payload) => {
        const event = knownEvent(payload);
        if (event) listener(event);
      });
      onStatus?.('live');
      return stop;
    },
  };
}

export function createHttpTransport(baseUrl: string, token: string): ConsoleTransport {
  /** One request; a 304 comes back with no text, any other failure status is thrown as its envelope. */
  const exchange = async <K extends OperationName>(
    operation: K,
    input: OperationInput<K>,
    options?: RequestOptions,
    headers: Record<string, string> = {},
  ): Promise<{ response: Response; text: string }> => {
    const { method, url, body: requestBody } = operationRequest(baseUrl, operation, input);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(requestBody === null ? {} : { 'content-type': 'application/json' }), ...headers },
        body: requestBody,
        signal: options?.signal ?? null,
        // Conditional reads are the console's own (readCatalog): the browser's cache must not answer them.
        cache: 'no-store',
      });
      text = response.status === 304 ? '' : await response.text();
    } catch (error) {
      // A cancelled request is not a gateway problem: let the caller see the abort as such.
      if (options?.signal?.aborted) throw error;
      throw consoleError('GATEWAY_UNREACHABLE', UNREACHABLE);
    }
    options?.signal?.throwIfAborted();
    if (response.ok || response.status === 304) return { response, text };
    const envelope = ErrorEnvelope.safeParse(parseJson(text));
    if (envelope.success) throw new ApiError(envelope.data);
    // Something between here and the gateway answered, or the gateway broke its own contract.
    throw consoleError('INTERNAL_ERROR', `HTTP ${response.status} from the gateway, without an error envelope`);
  };
  const send = async <K extends OperationName>(operation: K, input: OperationInput<K>, options?: RequestOptions): Promise<OperationOutput<K>> =>
    checkedOutput(operation, parseJson((await exchange(operation, input, options)).text));
  const callTool = (request: ToolCallRequest) => send('callTool', request);
  const streams = new Set<EventStream>();
  return {
    ...everyOperation(send),
    kind: 'http',
    readCatalog: async (tag) => {
      const { response, text } = await exchange('getCatalog', undefined, undefined, tag ? { 'if-none-match': tag } : {});
      if (response.status === 304) return 'unchanged';
      return { view: checkedOutput('getCatalog', parseJson(text)), tag: response.headers.get('etag') };
    },
    reconnectNow: () => streams.forEach((stream) => stream.reconnectNow()),
    subscribe: (listener, { onReconnect, onStatus } = {}) => {
      const stream = openEventStream({
        url: new URL(EVENTS_PATH, baseUrl).href,
        token,
        onOpen: (reconnected) => {
          onStatus?.('live');
          if (reconnected) onReconnect?.();
        },
        onDrop: () => onStatus?.('reconnecting'),
        onRefused: () => onStatus?.('refused'),
        onMessage: ({ data }) => {
          let payload: unknown;
          try {
            payload = JSON.parse(data);
          } catch {
            return;
          }
          const event = knownEvent(payload);
          if (event) listener(event);
        },
      });
      streams.add(stream);
      return () => {
        streams.delete(stream);
        stream.stop();
      };
    },
    // The operator confirmed in the page: answer the gateway's challenge, once.
    callConfirmed: async (request): Promise<ToolCallResponse> => {
      try {
        return await callTool(request);
      } catch (error) {
        const challenge = error instanceof ApiError && error.code === 'CONFIRMATION_REQUIRED' ? error.body.challenge : undefined;
        if (!challenge) throw error;
        return callTool({ ...request, confirmation: challenge.id });
      }
    },
  };
}

/** The body's JSON, or undefined when it is not JSON (a proxy's error page, a cut-off answer). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const TOKEN_KEY = 'capstan.token';

/**
 * Picks the transport for where the console runs. In a browser the token arrives once in the
 * URL fragment (`#token=...`); it is kept for this tab only and removed from the address bar.
 */
export function createTransport(): ConsoleTransport {
  if (window.capstan) return createIpcTransport(window.capstan);
  const fromUrl = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return createHttpTransport(window.location.origin, sessionStorage.getItem(TOKEN_KEY) ?? '');
}
