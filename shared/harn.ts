/**
 * Harn runs as clients see them. A Harn run is a Capstan task whose work is a Harn script: Capstan
 * starts `harn serve acp <script>` and answers the script's bridge requests (the wire protocol is
 * in the design's protocols/harn-host.md). These are config.json's `harn` section, the request
 * that starts a run, and what the console shows of it live: bounded, one line per update.
 */
import { z } from 'zod';

export const DEFAULT_HARN_COMMAND = 'harn';
export const DEFAULT_HARN_ARGS = ['serve', 'acp'];
/** A run that has not ended by then is cancelled and fails. */
export const DEFAULT_HARN_TIMEOUT_MS = 60 * 60_000;
/**
 * How long a `session/request_permission` (or an ask_user / request_approval) waits for the
 * operator before Capstan answers "cancelled" (fail closed): under the fixed 300 s v0.7.50 waits
 * for a permission answer (crates/harn-vm/src/bridge.rs DEFAULT_TIMEOUT; newer builds do not time
 * it out), and not subject to HARN_HOST_CALL_TIMEOUT_SECS, which Harn applies only to
 * `host/capabilities { sessionId }`, `host/call` and `terminal/*`.
 */
export const DEFAULT_HARN_PERMISSION_TIMEOUT_MS = 290_000;

/** config.json `harn`: how to start Harn. The script's absolute path is appended to `args`. */
export const HarnConfig = z.strictObject({
  command: z.string().min(1).default(DEFAULT_HARN_COMMAND),
  args: z.array(z.string()).default([...DEFAULT_HARN_ARGS]),
  /** The child's environment besides the allowed few of Capstan's own (PATH, HOME, USER...; never CAPSTAN_TOKEN): providers/childEnvironment.ts. */
  env: z.record(z.string().regex(/^[^=\0]+$/, 'is not a valid environment variable name'), z.string()).default({}),
  timeoutMs: z.number().int().min(1_000).max(7 * 24 * 3_600_000).default(DEFAULT_HARN_TIMEOUT_MS),
  permissionTimeoutMs: z.number().int().min(1_000).max(600_000).default(DEFAULT_HARN_PERMISSION_TIMEOUT_MS),
});
export type HarnConfig = z.output<typeof HarnConfig>;

/** `POST /harn/runs`. The prompt is the text `session/prompt` carries (the script's task). */
export const HarnRunRequest = z.strictObject({
  /** An absolute path to the `.harn` file. */
  script: z.string().min(1).max(4096),
  prompt: z.string().max(10_000).optional(),
  /** The session the run's task starts in (default "operator"); it must have no active task. */
  sessionId: z.string().min(1).max(128).optional(),
});
export type HarnRunRequest = z.input<typeof HarnRunRequest>;

/** `GET /harn/run?taskId=`: one run with its lines. */
export const HarnRunQuery = z.strictObject({ taskId: z.string().min(1).max(128) });

/**
 * One line of a run's live view. `message` lines grow as Harn streams chunks (the same `seq`,
 * longer text); a `tool_call` line is replaced by its updates (the same `seq` too). `output` is
 * v0.7.50's `output` notification (a script's print), `agent` its `agent/idle` and newer builds'
 * `_harn/agentEvent`, `harn` Harn's own `session/update` kinds (skills, tool search, compaction,
 * handoffs, workers, file watches, human-in-the-loop).
 */
export const HarnUpdateKind = z.enum(['status', 'stderr', 'message', 'thought', 'tool_call', 'plan', 'log', 'progress', 'host', 'permission', 'protocol', 'output', 'agent', 'harn']);
export type HarnUpdateKind = z.infer<typeof HarnUpdateKind>;

/** A line's text is cut to this many characters. */
export const HARN_UPDATE_TEXT_LIMIT = 2_000;
/** A run keeps its last this-many lines; the console says how many were dropped before them. */
export const HARN_UPDATES_KEPT = 500;

export const HarnUpdate = z.object({
  seq: z.number().int().nonnegative(),
  at: z.string(),
  kind: HarnUpdateKind,
  text: z.string(),
  /** tool_call: its status (pending, in_progress, completed, failed); host: ok, refused or failed. */
  status: z.string().optional(),
  /** host lines: the requestId of the tool call the script made, as the ledger names it. */
  requestId: z.string().optional(),
});
export type HarnUpdate = z.infer<typeof HarnUpdate>;

export const HarnRunState = z.enum(['starting', 'running', 'stopping', 'ended']);

/** A run without its lines, as `GET /harn/runs` lists it. */
export const HarnRunSummary = z.object({
  taskId: z.string(),
  sessionId: z.string(),
  script: z.string(),
  state: HarnRunState,
  /** How the task ended, and why, once it has. */
  outcome: z.object({ state: z.enum(['succeeded', 'failed', 'cancelled', 'superseded']), reason: z.string() }).nullable(),
  /** What Harn said of itself in `initialize`. */
  agent: z.object({ name: z.string(), version: z.string() }).nullable(),
  /** Whether Steer reaches the script now (while it runs): `session/inject`, or v0.7.50's `session/input`. */
  steerable: z.boolean(),
  /**
   * How Harn ended the prompt, once it has: its `stopReason` and, when it sent one,
   * `_meta.harn.terminal` (kind, reason, class), or the JSON-RPC error it answered with
   * (newer builds add `data.terminalClass`).
   */
  ending: z
    .object({
      stopReason: z.string().nullable(),
      terminal: z.object({ kind: z.string(), reason: z.string().optional(), owner: z.string().optional(), terminalClass: z.string().optional() }).nullable(),
      error: z.object({ code: z.number(), message: z.string(), terminalClass: z.string().optional() }).nullable(),
    })
    .nullable()
    .optional(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type HarnRunSummary = z.infer<typeof HarnRunSummary>;

export const HarnRunView = HarnRunSummary.extend({
  prompt: z.string().nullable(),
  updates: z.array(HarnUpdate),
  /** Lines dropped before the first one kept. */
  dropped: z.number().int().nonnegative(),
});
export type HarnRunView = z.infer<typeof HarnRunView>;

export const HarnRunsView = z.object({ runs: z.array(HarnRunSummary) });
export type HarnRunsView = z.infer<typeof HarnRunsView>;

/** Cuts a line to HARN_UPDATE_TEXT_LIMIT characters. */
export const clipText = (text: string, limit = HARN_UPDATE_TEXT_LIMIT): string => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);
