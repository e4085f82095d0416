/** Sessions and tasks as clients see them, and the task actions of `POST /tasks`. */
import { z } from 'zod';
import { Grant } from './capability';

export const TaskState = z.enum(['queued', 'blocked', 'running', 'cancelling', 'quiescing', 'succeeded', 'failed', 'cancelled', 'superseded']);
export type TaskState = z.infer<typeof TaskState>;
export const TERMINAL_STATES: readonly TaskState[] = ['succeeded', 'failed', 'cancelled', 'superseded'];
/** A session's active task is in one of these; at most one at a time. */
export const ACTIVE_STATES: readonly TaskState[] = ['running', 'cancelling', 'quiescing'];

/**
 * How a call ended. `confirmation_requested`: it was answered with a confirmation challenge
 * (CONFIRMATION_REQUIRED) and did not run; the confirmed call that follows is a call of its own.
 * `refused`: it was stopped before it ran (not granted, mutation blocked, approval denied...).
 */
export const CallStatus = z.enum(['ok', 'error', 'refused', 'confirmation_requested', 'cancelled', 'outcome_unknown']);
export type CallStatus = z.infer<typeof CallStatus>;

/** A count per status; a view stored before a status existed reads it as 0. */
const count = z.number().int().nonnegative().default(0);
export const CallCounts = z.object({
  ok: count,
  error: count,
  refused: count,
  confirmation_requested: count,
  cancelled: count,
  outcome_unknown: count,
} satisfies Record<CallStatus, unknown>);
export type CallCounts = z.infer<typeof CallCounts>;
export const noCalls = (): CallCounts => ({ ok: 0, error: 0, refused: 0, confirmation_requested: 0, cancelled: 0, outcome_unknown: 0 });

export const Message = z.object({ role: z.enum(['operator', 'task']), text: z.string(), taskId: z.string(), at: z.string() });
export type Message = z.infer<typeof Message>;

/** What a successor receives of its predecessor: a redacted control-plane digest, nothing more. */
export const Handoff = z.object({
  predecessorId: z.string(),
  terminalStatus: TaskState,
  finalMessage: z.string().nullable(),
  callCounts: CallCounts,
  /** Only the capability names the successor itself may discover. */
  discoverable: z.array(z.string()),
  /** The session's conversation up to the successor's submission. */
  conversation: z.array(Message),
});
export type Handoff = z.infer<typeof Handoff>;

/**
 * The ledger `seq` of the last change to a task or session: a client that holds two views of
 * the same one keeps the higher version, whatever order they arrived in.
 */
const version = z.number().int().nonnegative();

/** A call running in a task: who made it, and when its deadline (the tool's timeout) falls. */
export const RunningCallView = z.object({
  requestId: z.string(),
  capability: z.string(),
  mutating: z.boolean(),
  principal: z.string(),
  startedAt: z.string(),
  deadlineAt: z.string(),
});
export type RunningCallView = z.infer<typeof RunningCallView>;

export const TaskView = z.object({
  id: z.string(),
  version,
  sessionId: z.string(),
  title: z.string(),
  state: TaskState,
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  requiresSuccess: z.boolean(),
  predecessorId: z.string().nullable(),
  finalMessage: z.string().nullable(),
  steers: z.array(z.object({ text: z.string(), at: z.string() })),
  catalogGeneration: z.number().int().nullable(),
  callCounts: CallCounts,
  callsInFlight: z.number().int(),
  /** The calls in flight (a view stored before this field existed has none). */
  calls: z.array(RunningCallView).default([]),
  /** The capability context: what is loaded or activated, and the room left. */
  context: z
    .object({
      inUse: z.number().int(),
      ceiling: z.number().int(),
      items: z.array(z.object({ id: z.string(), tokens: z.number().int(), scope: z.enum(['step', 'task']) })),
    })
    .nullable(),
  handoff: Handoff.nullable(),
});
export type TaskView = z.infer<typeof TaskView>;

export const UnknownOutcome = z.object({ requestId: z.string(), taskId: z.string(), capability: z.string(), at: z.string() });
export type UnknownOutcome = z.infer<typeof UnknownOutcome>;

export const SessionView = z.object({
  id: z.string(),
  version,
  activeTaskId: z.string().nullable(),
  /** Mutating calls whose outcome is unknown: new mutations wait for an acknowledgement. */
  unknownOutcomes: z.array(UnknownOutcome),
  conversation: z.array(Message),
});
export type SessionView = z.infer<typeof SessionView>;

export const TasksView = z.object({
  sessions: z.array(SessionView),
  /** Every task that has not ended, then a page of ended ones, most recently changed first. */
  tasks: z.array(TaskView),
  /** How many tasks have ended in all, and what to pass as `finishedBefore` for the next older page (null: none). */
  finishedTotal: z.number().int().nonnegative().optional(),
  finishedBefore: z.number().int().nullable().optional(),
  /** The ledger seq this listing reflects: a view with a higher version arrived after it was taken. */
  asOf: z.number().int().nonnegative().optional(),
});

/** `GET /tasks?finishedBefore=&finishedLimit=`: ended tasks are paged, newest first. */
export const TasksQuery = z
  .strictObject({
    finishedBefore: z.coerce.number().int().positive().optional(),
    finishedLimit: z.coerce.number().int().min(1).max(200).optional(),
  })
  .default({});
export type TasksQuery = z.output<typeof TasksQuery>;
export type TasksView = z.infer<typeof TasksView>;

export const DEFAULT_SESSION = 'operator';

const text = z.string().trim().min(1).max(10_000);
/** Absent: the caller's own session, `operator` for the operator and `agent:<name>` for an agent (services/principal.ts). */
const session = { sessionId: z.string().min(1).max(128).optional() };

export const TaskAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('start'), ...session, title: z.string().trim().min(1).max(200), input: text.optional() }),
  z.strictObject({ action: z.literal('steer'), ...session, taskId: z.string().optional(), text }),
  z.strictObject({
    action: z.literal('follow_up'),
    ...session,
    title: z.string().trim().min(1).max(200),
    input: text.optional(),
    /** Run only if the predecessor succeeds; otherwise wait, blocked, for the operator. */
    requiresSuccess: z.boolean().default(false),
  }),
  z.strictObject({ action: z.literal('supersede'), ...session, title: z.string().trim().min(1).max(200), input: text.optional() }),
  z.strictObject({
    action: z.literal('finish'),
    ...session,
    taskId: z.string().optional(),
    message: text,
    outcome: z.enum(['succeeded', 'failed']).default('succeeded'),
  }),
]);
export type TaskAction = z.input<typeof TaskAction>;

export const TaskIdInput = z.strictObject({ id: z.string().min(1).max(128) });
/** `POST /calls/<requestId>/cancel`. */
export const CallCancelInput = z.strictObject({ requestId: z.string().min(1).max(128) });
/** How a cancelled call ended: `cancelled` once it stopped, `outcome_unknown` if it did not within the grace period, or `ok`/`error` if it ended first. */
export const CallCancellation = z.object({
  requestId: z.string(),
  taskId: z.string(),
  capability: z.string(),
  status: CallStatus,
  durationMs: z.number(),
});
export type CallCancellation = z.infer<typeof CallCancellation>;
export const AcknowledgeInput = z.strictObject({ id: z.string().min(1).max(128), requestId: z.string().min(1).max(128) });
export const ReduceGrantInput = z.strictObject({ id: z.string().min(1).max(128), grant: Grant });
