/**
 * Recent executions: the operator's own tool calls (console, `capstan call`, curl or an MCP
 * client with the operator's token; never an agent's or a Harn script's) with their arguments and results, kept
 * by the gateway so that a reload of the console finds them again. The ledger keeps only keyed
 * digests; this history is the one place a result is kept, in memory, and across restarts in its
 * own file (`executions.sqlite`, not the ledger) only when the operator opts in.
 */
import { z } from 'zod';

/**
 * The error envelope's `error` as it was sent (shared/api.ts's ErrorBody). Declared loosely
 * here because api.ts imports this module; the console reads it back with ErrorBody.
 */
export const ExecutionError = z.object({ code: z.string(), message: z.string() }).catchall(z.unknown());

/**
 * How a run stands. `awaiting_confirmation`: the gateway answered 428 with a challenge and
 * nothing ran yet; once the challenge is answered the same run goes on (running, then ok or
 * error) and is marked confirmed, so a confirmed call is one run, never a refused one. A
 * challenge nobody answers stays here; past its expiry the console reads it as "not confirmed".
 */
export const ExecutionStatus = z.enum(['running', 'ok', 'error', 'awaiting_confirmation']);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

export const ExecutionRecord = z.object({
  /** Stable for the run, through its confirmation round trip (which may change its requestId). */
  id: z.string(),
  /** The requestId of the call that ran (or, before it ran, of the call that was asked to confirm). */
  requestId: z.string(),
  /** The call's W3C trace id (its OpenTelemetry trace), once it ran. */
  traceId: z.string().optional(),
  /** As the caller named it: a builtin's name or a capability id. */
  tool: z.string(),
  /** The capability it resolved to, when it did (an unknown tool resolves to none). */
  capability: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()),
  sessionId: z.string().optional(),
  taskId: z.string().optional(),
  status: ExecutionStatus,
  /** The operator answered the call's confirmation challenge. */
  confirmed: z.boolean(),
  /** While awaiting confirmation: when the challenge expires. */
  confirmationExpiresAt: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  /** The gateway's own timing: the tool's run for a call that ran, the whole request otherwise. */
  durationMs: z.number().optional(),
  /** What a successful call returned, exactly. */
  result: z.unknown().optional(),
  /** Why it failed, as the error envelope said. */
  error: ExecutionError.optional(),
  /** Set when the result or arguments were too large to keep: how many bytes of JSON they were. */
  omittedBytes: z.number().int().optional(),
  /** Grows on every change to any record; a client asks for what changed after the one it has. */
  revision: z.number().int().nonnegative(),
});
export type ExecutionRecord = z.infer<typeof ExecutionRecord>;

export const MAX_HISTORY_ENTRIES = 1000;
export const MAX_HISTORY_AGE_DAYS = 3650;

export const HistorySettings = z.strictObject({
  /** Keep the history in `<data dir>/executions.sqlite` across restarts (off by default). */
  persist: z.boolean(),
  /** How many runs are kept, in memory and on disk; the oldest go first. */
  maxEntries: z.number().int().min(1).max(MAX_HISTORY_ENTRIES),
  /** Runs older than this many days are dropped (from memory and disk). */
  maxAgeDays: z.number().int().min(1).max(MAX_HISTORY_AGE_DAYS),
});
export type HistorySettings = z.infer<typeof HistorySettings>;

export const DEFAULT_HISTORY_SETTINGS: HistorySettings = { persist: false, maxEntries: 100, maxAgeDays: 30 };

export const ExecutionsQuery = z.strictObject({
  /** Only records changed after this revision (what a client that has the rest asks for). */
  after: z.coerce.number().int().nonnegative().optional(),
});
export type ExecutionsQuery = z.infer<typeof ExecutionsQuery>;

export const ExecutionsView = z.object({
  /** Newest first. */
  executions: z.array(ExecutionRecord),
  /** The latest revision; ask `?after=` it next time. */
  revision: z.number().int().nonnegative(),
  /** Changes with each gateway process: revisions of another process mean nothing here. */
  epoch: z.string(),
  settings: HistorySettings,
});
export type ExecutionsView = z.infer<typeof ExecutionsView>;
