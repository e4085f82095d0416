/**
 * Typed IPC channels, declared once for main and preload (compare GitHub Desktop's ipc-shared.ts).
 * Each operation of the API contract has exactly one channel; nothing else crosses IPC.
 */
import type { ErrorBody, OperationInput, OperationName, OperationOutput } from './api';
import { operations } from './api';

export const ipcChannel = <K extends OperationName>(operation: K) => `capstan:${operation}` as const;

export type IpcChannel = ReturnType<typeof ipcChannel<OperationName>>;

export const ipcChannels = (Object.keys(operations) as OperationName[]).map(ipcChannel);

/** IPC replies are envelopes so error codes survive the trip (a thrown Error would lose them). */
export type IpcReply<K extends OperationName> = { ok: true; value: OperationOutput<K> } | { ok: false; error: ErrorBody };

/** The narrow surface the preload exposes on `window.capstan`. */
export interface CapstanBridge {
  invoke<K extends OperationName>(operation: K, input: OperationInput<K>): Promise<IpcReply<K>>;
}
