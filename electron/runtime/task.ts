/**
 * A task and its session, as the runtime keeps them in memory. A task owns the execution state
 * of one top-level request; a session keeps the conversation and the unknown outcomes that gate
 * its mutations. Only the runtime changes them, and only after the ledger entry that records the
 * change is written (so a failed write leaves neither); each change stamps the entry's `seq` as
 * the view's version.
 */
import { randomUUID } from 'node:crypto';
import type { Grant } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import {
  ACTIVE_STATES,
  noCalls,
  TERMINAL_STATES,
  type CallStatus,
  type Handoff,
  type Message,
  type SessionView,
  type TaskState,
  type TaskView,
  type UnknownOutcome,
} from '../../shared/tasks';
import type { TaskRecord } from '../store/taskStore';
import type { Snapshot } from '../catalog/snapshot';
import type { CapabilityContext } from './admission';
import type { Principal } from '../../shared/principal';
import type { Call, CallOutcome } from './call';
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

/** A call in flight, who made it, and the promise that settles once its end is on record: the cancellation barrier. */
export interface InFlight {
  call: Call;
  principal: Principal;
  recorded: Promise<CallOutcome>;
}

export class Task {
  readonly id: string;
  readonly createdAt: string;
  readonly calls = new Map<string, InFlight>();
  counts: Record<CallStatus, number> = noCalls();
  /** The seq of the entry that submitted it: the session's order of tasks. */
  submittedSeq = 0;
  #steers: { text: string; at: string }[] = [];
  /** For a task read back from the store: what its run showed, since the run itself is gone. */
  #stored: { view: TaskView; reductions: Grant[] } | undefined;
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
    identity: { id: string; createdAt: string } = { id: `task-${randomUUID()}`, createdAt: new Date().toISOString() },
  ) {
    this.id = identity.id;
    this.createdAt = identity.createdAt;
  }

  /** A task as the store kept it: a finished one to show, or one the last process left unfinished. */
  static restore({ view, conversationAt, reductions, submittedSeq }: TaskRecord): Task {
    const task = new Task(view.sessionId, view.title, view.requiresSuccess, view.predecessorId, conversationAt, view);
    task.submittedSeq = submittedSeq;
    task.counts = { ...view.callCounts };
    task.#state = view.state;
    task.#version = view.version;
    task.#startedAt = view.startedAt;
    task.#endedAt = view.endedAt;
    task.#finalMessage = view.finalMessage;
    task.#handoff = view.handoff;
    task.#steers = [...view.steers];
    task.#stored = { view, reductions };
    return task;
  }

  /** What the store keeps of this task. */
  record(): TaskRecord {
    return { view: this.view(), conversationAt: this.conversationAt, reductions: [...(this.#run?.grants.reductions ?? this.#stored?.reductions ?? [])], submittedSeq: this.submittedSeq };
  }

  get steerCount(): number {
    return this.#steers.length;
  }

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
  /** Whether it ever ran: a follow-up cancelled or superseded while it waited did not. */
  get ran(): boolean {
    return this.#startedAt !== null;
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
      catalogGeneration: this.#run?.snapshot.catalogGeneration ?? this.#stored?.view.catalogGeneration ?? null,
      callCounts: { ...this.counts },
      callsInFlight: this.calls.size,
      calls: [...this.calls.values()].map(({ call, principal }) => ({
        requestId: call.requestId,
        capability: call.spec.capability,
        mutating: call.spec.mutating,
        principal,
        startedAt: call.startedAt.toISOString(),
        deadlineAt: call.deadlineAt.toISOString(),
      })),
      context: context ? { inUse: context.inUse, ceiling: context.ceiling, items: context.items.map((item) => ({ ...item })) } : (this.#stored?.view.context ?? null),
      handoff: this.#handoff,
    };
  }
}

export class Session {
  readonly conversation: Message[] = [];
  /** Its tasks that have not ended, and the last one that did (the next task's predecessor); older ones live in the store. */
  tasks: Task[] = [];
  readonly unknownOutcomes = new Map<string, UnknownOutcome>();
  /** The seq of the last ledger entry of this session. */
  version = 0;

  constructor(readonly id: string) {}

  /** Drops ended tasks but the last one that ran: the store keeps them. */
  trim(): void {
    const last = this.lastRan;
    this.tasks = this.tasks.filter((task) => !isTerminal(task.state) || task === last);
  }

  /** The active task, or the last one that ended after running: what a task started now succeeds. */
  get lastRan(): Task | undefined {
    return this.tasks.findLast((task) => task.ran);
  }

  get idle(): boolean {
    return this.tasks.every((task) => isTerminal(task.state));
  }

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

/** The redacted digest a successor gets: outcome, counts, final message, and only the names it may discover. */
export function handoffTo(successor: Task, predecessor: Task, { snapshot, grants }: Pick<TaskRun, 'snapshot' | 'grants'>, conversation: readonly Message[]): Handoff {
  const discoverable = snapshot.entries
    .filter((e) => e.contract.modelDiscoverable && grants.held(e.contract.id, e.contract.kind) !== 'none')
    .map((e) => e.contract.id);
  return {
    predecessorId: predecessor.id,
    terminalStatus: predecessor.state,
    finalMessage: predecessor.finalMessage,
    callCounts: { ...predecessor.counts },
    discoverable,
    conversation: conversation.slice(0, successor.conversationAt),
  };
}

export function notActive(task: Task | undefined, sessionId?: string): CapstanError {
  return task
    ? new CapstanError('TASK_NOT_ACTIVE', `${task.id} is ${task.state}; it takes no new calls or input`, { state: task.state })
    : new CapstanError('TASK_NOT_ACTIVE', `session "${sessionId}" has no running task`);
}
