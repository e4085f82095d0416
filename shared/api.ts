/**
 * The one contract between Capstan's clients and its gateway. HTTP routes and IPC channels are
 * both derived from `operations`, and every payload is validated with these schemas at the
 * boundary it crosses.
 */
import { PinAcceptInput, PinDiff, PinIdInput, PinsView } from './pins';
import { z } from 'zod';
import { ApprovalDecisionInput, ApprovalsView, ApprovalView } from './approvals';
import { AgentNameInput, AgentsView, CreateAgentInput, CreatedAgent } from './agents';
import { CapabilityReference, ToolContract } from './capability';
import {
  CapabilitiesInspectInput,
  CapabilitiesInspectOutput,
  CapabilitiesListInput,
  CapabilitiesListOutput,
  CapabilitiesSearchInput,
  CapabilitiesSearchOutput,
  CapabilityRevokedInput,
  CatalogSearchInput,
  CatalogSearchOutput,
  CatalogView,
  DiagnosticExcerpt,
  DiagnosticExcerptInput,
  DiagnosticsOutput,
  ProviderEnabledInput,
  SkillsActivateInput,
  SkillsActivateOutput,
  SkillText,
  SkillTextInput,
  ToolsLoadInput,
  ToolsLoadOutput,
} from './discovery';
import { HarnRunQuery, HarnRunRequest, HarnRunsView, HarnRunView } from './harn';
import { EvidenceCheck, EvidenceCheckInput, LedgerPage, LedgerQuery, LedgerVerification } from './ledger';
import { ExecutionsQuery, ExecutionsView, HistorySettings } from './executions';
import { McpServerAuth, McpServerNameInput, McpServersView, SaveMcpServerInput, ServerSignIn, ServerSignOut, SetServerPolicyInput } from './mcp';
import { ProtocolLogQuery, ProtocolLogView } from './protocolLog';
import { AnswerAskInput, ServerAskView, ServerAsksView } from './serverAsks';
import { ServerLogQuery, ServerLogView, SetServerLogLevelInput } from './serverLog';
import { AcknowledgeInput, CallCancelInput, CallCancellation, ReduceGrantInput, SessionView, TaskAction, TaskIdInput, TasksQuery, TaskView, TasksView } from './tasks';
import { errorCodes, type ErrorCode } from './errors';
import {
  CompleteInput,
  CompleteOutput,
  GetPromptInput,
  GetPromptOutput,
  PromptList,
  ReadResourceInput,
  ReadResourceOutput,
  ResourceList,
  ResourceListInput,
  ResourceSubscriptionInput,
  ResourceSubscriptions,
} from './resources';

export { RiskLevel } from './capability';

/** The seed registry's view of a tool contract, as `GET /tools` lists it. */
export const ToolDescriptor = ToolContract.pick({
  id: true,
  name: true,
  title: true,
  description: true,
  riskLevel: true,
  needConfirm: true,
  mutating: true,
  inputSchema: true,
  returnExample: true,
  provider: true,
  tags: true,
  runnable: true,
  notRunnableReason: true,
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

export const ToolsList = z.object({
  generation: z.number().int().nonnegative(),
  tools: z.array(ToolDescriptor),
  /** Providers still reading their first contents at start (`skills`): more tools may follow, with a catalog event. */
  loading: z.array(z.string()).optional(),
});
export type ToolsList = z.infer<typeof ToolsList>;

/** The longest requestId a client may choose. */
export const MAX_REQUEST_ID = 128;
/**
 * The longest path parameter the gateway routes, as sent: the longest id (a requestId, a task id,
 * a server's name: 128 characters) with every character percent-encoded. Each route's schema then
 * bounds what it decodes to.
 */
export const MAX_PATH_PARAM = 3 * MAX_REQUEST_ID;
/** A client-chosen requestId is kept when it matches this; otherwise the gateway makes one. */
export const REQUEST_ID_PATTERN = new RegExp(`^[A-Za-z0-9._:-]{1,${MAX_REQUEST_ID}}$`);

export const ToolCallRequest = z.strictObject({
  tool: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).default({}),
  requestId: z.string().max(1024).optional(),
  confirmation: z.string().max(256).optional(),
  /** The session whose running task the call joins (default "operator"); one is started if none runs. */
  sessionId: z.string().min(1).max(128).optional(),
  /** Or a specific task, which must be running. */
  taskId: z.string().min(1).max(128).optional(),
  /**
   * A call by reference, as MCP's `capability_call` makes it: the reference discovery handed out
   * for `tool`, which must still match the task's snapshot and the live catalog (else
   * STALE_CAPABILITY) and must have been loaded into the task with `tools_load` (else TOOL_NOT_LOADED).
   */
  reference: CapabilityReference.optional(),
});
export type ToolCallRequest = z.input<typeof ToolCallRequest>;

export const ConfirmationChallenge = z.object({
  id: z.string(),
  tool: z.string(),
  argumentsDigest: z.string(),
  expiresAt: z.string(),
});
export type ConfirmationChallenge = z.infer<typeof ConfirmationChallenge>;

const codes = Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]];

export const ErrorBody = z.object({
  code: z.enum(codes),
  message: z.string(),
  /** The argument a validation error is about, as a dotted path. */
  field: z.string().optional(),
  /** Present with CONFIRMATION_REQUIRED: answer it by re-sending the call with its id. */
  challenge: ConfirmationChallenge.optional(),
  /** Present with TOOL_ERROR: the tool's own answer (MCP `content`, and `structuredContent` when sent). */
  result: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** A call that ran and returned; every other outcome is an error envelope with the call's requestId and task. */
export const ToolCallResponse = z.object({
  requestId: z.string(),
  taskId: z.string(),
  ok: z.literal(true),
  result: z.unknown(),
  durationMs: z.number(),
  /** The W3C trace id of the call: its OpenTelemetry trace, and the one MCP servers see in `_meta.traceparent`. */
  traceId: z.string().regex(/^[0-9a-f]{32}$/).optional(),
});
export type ToolCallResponse = z.infer<typeof ToolCallResponse>;

/** The console's own preferences, kept by the gateway so they survive restarts and port changes. */
export const ConsoleSettings = z.strictObject({
  /** Tool names the operator lets the console run with one click (it only ever tightens policy). */
  whitelist: z.array(z.string().min(1).max(128)).max(1000),
});
export type ConsoleSettings = z.infer<typeof ConsoleSettings>;

export const DEFAULT_CONSOLE_SETTINGS: ConsoleSettings = { whitelist: ['time_now', 'local_status'] };

const NoInput = z.undefined();

/**
 * Who may run each operation: `operator` (the console over IPC, the gateway's own token) or
 * `any` principal, agents included (services/principal.ts enforces it in dispatch, with
 * FORBIDDEN_FOR_AGENT). Every operation must choose; agents get only discovery and calls, in
 * sessions of their own.
 */
export type Audience = 'operator' | 'any';

export const operations = {
  listTools: { method: 'GET', path: '/tools', input: NoInput, output: ToolsList, audience: 'any' },
  callTool: { method: 'POST', path: '/tools/call', input: ToolCallRequest, output: ToolCallResponse, audience: 'any' },
  getSettings: { method: 'GET', path: '/settings', input: NoInput, output: ConsoleSettings, audience: 'operator' },
  saveSettings: { method: 'PUT', path: '/settings', input: ConsoleSettings, output: ConsoleSettings, audience: 'operator' },

  // Recent executions: the operator's own calls with arguments and results (shared/executions.ts).
  listExecutions: { method: 'GET', path: '/executions', input: ExecutionsQuery, output: ExecutionsView, audience: 'operator' },
  clearExecutions: { method: 'DELETE', path: '/executions', input: NoInput, output: ExecutionsView, audience: 'operator' },
  saveHistorySettings: { method: 'PUT', path: '/executions/settings', input: HistorySettings, output: ExecutionsView, audience: 'operator' },

  // The operator's catalog: everything, whatever a task may discover.
  getCatalog: { method: 'GET', path: '/catalog', input: NoInput, output: CatalogView, audience: 'operator' },
  searchCatalog: { method: 'GET', path: '/catalog/search', input: CatalogSearchInput, output: CatalogSearchOutput, audience: 'operator' },
  getDiagnostics: { method: 'GET', path: '/diagnostics', input: NoInput, output: DiagnosticsOutput, audience: 'operator' },
  getDiagnosticExcerpt: { method: 'GET', path: '/diagnostics/excerpt', input: DiagnosticExcerptInput, output: DiagnosticExcerpt, audience: 'operator' },
  getSkillText: { method: 'GET', path: '/catalog/skill', input: SkillTextInput, output: SkillText, audience: 'operator' },
  setProviderEnabled: { method: 'POST', path: '/providers/enabled', input: ProviderEnabledInput, output: CatalogView, audience: 'operator' },
  setCapabilityRevoked: { method: 'POST', path: '/catalog/revoked', input: CapabilityRevokedInput, output: CatalogView, audience: 'operator' },

  // MCP servers (providers of kind mcp): config.json's mcpServers, edited from the console.
  listMcpServers: { method: 'GET', path: '/mcp-servers', input: NoInput, output: McpServersView, audience: 'operator' },
  saveMcpServer: { method: 'PUT', path: '/mcp-servers/:name', input: SaveMcpServerInput, output: McpServersView, audience: 'operator' },
  removeMcpServer: { method: 'DELETE', path: '/mcp-servers/:name', input: McpServerNameInput, output: McpServersView, audience: 'operator' },
  /** A server's policy: its tools' confirmation and risk floor, per-tool overrides, acceptNewTools (shared/mcp.ts). */
  setServerPolicy: { method: 'PUT', path: '/mcp-servers/:name/policy', input: SetServerPolicyInput, output: McpServersView, audience: 'operator' },
  reconnectProvider: { method: 'POST', path: '/providers/:name/reconnect', input: McpServerNameInput, output: McpServersView, audience: 'operator' },
  /** A server's log lines (`notifications/message`), bounded, secrets masked (shared/serverLog.ts); live as `serverLog` events. */
  getServerLog: { method: 'GET', path: '/mcp-servers/:name/log', input: ServerLogQuery, output: ServerLogView, audience: 'operator' },
  /** How much the server logs (`logging/setLevel`), asked now and on every connection after. */
  setServerLogLevel: { method: 'PUT', path: '/mcp-servers/:name/log/level', input: SetServerLogLevelInput, output: ServerLogView, audience: 'operator' },
  /** The protocol view: the last JSON-RPC messages with the server, both ways, each tied to its call's requestId (shared/protocolLog.ts). */
  getProtocolLog: { method: 'GET', path: '/mcp-servers/:name/protocol', input: ProtocolLogQuery, output: ProtocolLogView, audience: 'operator' },
  /** A URL server's OAuth state: signed in as, scopes, expiry, next refresh, the last error (never a token; shared/mcp.ts). */
  getServerAuth: { method: 'GET', path: '/mcp-servers/:name/auth', input: McpServerNameInput, output: McpServerAuth, audience: 'operator' },
  /** Starts an OAuth sign-in: answers with the authorization URL to open; the server reconnects when the browser comes back. */
  signInServer: { method: 'POST', path: '/mcp-servers/:name/sign-in', input: McpServerNameInput, output: ServerSignIn, audience: 'operator' },
  /** Forgets the server's tokens here (revoked at the authorization server where it offers revocation); the server then waits for a sign-in. */
  signOutServer: { method: 'POST', path: '/mcp-servers/:name/sign-out', input: McpServerNameInput, output: ServerSignOut, audience: 'operator' },

  // Sessions, tasks and the ledger.
  listTasks: { method: 'GET', path: '/tasks', input: TasksQuery, output: TasksView, audience: 'any' },
  taskAction: { method: 'POST', path: '/tasks', input: TaskAction, output: TaskView, audience: 'any' },
  cancelTask: { method: 'POST', path: '/tasks/:id/cancel', input: TaskIdInput, output: TaskView, audience: 'any' },
  /** One running call, not its task; an agent may cancel only the calls it made itself (services/api.ts). */
  cancelCall: { method: 'POST', path: '/calls/:requestId/cancel', input: CallCancelInput, output: CallCancellation, audience: 'any' },
  resumeTask: { method: 'POST', path: '/tasks/:id/resume', input: TaskIdInput, output: TaskView, audience: 'operator' },
  acknowledgeOutcome: { method: 'POST', path: '/tasks/:id/acknowledge', input: AcknowledgeInput, output: SessionView, audience: 'operator' },
  reduceGrant: { method: 'POST', path: '/tasks/:id/grants', input: ReduceGrantInput, output: TaskView, audience: 'operator' },
  getLedger: { method: 'GET', path: '/ledger', input: LedgerQuery, output: LedgerPage, audience: 'operator' },
  // Agents' calls waiting for the operator (operator only).
  listApprovals: { method: 'GET', path: '/approvals', input: NoInput, output: ApprovalsView, audience: 'operator' },
  decideApproval: { method: 'POST', path: '/approvals/:id', input: ApprovalDecisionInput, output: ApprovalView, audience: 'operator' },
  // What MCP servers ask of the operator during a call: elicitation, sampling (shared/serverAsks.ts). Operator only: Capstan never answers for a person.
  listAsks: { method: 'GET', path: '/asks', input: NoInput, output: ServerAsksView, audience: 'operator' },
  answerAsk: { method: 'POST', path: '/asks/:id', input: AnswerAskInput, output: ServerAskView, audience: 'operator' },
  verifyLedger: { method: 'GET', path: '/ledger/verify', input: NoInput, output: LedgerVerification, audience: 'operator' },
  checkEvidence: { method: 'POST', path: '/ledger/evidence', input: EvidenceCheckInput, output: EvidenceCheck, audience: 'operator' },

  // Model-facing discovery, run in a task. The wire names (paths, and MCP tool names) are the seed's snake_case ones.
  capabilitiesList: { method: 'POST', path: '/discovery/capabilities_list', input: CapabilitiesListInput, output: CapabilitiesListOutput, audience: 'any' },
  capabilitiesSearch: { method: 'POST', path: '/discovery/capabilities_search', input: CapabilitiesSearchInput, output: CapabilitiesSearchOutput, audience: 'any' },
  capabilitiesInspect: { method: 'POST', path: '/discovery/capabilities_inspect', input: CapabilitiesInspectInput, output: CapabilitiesInspectOutput, audience: 'any' },
  toolsLoad: { method: 'POST', path: '/discovery/tools_load', input: ToolsLoadInput, output: ToolsLoadOutput, audience: 'any' },
  skillsActivate: { method: 'POST', path: '/discovery/skills_activate', input: SkillsActivateInput, output: SkillsActivateOutput, audience: 'any' },

  // Harn scripts run as tasks (shared/harn.ts): started and watched by the operator.
  startHarnRun: { method: 'POST', path: '/harn/runs', input: HarnRunRequest, output: TaskView, audience: 'operator' },
  listHarnRuns: { method: 'GET', path: '/harn/runs', input: NoInput, output: HarnRunsView, audience: 'operator' },
  getHarnRun: { method: 'GET', path: '/harn/run', input: HarnRunQuery, output: HarnRunView, audience: 'operator' },

  // Pinned contracts (shared/pins.ts): MCP tools held because they changed or are new, for the operator to review.
  listPins: { method: 'GET', path: '/pins', input: NoInput, output: PinsView, audience: 'operator' },
  getPinDiff: { method: 'GET', path: '/pins/diff', input: PinIdInput, output: PinDiff, audience: 'operator' },
  acceptPin: { method: 'POST', path: '/pins/accept', input: PinAcceptInput, output: PinsView, audience: 'operator' },

  // MCP servers' resources, templates and prompts (shared/resources.ts): listed, read and got under the grant, reads and gets on record.
  listResources: { method: 'GET', path: '/resources', input: ResourceListInput, output: ResourceList, audience: 'any' },
  readResource: { method: 'POST', path: '/resources/read', input: ReadResourceInput, output: ReadResourceOutput, audience: 'any' },
  listPrompts: { method: 'GET', path: '/prompts', input: ResourceListInput, output: PromptList, audience: 'any' },
  getPrompt: { method: 'POST', path: '/prompts/get', input: GetPromptInput, output: GetPromptOutput, audience: 'any' },
  completeArgument: { method: 'POST', path: '/completions', input: CompleteInput, output: CompleteOutput, audience: 'any' },
  /** The console's live view of a resource: the gateway subscribes on the server (once, counting who follows), updates come as `resourceUpdated` events. */
  setResourceSubscribed: { method: 'POST', path: '/resources/subscriptions', input: ResourceSubscriptionInput, output: ResourceSubscriptions, audience: 'operator' },

  // Agent tokens: the operator's alone.
  listAgents: { method: 'GET', path: '/agents', input: NoInput, output: AgentsView, audience: 'operator' },
  createAgent: { method: 'POST', path: '/agents', input: CreateAgentInput, output: CreatedAgent, audience: 'operator' },
  revokeAgent: { method: 'DELETE', path: '/agents/:name', input: AgentNameInput, output: AgentsView, audience: 'operator' },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; input: z.ZodType; output: z.ZodType; audience: Audience }>;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OperationInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type OperationOutput<K extends OperationName> = z.infer<Operations[K]['output']>;

/**
 * How every operation reports failure, over HTTP (with the code's status) and over IPC alike.
 * `taskId` is present when the operation had joined a task (a tool call refused by its grant, say).
 */
export const ErrorEnvelope = z.object({
  ok: z.literal(false),
  requestId: z.string().optional(),
  taskId: z.string().optional(),
  error: ErrorBody,
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
