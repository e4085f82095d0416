/**
 * The task runtime. A session keeps the conversation; a task owns the execution state of one
 * top-level request: its catalog snapshot, grants, capability context and calls. At most one
 * task is active per session; follow-ups queue behind it; cancellation stops new calls at once,
 * aborts running ones and waits for each to end before anything succeeds the task.
 */
import { randomUUID } from 'node:crypto';
import type { Grant } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import {
  ACTIVE_STATES,
  DEFAULT_SESSION,
  TERMINAL_STATES,
  type CallStatus,
  type Handoff,
  type Message,
  type TaskState,
  type TaskView,
  type TasksView,
} from '../../shared/tasks';
import type { Catalog } from '../catalog/catalog';
import type { Snapshot } from '../catalog/snapshot';
import { CapabilityContext, type AdmissionBudget } from './admission';
import { Grants } from './grants';
import type { Ledger } from './ledger';

export interface RuntimeConfig {
  grants: readonly Grant[];
  budget: AdmissionBudget;
  /** How long a cancelled or timed-out call may take to end before its outcome is unknown. */
  graceMs: number;
}

export const DEFAULT_GRACE_MS = 5_000;

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

const isActive = (state: TaskState) => ACTIVE_STATES.includes(state);
const isTerminal = (state: TaskState) => TERMINAL_STATES.includes(state);
const emptyCounts = (): Record<CallStatus, number> => ({ ok: 0, error: 0, refused: 0, cancelled: 0, outcome_unknown: 0 });

/** How a call ended, as the runtime decided it (first decision wins). */
export type CallOutcome =
  | { status: 'ok'; result: unknown }
  | { status: 'error'; error: unknown; timedOut: boolean }
  | { status: 'cancelled'; error: unknown }
  | { status: 'outcome_unknown' };

export class Call {
  readonly #controller = new AbortController();
  readonly #done: Promise<CallOutcome>;
  #settle!: (outcome: CallOutcome) => void;
  #outcome: CallOutcome | undefined;
  #abortReason: 'cancelled' | 'deadline' | undefined;
  #graceTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly requestId: string,
    readonly capability: string,
    readonly mutating: boolean,
    private readonly graceMs: number,
  ) {
    this.#done = new Promise((resolve) => (this.#settle = resolve));
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Resolves once the call's outcome is decided: finished, failed, cancelled or unknown. */
  get done(): Promise<CallOutcome> {
    return this.#done;
  }

  /** Resolves once the call's end is committed to the ledger (set by the runtime when the call begins). */
  recorded: Promise<void> = Promise.resolve();

  /**
   * Runs the work under a deadline. After an abort (cancellation or deadline) the work has the
   * grace period to end; if it does not, the outcome is unknown and the caller is answered.
   */
  run(work: (signal: AbortSignal) => unknown, timeoutMs: number): Promise<CallOutcome> {
    const deadline = setTimeout(() => this.abort('deadline'), timeoutMs);
    // Started synchronously, so a cancellation that follows at once finds the work listening.
    let working: Promise<unknown>;
    try {
      working = Promise.resolve(work(this.signal));
    } catch (error) {
      working = Promise.reject(error);
    }
    working
      .then(
        (result) => this.#decide({ status: 'ok', result }),
        (error: unknown) =>
          this.#decide(
            this.#abortReason === 'cancelled'
              ? { status: 'cancelled', error }
              : { status: 'error', error, timedOut: this.#abortReason === 'deadline' },
          ),
      )
      .finally(() => clearTimeout(deadline));
    return this.#done;
  }

  abort(reason: 'cancelled' | 'deadline'): void {
    if (this.#outcome || this.#abortReason) return;
    this.#abortReason = reason;
    this.#controller.abort(new Error(reason === 'cancelled' ? 'the task was cancelled' : 'the call ran past its deadline'));
    this.#graceTimer = setTimeout(() => this.#decide({ status: 'outcome_unknown' }), this.graceMs);
  }

  #decide(outcome: CallOutcome): void {
    if (this.#outcome) return;
    this.#outcome = outcome;
    clearTimeout(this.#graceTimer);
    this.#settle(outcome);
  }
}

export class Task {
  readonly id = `task-${randomUUID()}`;
  readonly createdAt = new Date().toISOString();
  state: TaskState;
  startedAt: string | null = null;
  endedAt: string | null = null;
  finalMessage: string | null = null;
  readonly steers: { text: string; at: string }[] = [];
  readonly calls = new Map<string, Call>();
  readonly counts = emptyCounts();
  handoff: Handoff | null = null;
  /** Set when the task starts running: each task gets its own. */
  snapshot: Snapshot | undefined;
  grants: Grants | undefined;
  context: CapabilityContext | undefined;

  constructor(
    readonly sessionId: string,
    readonly title: string,
    readonly requiresSuccess: boolean,
    readonly predecessorId: string | null,
    /** How much of the session's conversation existed when this task was submitted. */
    readonly conversationAt: number,
    state: TaskState,
  ) {
    this.state = state;
  }

  view(): TaskView {
    return {
      id: this.id,
      sessionId: this.sessionId,
      title: this.title,
      state: this.state,
      createdAt: this.createdAt,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      requiresSuccess: this.requiresSuccess,
      predecessorId: this.predecessorId,
      finalMessage: this.finalMessage,
      steers: [...this.steers],
      catalogGeneration: this.snapshot?.catalogGeneration ?? null,
      callCounts: { ...this.counts },
      callsInFlight: this.calls.size,
      context: this.context ? { inUse: this.context.inUse, ceiling: this.context.ceiling, items: this.context.items.map((item) => ({ ...item })) } : null,
      handoff: this.handoff,
    };
  }
}

interface UnknownOutcome {
  requestId: string;
  taskId: string;
  capability: string;
  at: string;
}

class Session {
  readonly conversation: Message[] = [];
  readonly tasks: Task[] = [];
  readonly unknownOutcomes = new Map<string, UnknownOutcome>();
  constructor(readonly id: string) {}

  get active(): Task | undefined {
    return this.tasks.find((task) => isActive(task.state));
  }

  /** The task after which a new submission runs: the last one not yet over, else the last one. */
  get last(): Task | undefined {
    return this.tasks.at(-1);
  }
}

export class TaskRuntime {
  readonly #sessions = new Map<string, Session>();
  readonly #tasks = new Map<string, Task>();
  readonly #listeners = new Set<(task: TaskView) => void>();

  constructor(
    private readonly catalog: Catalog,
    private readonly ledger: Ledger,
    private readonly config: RuntimeConfig,
  ) {}

  // ---- actions ----------------------------------------------------------------------------

  /** Start: creates and runs a task when the session has none active. */
  start(sessionId: string, title: string, input?: string): Task {
    const session = this.#session(sessionId);
    const active = session.active;
    if (active) {
      throw new CapstanError('TASK_ACTIVE', `TASK_ACTIVE: session "${sessionId}" already runs "${active.title}" (${active.id}); steer it, queue a follow-up or supersede it`, {
        taskId: active.id,
      });
    }
    const task = this.#submit(session, title, input, { requiresSuccess: false, ahead: true });
    this.#run(task);
    return task;
  }

  /** Steer: adds operator input to the running task. */
  steer(sessionId: string, taskId: string | undefined, text: string): Task {
    const task = taskId ? this.get(taskId) : this.#session(sessionId).active;
    if (!task || task.state !== 'running') throw notActive(task, sessionId);
    const at = new Date().toISOString();
    task.steers.push({ text, at });
    // New operator input starts a new step: what the model activated for the last one leaves.
    task.context?.endStep();
    this.#session(task.sessionId).conversation.push({ role: 'operator', text, taskId: task.id, at });
    this.#changed(task);
    return task;
  }

  /** Follow-up: queued until the tasks before it end; runs at once when nothing is ahead. */
  followUp(sessionId: string, title: string, input: string | undefined, requiresSuccess: boolean): Task {
    const session = this.#session(sessionId);
    const task = this.#submit(session, title, input, { requiresSuccess, ahead: false });
    this.#advance(session);
    return task;
  }

  /** Supersede: cancels the active task (or a blocked head), waits for the barrier, then starts the replacement. */
  async supersede(sessionId: string, title: string, input?: string): Promise<Task> {
    const session = this.#session(sessionId);
    const active = session.active;
    // A task already stopping (finishing, or cancelled by someone else) is waited for, not cancelled twice.
    if (active) await (active.state === 'running' ? this.#cancel(active, 'superseded', 'superseded by a new task') : this.#ended(active));
    const blocked = session.tasks.find((task) => task.state === 'blocked');
    if (blocked) this.#transition(blocked, 'superseded', 'replaced by a new task');
    const task = this.#submit(session, title, input, { requiresSuccess: false, ahead: true });
    this.#advance(session);
    return task;
  }

  /** Finish: the task's final message; waits for its calls to end, then the next task may run. */
  async finish(sessionId: string, taskId: string | undefined, message: string, outcome: 'succeeded' | 'failed'): Promise<Task> {
    const task = taskId ? this.get(taskId) : this.#session(sessionId).active;
    if (!task || task.state !== 'running') throw notActive(task, sessionId);
    task.finalMessage = message;
    this.#session(task.sessionId).conversation.push({ role: 'task', text: message, taskId: task.id, at: new Date().toISOString() });
    this.#transition(task, 'quiescing', 'finishing');
    await Promise.all([...task.calls.values()].map((call) => call.recorded));
    this.#end(task, outcome, 'finished');
    return task;
  }

  /** Cancel: stops new calls now, aborts running ones, waits for the barrier. Never rolls back side effects. */
  async cancel(taskId: string, reason = 'cancelled by the operator'): Promise<Task> {
    const task = this.get(taskId);
    if (isTerminal(task.state)) throw notActive(task, task.sessionId);
    if (task.state === 'queued' || task.state === 'blocked') {
      this.ledger.append({ kind: 'cancellation', taskId: task.id, sessionId: task.sessionId, details: { reason, callsInFlight: 0 } });
      this.#transition(task, 'cancelled', reason);
      this.#advance(this.#session(task.sessionId));
      return task;
    }
    await (task.state === 'running' ? this.#cancel(task, 'cancelled', reason) : this.#ended(task));
    return task;
  }

  /** Resume: lets a blocked follow-up run despite its predecessor's outcome. */
  resume(taskId: string): Task {
    const task = this.get(taskId);
    if (task.state !== 'blocked') {
      throw new CapstanError('TASK_NOT_ACTIVE', `TASK_NOT_ACTIVE: ${task.id} is ${task.state}; only a blocked follow-up can be resumed`, { state: task.state });
    }
    this.#transition(task, 'queued', 'resumed by the operator', { overrideDependency: true });
    this.#resumed.add(task.id);
    this.#advance(this.#session(task.sessionId));
    return task;
  }

  readonly #resumed = new Set<string>();

  /** Acknowledge: the operator accepts a mutating call's unknown outcome; mutations may run again. */
  acknowledge(taskId: string, requestId: string): TasksView['sessions'][number] {
    const session = this.#session(this.get(taskId).sessionId);
    const unknown = session.unknownOutcomes.get(requestId);
    if (!unknown) {
      throw new CapstanError('NOTHING_TO_ACKNOWLEDGE', `NOTHING_TO_ACKNOWLEDGE: no mutating call "${requestId}" with an unknown outcome in session "${session.id}"`);
    }
    session.unknownOutcomes.delete(requestId);
    this.ledger.append({
      kind: 'acknowledgement',
      taskId,
      sessionId: session.id,
      requestId,
      capability: unknown.capability,
      details: { acknowledged: 'outcome_unknown', remainingUnknown: session.unknownOutcomes.size },
    });
    this.#changed(this.get(taskId));
    return this.#sessionView(session);
  }

  /** Lowers a running task's grant; raising is AUTHORITY_CEILING. */
  reduceGrant(taskId: string, grant: Grant): Task {
    const task = this.get(taskId);
    if (!task.grants || isTerminal(task.state)) throw notActive(task, task.sessionId);
    task.grants.reduce(grant);
    this.ledger.append({ kind: 'grant_reduced', taskId, sessionId: task.sessionId, details: { pattern: grant.pattern, authority: grant.authority } });
    this.#changed(task);
    return task;
  }

  // ---- calls ------------------------------------------------------------------------------

  /**
   * The task a capability call runs in: the named task, which must be running, or the
   * session's running task, started for the call when the session has none.
   */
  taskForCall({ taskId, sessionId = DEFAULT_SESSION }: { taskId?: string | undefined; sessionId?: string | undefined }): Task {
    if (taskId) {
      const task = this.get(taskId);
      if (task.state !== 'running') throw notActive(task, task.sessionId);
      return task;
    }
    const session = this.#session(sessionId);
    const active = session.active;
    if (active && active.state !== 'running') throw notActive(active, sessionId);
    return active ?? this.start(sessionId, 'Manual calls');
  }

  /** The task a discovery operation runs in (it must have started, so it holds a snapshot). */
  resolve({ taskId, sessionId }: { taskId?: string | undefined; sessionId?: string | undefined }): Task & { snapshot: Snapshot; grants: Grants; context: CapabilityContext } {
    if (!taskId && !sessionId) throw new CapstanError('BAD_REQUEST', 'BAD_REQUEST: give the taskId or the sessionId to run in');
    const task = taskId ? this.get(taskId) : this.taskForCall({ sessionId });
    if (sessionId && taskId && task.sessionId !== sessionId) {
      throw new CapstanError('TASK_NOT_FOUND', `TASK_NOT_FOUND: task "${taskId}" is not in session "${sessionId}"`);
    }
    if (!task.snapshot || !task.grants || !task.context) throw notActive(task, task.sessionId);
    return task as Task & { snapshot: Snapshot; grants: Grants; context: CapabilityContext };
  }

  /** Refuses a new mutating call while a mutating call of the session has an unknown outcome. */
  assertMayMutate(task: Task): void {
    const [first] = this.#session(task.sessionId).unknownOutcomes.values();
    if (first) {
      throw new CapstanError(
        'MUTATION_BLOCKED',
        `MUTATION_BLOCKED: the outcome of ${first.capability} (${first.requestId}) is unknown; acknowledge it before running another mutating call`,
        { blockedBy: first.requestId },
      );
    }
  }

  /**
   * Opens a call in a running task and records its start. Its end is recorded exactly once, as
   * soon as its outcome is decided, with the details `describe` gives for that outcome.
   */
  beginCall(
    task: Task,
    call: { requestId: string; capability: string; mutating: boolean; details: Record<string, unknown> },
    describe: (outcome: CallOutcome) => Record<string, unknown>,
  ): Call {
    if (task.state !== 'running') throw notActive(task, task.sessionId);
    if (task.calls.has(call.requestId)) {
      throw new CapstanError('BAD_REQUEST', `BAD_REQUEST: requestId "${call.requestId}" is already running in ${task.id}`);
    }
    const started = performance.now();
    const running = new Call(call.requestId, call.capability, call.mutating, this.config.graceMs);
    task.calls.set(call.requestId, running);
    this.ledger.append({
      kind: 'call_started',
      taskId: task.id,
      sessionId: task.sessionId,
      requestId: call.requestId,
      capability: call.capability,
      details: { mutating: call.mutating, ...call.details },
    });
    this.#changed(task);
    running.recorded = running.done.then((outcome) => {
      this.#finishCall(task, running, outcome.status, { durationMs: Math.round(performance.now() - started), ...describe(outcome) });
      return this.ledger.durable();
    });
    return running;
  }

  #finishCall(task: Task, call: Call, status: CallStatus, details: Record<string, unknown>): void {
    task.calls.delete(call.requestId);
    task.counts[status] += 1;
    if (status === 'outcome_unknown' && call.mutating) {
      this.#session(task.sessionId).unknownOutcomes.set(call.requestId, {
        requestId: call.requestId,
        taskId: task.id,
        capability: call.capability,
        at: new Date().toISOString(),
      });
    }
    this.ledger.append({
      kind: 'call_finished',
      taskId: task.id,
      sessionId: task.sessionId,
      requestId: call.requestId,
      capability: call.capability,
      details: { status, ...details },
    });
    this.#changed(task);
  }

  /** Records a call refused before it could start (grant, mutation gate, confirmation...). */
  refuseCall(task: Task, requestId: string, capability: string, code: string): void {
    task.counts.refused += 1;
    this.ledger.append({ kind: 'call_started', taskId: task.id, sessionId: task.sessionId, requestId, capability, details: { refused: true } });
    this.ledger.append({ kind: 'call_finished', taskId: task.id, sessionId: task.sessionId, requestId, capability, details: { status: 'refused', code, durationMs: 0 } });
    this.#changed(task);
  }

  // ---- reading ----------------------------------------------------------------------------

  get(taskId: string): Task {
    const task = this.#tasks.get(taskId);
    if (!task) throw new CapstanError('TASK_NOT_FOUND', `TASK_NOT_FOUND: no task "${taskId}"`);
    return task;
  }

  view(): TasksView {
    return {
      sessions: [...this.#sessions.values()].map((session) => this.#sessionView(session)),
      tasks: [...this.#tasks.values()].map((task) => task.view()),
    };
  }

  onChange(listener: (task: TaskView) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- internals --------------------------------------------------------------------------

  #session(id: string): Session {
    let session = this.#sessions.get(id);
    if (!session) this.#sessions.set(id, (session = new Session(id)));
    return session;
  }

  #sessionView(session: Session): TasksView['sessions'][number] {
    return {
      id: session.id,
      activeTaskId: session.active?.id ?? null,
      unknownOutcomes: [...session.unknownOutcomes.values()],
      conversation: [...session.conversation],
    };
  }

  /**
   * Adds a queued task to the session. A follow-up goes last and succeeds the task submitted
   * before it; a started or superseding task goes ahead of the waiting ones and succeeds the
   * last task that is not waiting.
   */
  #submit(session: Session, title: string, input: string | undefined, options: { requiresSuccess: boolean; ahead: boolean }): Task {
    const waiting = session.tasks.filter((task) => task.state === 'queued' || task.state === 'blocked');
    const predecessor = options.ahead ? [...session.tasks].reverse().find((t) => !waiting.includes(t)) : session.last;
    const task = new Task(session.id, title, options.requiresSuccess, predecessor?.id ?? null, session.conversation.length, 'queued');
    if (options.ahead && waiting.length > 0) session.tasks.splice(session.tasks.indexOf(waiting[0]!), 0, task);
    else session.tasks.push(task);
    this.#tasks.set(task.id, task);
    if (input) session.conversation.push({ role: 'operator', text: input, taskId: task.id, at: new Date().toISOString() });
    this.ledger.append({ kind: 'task_transition', taskId: task.id, sessionId: session.id, details: { from: null, to: task.state, title, requiresSuccess: task.requiresSuccess, reason: 'submitted' } });
    this.#changed(task);
    return task;
  }

  /** Runs the next waiting task when nothing is active; a dependent one blocks after a failure. */
  #advance(session: Session): void {
    if (session.active) return;
    const next = session.tasks.find((task) => task.state === 'queued' || task.state === 'blocked');
    if (!next || next.state === 'blocked') return;
    const predecessor = next.predecessorId ? this.#tasks.get(next.predecessorId) : undefined;
    const dependencyFailed = next.requiresSuccess && predecessor && predecessor.state !== 'succeeded' && !this.#resumed.has(next.id);
    if (dependencyFailed) {
      this.#transition(next, 'blocked', `its predecessor ended ${predecessor.state}`);
      return;
    }
    this.#run(next, predecessor);
  }

  #run(task: Task, predecessor?: Task): void {
    task.snapshot = this.catalog.snapshot();
    task.grants = new Grants(this.config.grants);
    task.context = new CapabilityContext(this.config.budget);
    task.startedAt = new Date().toISOString();
    if (predecessor && isTerminal(predecessor.state)) task.handoff = this.#handoff(predecessor, task);
    this.#transition(task, 'running', predecessor ? `after ${predecessor.id}` : 'started');
  }

  /** The redacted digest a successor gets: outcome, counts, final message, and names it may discover. */
  #handoff(predecessor: Task, successor: Task): Handoff {
    const snapshot = successor.snapshot!;
    const grants = successor.grants!;
    const discoverable = snapshot.entries
      .filter((e) => e.contract.modelDiscoverable && grants.held(e.contract.id, e.contract.kind) !== 'none')
      .map((e) => e.contract.id);
    return {
      predecessorId: predecessor.id,
      terminalStatus: predecessor.state,
      finalMessage: predecessor.finalMessage,
      callCounts: { ...predecessor.counts },
      discoverable,
      conversation: this.#session(successor.sessionId).conversation.slice(0, successor.conversationAt),
    };
  }

  async #cancel(task: Task, terminal: 'cancelled' | 'superseded', reason: string): Promise<void> {
    const calls = [...task.calls.values()];
    this.ledger.append({ kind: 'cancellation', taskId: task.id, sessionId: task.sessionId, details: { reason, callsInFlight: calls.length } });
    this.#transition(task, 'cancelling', reason);
    for (const call of calls) call.abort('cancelled');
    this.#transition(task, 'quiescing', 'waiting for running calls to end');
    // The barrier: every started call finishes, acknowledges cancellation or becomes unknown,
    // and its end is in the ledger, before the task ends and anything succeeds it.
    await Promise.all(calls.map((call) => call.recorded));
    this.#end(task, terminal, reason);
  }

  /** Resolves when the task reaches a terminal state. */
  #ended(task: Task): Promise<void> {
    if (isTerminal(task.state)) return Promise.resolve();
    return new Promise((resolve) => {
      const stop = this.onChange((view) => {
        if (view.id === task.id && isTerminal(view.state)) {
          stop();
          resolve();
        }
      });
    });
  }

  #end(task: Task, state: 'succeeded' | 'failed' | 'cancelled' | 'superseded', reason: string): void {
    task.endedAt = new Date().toISOString();
    this.#transition(task, state, reason);
    this.#advance(this.#session(task.sessionId));
  }

  #transition(task: Task, to: TaskState, reason: string, extra: Record<string, unknown> = {}): void {
    const from = task.state;
    if (!TRANSITIONS[from].includes(to)) throw new Error(`illegal task transition ${from} → ${to}`);
    task.state = to;
    this.ledger.append({ kind: 'task_transition', taskId: task.id, sessionId: task.sessionId, details: { from, to, reason, ...extra } });
    this.#changed(task);
  }

  #changed(task: Task): void {
    const view = task.view();
    for (const listener of this.#listeners) listener(view);
  }
}

function notActive(task: Task | undefined, sessionId: string): CapstanError {
  return task
    ? new CapstanError('TASK_NOT_ACTIVE', `TASK_NOT_ACTIVE: ${task.id} is ${task.state}; it takes no new calls or input`, { state: task.state })
    : new CapstanError('TASK_NOT_ACTIVE', `TASK_NOT_ACTIVE: session "${sessionId}" has no running task`);
}
