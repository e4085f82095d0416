/**
 * Typed IPC channels, declared once for main and preload (compare GitHub Desktop's ipc-shared.ts).
 * Each operation of the API contract has exactly one channel; nothing else crosses IPC.
 */
import { operations, type ErrorEnvelope, type OperationInput, type OperationName, type OperationOutput } from './api';
import type { CapstanEvent } from './events';

/**
 * Every operation's name, read off the contract itself, so adding an operation adds its channel.
 * The preload checks names with it, so a page never reaches a channel that is not an
 * operation's; its bundle gets the names alone, not the schemas (build/build.mjs).
 */
export const OPERATION_NAMES = Object.keys(operations) as OperationName[];

/** One check, for the preload and the IPC entry: own names only, so `constructor` or `__proto__` are not operations. */
export const isOperationName = (value: unknown): value is OperationName => typeof value === 'string' && Object.hasOwn(operations, value);

export const ipcChannel = <K extends OperationName>(operation: K) => `capstan:${operation}` as const;

export const ipcChannels = OPERATION_NAMES.map(ipcChannel);

/** Main → renderer: live events (see shared/events.ts). */
export const IPC_EVENT_CHANNEL = 'capstan:event';

/** IPC replies are envelopes so error codes survive the trip (a thrown Error would lose them). */
export type IpcReply<K extends OperationName> = { ok: true; value: OperationOutput<K> } | ErrorEnvelope;

/** The narrow surface the preload exposes on `window.capstan`. */
export interface CapstanBridge {
  invoke<K extends OperationName>(operation: K, input: OperationInput<K>): Promise<IpcReply<K>>;
  /** Live events from main; returns the function that stops listening. */
  onEvent(listener: (event: CapstanEvent) => void): () => void;
}
