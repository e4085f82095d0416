/**
 * The console's two transports behind one interface: IPC through the preload in Electron,
 * HTTP with the bearer token in a browser. Every reply and event is validated against the
 * shared contract.
 */
import {
  ErrorEnvelope,
  operations,
  ToolCallResponse,
  type ErrorBody,
  type OperationInput,
  type OperationName,
  type OperationOutput,
  type ToolCallRequest,
} from '../../shared/api';
import { CapstanEvent, EVENTS_PATH } from '../../shared/events';
import type { CapstanBridge } from '../../shared/ipc';
import { openEventStream } from './eventStream';

/** A failed operation, with the gateway's error code (see shared/errors.ts). */
export class ApiError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message);
  }
  get code() {
    return this.body.code;
  }
}

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

export interface ConsoleTransport extends ConsoleApi {
  kind: 'ipc' | 'http';
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

/** The event if it is one this console knows, else undefined. */
function knownEvent(payload: unknown): CapstanEvent | undefined {
  const parsed = CapstanEvent.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}

export function createIpcTransport(bridge: CapstanBridge): ConsoleTransport {
  const invoke = async <K extends OperationName>(operation: K, input: OperationInput<K>): Promise<OperationOutput<K>> => {
    const reply = await bridge.invoke(operation, input);
    if (!reply.ok) throw new ApiError(reply.error);
    return operations[operation].output.parse(reply.value) as OperationOutput<K>;
  };
  return {
    ...everyOperation(invoke),
    kind: 'ipc',
    callConfirmed: (request) => invoke('callTool', request),
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
  const send = async <K extends OperationName>(operation: K, input: OperationInput<K>, options?: RequestOptions): Promise<OperationOutput<K>> => {
    const { method, path, output } = operations[operation];
    const url = new URL(withPathParams(path, input), baseUrl);
    // GET operations take their (flat) input as the query string, as the gateway reads it.
    if (method === 'GET' && input !== undefined) url.search = queryString(input);
    const requestBody = method === 'GET' || input === undefined ? null : JSON.stringify(input);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(requestBody === null ? {} : { 'content-type': 'application/json' }) },
        body: requestBody,
        signal: options?.signal ?? null,
      });
    } catch (error) {
      // A cancelled request is not a gateway problem: let the caller see the abort as such.
      if (options?.signal?.aborted) throw error;
      throw new ApiError({ code: 'INTERNAL_ERROR', message: 'The gateway cannot be reached. Is `capstan serve` still running?' });
    }
    const body: unknown = await response.json().catch(() => null);
    options?.signal?.throwIfAborted();
    // A tool call answers with its own result shape, successful or not.
    if (operation === 'callTool') {
      const call = ToolCallResponse.safeParse(body);
      if (call.success) return call.data as OperationOutput<K>;
    }
    if (!response.ok) {
      const envelope = ErrorEnvelope.safeParse(body);
      throw new ApiError(
        envelope.success ? envelope.data.error : { code: 'INTERNAL_ERROR', message: `HTTP ${response.status} from the gateway` },
      );
    }
    return output.parse(body) as OperationOutput<K>;
  };
  const callTool = (request: ToolCallRequest) => send('callTool', request);
  return {
    ...everyOperation(send),
    kind: 'http',
    callTool,
    subscribe: (listener, { onReconnect, onStatus } = {}) =>
      openEventStream({
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
      }),
    callConfirmed: async (request) => {
      const first = await callTool(request);
      const challenge = !first.ok && first.error.code === 'CONFIRMATION_REQUIRED' ? first.error.challenge : undefined;
      return challenge ? callTool({ ...request, confirmation: challenge.id }) : first;
    },
  };
}

/**
 * Fills a route's parameters (`/tasks/:id/cancel`) from the input's fields of the same name.
 * The fields stay in the body too: the gateway merges path and body, and the schema wants them.
 */
export function withPathParams(path: string, input: unknown): string {
  const fields = (input ?? {}) as Record<string, unknown>;
  return path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(fields[name] ?? '')));
}

/** A flat input as a query string; absent (undefined) fields are left out rather than sent as "undefined". */
export function queryString(input: unknown): string {
  const entries = Object.entries(input as Record<string, unknown>).filter(([, value]) => value !== undefined);
  return new URLSearchParams(entries.map(([key, value]) => [key, String(value)])).toString();
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
