/**
 * Typed IPC channels, declared once for main and preload (compare GitHub Desktop's ipc-shared.ts).
 * Each operation of the API contract has exactly one channel; nothing else crosses IPC.
 */
import type { ErrorEnvelope, OperationInput, OperationName, OperationOutput } from './api';
import type { CapstanEvent } from './events';

/**
 * Every operation's name, without the schemas, so the sandboxed preload stays small (importing
 * `operations` would bundle zod into it). The check below keeps it equal to the contract.
 */
export const OPERATION_NAMES = [
  'listTools',
  'callTool',
  'getSettings',
  'saveSettings',
  'listExecutions',
  'clearExecutions',
  'saveHistorySettings',
  'getCatalog',
  'searchCatalog',
  'getDiagnostics',
  'getDiagnosticExcerpt',
  'getSkillText',
  'setProviderEnabled',
  'setCapabilityRevoked',
  'listMcpServers',
  'saveMcpServer',
  'removeMcpServer',
  'reconnectProvider',
  'listTasks',
  'taskAction',
  'cancelTask',
  'cancelCall',
  'resumeTask',
  'acknowledgeOutcome',
  'reduceGrant',
  'getLedger',
  'listApprovals',
  'decideApproval',
  'verifyLedger',
  'checkEvidence',
  'capabilitiesList',
  'capabilitiesSearch',
  'capabilitiesInspect',
  'toolsLoad',
  'skillsActivate',
  'startHarnRun',
  'listHarnRuns',
  'getHarnRun',
  'listAgents',
  'createAgent',
  'revokeAgent',
] as const satisfies readonly OperationName[];

const everyOperationHasAName: Exclude<OperationName, (typeof OPERATION_NAMES)[number]> extends never ? true : never = true;
void everyOperationHasAName;

export const isOperationName = (value: unknown): value is OperationName =>
  typeof value === 'string' && (OPERATION_NAMES as readonly string[]).includes(value);

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
