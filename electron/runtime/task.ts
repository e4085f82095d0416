/**
 * A task and its session, as the runtime keeps them in memory. A task owns the execution state
 * of one top-level request; a session keeps the conversation and the unknown outcomes that gate
 * its mutations. Only the runtime changes them, and only after the ledger entry that records the
 * change is written (so a failed write leaves neither); each change stamps the entry's `seq` as
 * the view's version.
 */
import { randomUUID } from 'node:crypto';
import { CapstanError } from '../../shared/errors';
import { ACTIVE_STATES, TERMINAL_STATES, type CallStatus, type Handoff, type Message, type SessionView, type TaskState, type TaskView } from '../../shared/tasks';
import type { Snapshot } from '../catalog/snapshot';
import type { CapabilityContext } from './admission';
import type { Call } from './call';
import type { Grants } from './grants';

/** Which transitions the state machine allows; every one is recorded in the ledger. */
const TRANSITIONS: Record<TaskState, readonly TaskState[]> = {
  queued: ['running', 'blocked', 'cancelled', 'superseded'],
  blocked: ['running', 'queued', 'cancelled', 'superseded'],
  running: ['cancelling', 'quiescing'],
  cancelling: ['quiescing'],
  quiescing: ['succeeded', 'failed', 'cancelled', 'superseded'],
  succeeded: [],
  failed: [],
  cancelled: [],
  superseded: [],
};

export const isActive = (state: TaskState) => ACTIVE_STATES.includes(state);
export const isTerminal = (state: TaskState) => TERMINAL_STATES.includes(state);

/** What a task holds from the moment it runs: its own snapshot, grants and capability context. */
export interface TaskRun {
  snapshot: Snapshot;
  grants: Grants;
  context: CapabilityContext;
}

/** A task that takes calls and input now; its run-state is there, so no check can be skipped with `?.`. */
export type RunningTask = Task & Readonly<TaskRun>;

/** A call in flight and the promise that settles once its end is on record: the cancellation barrier. */
export interface InFlight {
  call: Call;
  recorded: Promise<unknown>;
}

export class Task {
  readonly id = `task-${randomUUID()}`;
  readonly createdAt = new Date().toISOString();
  readonly calls = new Map<string, InFlight>();
  readonly counts: Record<CallStatus, number> = { ok: 0, error: 0, refused: 0, cancelled: 0, outcome_unknown: 0 };
  readonly #steers: { text: string; at: string }[] = [];
  #state: TaskState = 'queued';
  #version = 0;
  #run: TaskRun | undefined;
  #startedAt: string | null = null;
  #endedAt: string | null = null;
  #finalMessage: string | null = null;
  #handoff: Handoff | null = null;

  constructor(
    readonly sessionId: string,
    readonly title: string,
    readonly requiresSuccess: boolean,
    readonly predecessorId: string | null,
    /** How much of the session's conversation existed when this task was submitted. */
    readonly conversationAt: number,
  ) {}

  get state(): TaskState {
    return this.#state;
  }
  get version(): number {
    return this.#version;
  }
  get snapshot(): Snapshot | undefined {
    return this.#run?.snapshot;
  }
  get grants(): Grants | undefined {
    return this.#run?.grants;
  }
  get context(): CapabilityContext | undefined {
    return this.#run?.context;
  }
  get finalMessage(): string | null {
    return this.#finalMessage;
  }
  get handoff(): Handoff | null {
    return this.#handoff;
  }

  /** This task as a running one, or TASK_NOT_ACTIVE: the only way to a `RunningTask`. */
  running(): RunningTask {
    if (this.#state !== 'running' || !this.#run) throw notActive(this);
    return this as RunningTask;
  }

  /** Throws (before anything is recorded) when the state machine does not allow the move. */
  assertCanMove(to: TaskState): void {
    if (!TRANSITIONS[this.#state].includes(to)) throw new Error(`illegal task transition ${this.#state} → ${to}`);
  }

  // ---- changes: the runtime calls these after writing the ledger entry `seq` ------------------

  moved(seq: number, to: TaskState, start?: { run: TaskRun; handoff: Handoff | null }): void {
    this.#state = to;
    if (start) {
      this.#run = start.run;
      this.#handoff = start.handoff;
      this.#startedAt = new Date().toISOString();
    }
    if (isTerminal(to)) this.#endedAt = new Date().toISOString();
    this.#version = seq;
  }

  steered(seq: number, text: string, at: string): void {
    this.#steers.push({ text, at });
    // New operator input starts a new step: what the model activated for the last one leaves.
    this.#run?.context.endStep();
    this.#version = seq;
  }

  finishing(seq: number, message: string): void {
    this.#finalMessage = message;
    this.#version = seq;
  }

  touched(seq: number): void {
    this.#version = seq;
  }

  view(): TaskView {
    const context = this.#run?.context;
    return {
      id: this.id,
      version: this.#version,
      sessionId: this.sessionId,
      title: this.title,
      state: this.#state,
      createdAt: this.createdAt,
      startedAt: this.#startedAt,
      endedAt: this.#endedAt,
      requiresSuccess: this.requiresSuccess,
      predecessorId: this.predecessorId,
      finalMessage: this.#finalMessage,
      steers: [...this.#steers],
      catalogGeneration: this.#run?.snapshot.catalogGeneration ?? null,
      callCounts: { ...this.counts },
      callsInFlight: this.calls.size,
      context: context ? { inUse: context.inUse, ceiling: context.ceiling, items: context.items.map((item) => ({ ...item })) } : null,
      handoff: this.#handoff,
    };
  }
}

export interface UnknownOutcome {
  requestId: string;
  taskId: string;
  capability: string;
  at: string;
}

export class Session {
  readonly conversation: Message[] = [];
  readonly tasks: Task[] = [];
  readonly unknownOutcomes = new Map<string, UnknownOutcome>();
  /** The seq of the last ledger entry of this session. */
  version = 0;

  constructor(readonly id: string) {}

  get active(): Task | undefined {
    return this.tasks.find((task) => isActive(task.state));
  }

  get waiting(): Task[] {
    return this.tasks.filter((task) => task.state === 'queued' || task.state === 'blocked');
  }

  view(): SessionView {
    return {
      id: this.id,
      version: this.version,
      activeTaskId: this.active?.id ?? null,
      unknownOutcomes: [...this.unknownOutcomes.values()],
      conversation: [...this.conversation],
    };
  }
}

export function notActive(task: Task | undefined, sessionId?: string): CapstanError {
  return task
    ? new CapstanError('TASK_NOT_ACTIVE', `${task.id} is ${task.state}; it takes no new calls or input`, { state: task.state })
    : new CapstanError('TASK_NOT_ACTIVE', `session "${sessionId}" has no running task`);
}
