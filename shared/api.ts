/**
 * The one contract between Capstan's clients and its gateway. HTTP routes and IPC channels are
 * both derived from `operations`, and every payload is validated with these schemas at the
 * boundary it crosses.
 */
import { z } from 'zod';
import { errorCodes, type ErrorCode } from './errors';

export const RiskLevel = z.enum(['low', 'medium', 'high']);
export type RiskLevel = z.infer<typeof RiskLevel>;

export const JsonSchemaObject = z.record(z.string(), z.unknown());

export const ToolDescriptor = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  riskLevel: RiskLevel,
  needConfirm: z.boolean(),
  mutating: z.boolean(),
  inputSchema: JsonSchemaObject,
  returnExample: z.unknown(),
  provider: z.string(),
  tags: z.array(z.string()),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

export const ToolsList = z.object({
  generation: z.number().int().nonnegative(),
  tools: z.array(ToolDescriptor),
});
export type ToolsList = z.infer<typeof ToolsList>;

/** A client-chosen requestId is kept when it matches this; otherwise the gateway makes one. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export const ToolCallRequest = z.strictObject({
  tool: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).default({}),
  requestId: z.string().max(1024).optional(),
  confirmation: z.string().max(256).optional(),
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
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ToolCallSuccess = z.object({
  requestId: z.string(),
  ok: z.literal(true),
  result: z.unknown(),
  durationMs: z.number(),
});
export const ToolCallFailure = z.object({
  requestId: z.string(),
  ok: z.literal(false),
  error: ErrorBody,
});
export const ToolCallResponse = z.discriminatedUnion('ok', [ToolCallSuccess, ToolCallFailure]);
export type ToolCallResponse = z.infer<typeof ToolCallResponse>;

/** The console's own preferences, kept by the gateway so they survive restarts and port changes. */
export const ConsoleSettings = z.strictObject({
  /** Tool names the operator lets the console run with one click (it only ever tightens policy). */
  whitelist: z.array(z.string().min(1).max(128)).max(1000),
});
export type ConsoleSettings = z.infer<typeof ConsoleSettings>;

export const DEFAULT_CONSOLE_SETTINGS: ConsoleSettings = { whitelist: ['time_now', 'local_status'] };

const NoInput = z.undefined();

export const operations = {
  listTools: { method: 'GET', path: '/tools', input: NoInput, output: ToolsList },
  callTool: { method: 'POST', path: '/tools/call', input: ToolCallRequest, output: ToolCallResponse },
  getSettings: { method: 'GET', path: '/settings', input: NoInput, output: ConsoleSettings },
  saveSettings: { method: 'PUT', path: '/settings', input: ConsoleSettings, output: ConsoleSettings },
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OperationInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type OperationOutput<K extends OperationName> = z.infer<Operations[K]['output']>;

/** What every client transport (IPC in Electron, HTTP in a browser) offers the console. */
export type CapstanApi = {
  [K in OperationName]: (input: OperationInput<K>) => Promise<OperationOutput<K>>;
};

/** How a non-call operation reports failure over any transport. */
export const ErrorEnvelope = z.object({ ok: z.literal(false), requestId: z.string().optional(), error: ErrorBody });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
