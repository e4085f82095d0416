/**
 * The console's two transports behind one interface: IPC through the preload in Electron,
 * HTTP with the bearer token in a browser. Every reply is validated against the shared contract.
 */
import {
  ErrorEnvelope,
  operations,
  ToolCallResponse,
  type CapstanApi,
  type ErrorBody,
  type OperationInput,
  type OperationName,
  type OperationOutput,
  type ToolCallRequest,
} from '../../shared/api';
import type { CapstanBridge } from '../../shared/ipc';

/** A failed operation, with the gateway's error code (see shared/errors.ts). */
export class ApiError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message);
  }
  get code() {
    return this.body.code;
  }
}

export interface ConsoleTransport extends CapstanApi {
  kind: 'ipc' | 'http';
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
  invoke: <K extends OperationName>(operation: K, input: OperationInput<K>) => Promise<OperationOutput<K>>,
): CapstanApi {
  const entries = (Object.keys(operations) as OperationName[]).map((operation) => [
    operation,
    (input: OperationInput<typeof operation>) => invoke(operation, input),
  ]);
  return Object.fromEntries(entries) as CapstanApi;
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
  };
}

export function createHttpTransport(baseUrl: string, token: string): ConsoleTransport {
  const send = async <K extends OperationName>(operation: K, input: OperationInput<K>): Promise<OperationOutput<K>> => {
    const { method, path, output } = operations[operation];
    const url = new URL(path, baseUrl);
    // GET operations take their (flat, string-valued) input as the query string, as the gateway reads it.
    if (method === 'GET' && input !== undefined) url.search = new URLSearchParams(input as Record<string, string>).toString();
    const requestBody = method === 'GET' || input === undefined ? null : JSON.stringify(input);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(requestBody === null ? {} : { 'content-type': 'application/json' }) },
        body: requestBody,
      });
    } catch {
      throw new ApiError({ code: 'INTERNAL_ERROR', message: 'The gateway cannot be reached. Is `capstan serve` still running?' });
    }
    const body: unknown = await response.json().catch(() => null);
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
    callConfirmed: async (request) => {
      const first = await callTool(request);
      const challenge = !first.ok && first.error.code === 'CONFIRMATION_REQUIRED' ? first.error.challenge : undefined;
      return challenge ? callTool({ ...request, confirmation: challenge.id }) : first;
    },
  };
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
