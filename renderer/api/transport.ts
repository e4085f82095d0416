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

export function createIpcTransport(bridge: CapstanBridge): ConsoleTransport {
  const invoke = async <K extends OperationName>(operation: K, input: OperationInput<K>): Promise<OperationOutput<K>> => {
    const reply = await bridge.invoke(operation, input);
    if (!reply.ok) throw new ApiError(reply.error);
    return operations[operation].output.parse(reply.value) as OperationOutput<K>;
  };
  return {
    kind: 'ipc',
    listTools: () => invoke('listTools', undefined),
    callTool: (request) => invoke('callTool', request),
    getSettings: () => invoke('getSettings', undefined),
    saveSettings: (settings) => invoke('saveSettings', settings),
    callConfirmed: (request) => invoke('callTool', request),
  };
}

export function createHttpTransport(baseUrl: string, token: string): ConsoleTransport {
  const send = async <K extends OperationName>(operation: K, input: OperationInput<K>): Promise<OperationOutput<K>> => {
    const { method, path, output } = operations[operation];
    let response: Response;
    try {
      response = await fetch(new URL(path, baseUrl), {
        method,
        headers: { authorization: `Bearer ${token}`, ...(input === undefined ? {} : { 'content-type': 'application/json' }) },
        body: input === undefined ? null : JSON.stringify(input),
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
    kind: 'http',
    listTools: () => send('listTools', undefined),
    callTool,
    getSettings: () => send('getSettings', undefined),
    saveSettings: (settings) => send('saveSettings', settings),
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
