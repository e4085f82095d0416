/**
 * The task runtime: sessions and the lifecycle of their tasks. A session keeps the conversation;
 * a task owns the execution state of one top-level request: its catalog snapshot, grants,
 * capability context and calls. At most one task is active per session; follow-ups queue behind
 * it; cancellation stops new calls at once, aborts running ones and waits for each to end before
 * anything succeeds the task.
 *
 * Every change goes through the journal (journal.ts): written to the ledger first, applied in
 * memory after. Every capability call, whatever its entry, is `runCall` (callPath.ts); what a
 * restart leaves unfinished is closed by `recover` (recovery.ts).
 *
 * Kept whole at about 460 lines: the task actions share the moves (submit, advance, run, cancel,
 * barrier) that keep one task active per session, and read best beside them; what could stand
 * apart already does (journal, call path, recovery).
 */
import type { Grant } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import { DEFAULT_SESSION, type CallCancellation, type SessionView, type TaskView, type TasksQuery, type TasksView } from '../../shared/tasks';
import type { Catalog } from '../catalog/catalog';
import type { TaskStore } from '../store/taskStore';
import { CapabilityContext, type AdmissionBudget } from './admission';
import type { CallOutcome, CallSpec } from './call';
import { CallPath } from './callPath';
import { Grants } from './grants';
import { TaskJournal } from './journal';
import type { Ledger } from './ledger';
import { RuntimeMemory, type MemoryLimits } from './memory';
import { recoverAfterRestart } from './recovery';
import { handoffTo, isTerminal, notActive, Session, Task, type InFlight, type RunningTask } from './task';

export interface RuntimeConfig {
  grants: readonly Grant[];
  /** The grants of a new task in this session, when they differ from `grants` (an agent's session). */
  grantsFor?: ((sessionId: string) => readonly Grant[]) | undefined;
  budget: AdmissionBudget;
  /** How long a cancelled or timed-out call may take to end before its outcome is unknown. */
  graceMs: number;
  limits?: Partial<RuntimeLimits>;
  /** Asked before a task is added to a session; throws to refuse it (an agent at its quota of tasks). */
  admitTask?: ((sessionId: string) => void) | undefined;
}

/** What memory holds at most; everything beyond stays in the store and is read back on demand. */
export interface RuntimeLimits extends MemoryLimits {
  /** Steers one task accepts; each is operator text kept in the conversation. */
  steersPerTask: number;
  /** Grant reductions one task accepts; every permission check walks them. */
  reductionsPerTask: number;
}

export const DEFAULT_RUNTIME_LIMITS: RuntimeLimits = { finishedTasks: 200, sessions: 500, steersPerTask: 100, reductionsPerTask: 100 };
export const DEFAULT_FINISHED_PAGE = 50;

/** The title of the task `taskForCall` starts for calls that name no task; runtime marks it explicitly, not by this title. */
export const MANUAL_CALLS = 'Manual calls';

/**
 * Work a task does besides its calls, such as a Harn script: whatever stops the task (cancel,
 * supersede, finish) stops the work too and waits for it in the barrier, as for a running call;
 * a steer reaches it only if it takes one.
 */
export interface TaskWork {
  /** Stops the work; resolves once it has stopped. */
  stop(): Promise<void>;
  /** Throws a CapstanError when the work cannot take operator text; asked before the steer is recorded. */
  assertSteerable(): void;
  /** Hands over a steer once it is recorded. */
  steer(text: string): void;
}

export class TaskRuntime {
  readonly #memory: RuntimeMemory;
  readonly #journal: TaskJournal;
  readonly #calls: CallPath;
  /** Blocked follow-ups the operator let run despite their predecessor's outcome. */
  readonly #resumed = new Set<string>();
  readonly #limits: RuntimeLimits;
  /** Work attached to running tasks, by task id (see `attachWork`). */
  readonly #work = new Map<string, TaskWork>();
  /** Each session's manual-calls task, by session id: the one `taskForCall` started for calls naming no task. */
  readonly #manual = new Map<string, string>();

  constructor(
    private readonly catalog: Catalog,
    private readonly ledger: Ledger,
    private readonly store: TaskStore,
    private readonly config: RuntimeConfig,
  ) {
    this.#limits = { ...DEFAULT_RUNTIME_LIMITS, ...config.limits };
    this.#memory = new RuntimeMemory(store, this.#limits);
    this.#journal = new TaskJournal(ledger, store, this.#memory);
    this.#calls = new CallPath(this.#journal, config.graceMs);
  }

  /** After a restart, before anyone can call: what the last process left unfinished is closed, on record (recovery.ts). */
  recover(): Promise<void> {
    return recoverAfterRestart(this.#journal);
  }

  // ---- actions ----------------------------------------------------------------------------

  /** Start: creates and runs a task when the session has none active. */
  start(sessionId: string, title: string, input?: string): RunningTask {
    const session = this.#journal.session(sessionId);
    const active = session.active;
    if (active) {
      throw new CapstanError('TASK_ACTIVE', `session "${sessionId}" already runs "${active.title}" (${active.id}); steer it, queue a follow-up or supersede it`, {
        taskId: active.id,
      });
    }
    const task = this.#submit(session, title, input, { requiresSuccess: false, ahead: true });
    this.#run(task);
    return task.running();
  }

  /** Steer: adds operator input to the running task; a new step begins. */
  steer(sessionId: string, taskId: string | undefined, text: string): Task {
    const task = this.#runningOrActive(sessionId, taskId);
    if (task.steerCount >= this.#limits.steersPerTask) {
      throw new CapstanError('LIMIT_REACHED', `${task.id} already has ${task.steerCount} steers, the most a task takes; finish it and follow up`, {
        what: 'steers',
        limit: this.#limits.steersPerTask,
      });
    }
    const work = this.#work.get(task.id);
    work?.assertSteerable();
    const session = this.#journal.session(task.sessionId);
    const at = new Date().toISOString();
    this.#journal.record(task, { kind: 'steer', details: { textDigest: this.ledger.digest(text) } }, (seq) => {
      task.steered(seq, text, at);
      this.#memory.say(session, seq, { role: 'operator', text, taskId: task.id, at });
    });
    work?.steer(text);
    return task;
  }

  /**
   * Attaches work to a running task (a Harn run). The returned function detaches it, for work
   * that ended by itself and is about to finish its task; until then, whatever stops the task
   * stops the work first.
   */
  attachWork(taskId: string, work: TaskWork): () => void {
    const task = this.get(taskId).running();
    if (this.#work.has(task.id)) throw new CapstanError('TASK_ACTIVE', `${task.id} already runs other work`);
    this.#work.set(task.id, work);
    return () => {
      if (this.#work.get(task.id) === work) this.#work.delete(task.id);
    };
  }

  /** Follow-up: queued until the tasks before it end; runs at once when nothing is ahead. */
  followUp(sessionId: string, title: string, input: string | undefined, requiresSuccess: boolean): Task {
    const session = this.#journal.session(sessionId);
    const task = this.#submit(session, title, input, { requiresSuccess, ahead: false });
    this.#advance(session);
    return task;
  }

  /**
   * Supersede: replaces what the session was doing. The follow-ups waiting behind the active task
   * are discarded (superseded without running) and the replacement queues first, so the active
   * task's end cannot run one of them; then the active task is cancelled, and once its barrier
   * holds the replacement runs, handed over from the task it replaced (with none active, from the
   * last task that ran). A follow-up submitted meanwhile queues behind the replacement.
   */
  async supersede(sessionId: string, title: string, input?: string): Promise<Task> {
    const session = this.#journal.session(sessionId);
    for (const waiting of session.waiting) this.#journal.transition(waiting, 'superseded', 'discarded by a supersede before it ran');
    const task = this.#submit(session, title, input, { requiresSuccess: false, ahead: true });
    const active = session.active;
    // A task already stopping (finishing, or cancelled by someone else) is waited for, not cancelled twice;
    // whoever ends it runs the replacement next.
    if (active) await (active.state === 'running' ? this.#cancel(active, 'superseded', 'superseded by a new task') : this.#journal.ended(active));
    else this.#advance(session);
    return task;
  }

  /** Finish: the task's final message; waits for its calls to end, then the next task may run. */
  async finish(sessionId: string, taskId: string | undefined, message: string, outcome: 'succeeded' | 'failed'): Promise<Task> {
    const task = this.#runningOrActive(sessionId, taskId);
    const session = this.#journal.session(task.sessionId);
    task.assertCanMove('quiescing');
    const at = new Date().toISOString();
    this.#journal.transition(task, 'quiescing', 'finishing', { messageDigest: this.ledger.digest(message) }, (seq) => {
      task.finishing(seq, message);
      this.#memory.say(session, seq, { role: 'task', text: message, taskId: task.id, at });
    });
    await this.#barrier(task);
    this.#end(task, outcome, 'finished');
    return task;
  }

  /** Cancel: stops new calls now, aborts running ones, waits for the barrier. Never rolls back side effects. */
  async cancel(taskId: string, reason = 'cancelled by the operator'): Promise<Task> {
    const task = this.get(taskId);
    if (isTerminal(task.state)) throw notActive(task);
    if (task.state === 'queued' || task.state === 'blocked') {
      task.assertCanMove('cancelled');
      this.#journal.record(task, { kind: 'cancellation', details: { reason, callsInFlight: 0 } });
      this.#journal.transition(task, 'cancelled', reason);
      this.#advance(this.#journal.session(task.sessionId));
      return task;
    }
    await (task.state === 'running' ? this.#cancel(task, 'cancelled', reason) : this.#journal.ended(task));
    return task;
  }

  /** Resume: lets a blocked follow-up run despite its predecessor's outcome. */
  resume(taskId: string): Task {
    const task = this.get(taskId);
    if (task.state !== 'blocked') {
      throw new CapstanError('TASK_NOT_ACTIVE', `${task.id} is ${task.state}; only a blocked follow-up can be resumed`, { state: task.state });
    }
    this.#journal.transition(task, 'queued', 'resumed by the operator', { overrideDependency: true });
    this.#resumed.add(task.id);
    this.#advance(this.#journal.session(task.sessionId));
    return task;
  }

  /** Acknowledge: the operator accepts a mutating call's unknown outcome; mutations may run again. */
  acknowledge(taskId: string, requestId: string): SessionView {
    const task = this.get(taskId);
    const session = this.#journal.session(task.sessionId);
    const unknown = session.unknownOutcomes.get(requestId);
    if (!unknown) {
      throw new CapstanError('NOTHING_TO_ACKNOWLEDGE', `no mutating call "${requestId}" with an unknown outcome in session "${session.id}"`);
    }
    this.#journal.record(
      task,
      { kind: 'acknowledgement', requestId, capability: unknown.capability, details: { acknowledged: 'outcome_unknown', remainingUnknown: session.unknownOutcomes.size - 1 } },
      () => this.#memory.clearUnknownOutcome(session, requestId),
    );
    return session.view();
  }

  /** Lowers a running task's grant; raising is AUTHORITY_CEILING. */
  reduceGrant(taskId: string, grant: Grant): Task {
    const task = this.get(taskId);
    if (!task.grants || isTerminal(task.state)) throw notActive(task);
    const grants = task.grants;
    if (grants.reductions.length >= this.#limits.reductionsPerTask) {
      // Every permission check walks the reductions, so a client may not pile them up without end.
      throw new CapstanError('LIMIT_REACHED', `${task.id} already has ${grants.reductions.length} grant reductions, the most a task takes`, {
        what: 'grant reductions',
        limit: this.#limits.reductionsPerTask,
      });
    }
    grants.assertReducible(grant);
    this.#journal.record(task, { kind: 'grant_reduced', details: { pattern: grant.pattern, authority: grant.authority } }, () => grants.reduce(grant));
    return task;
  }

  // ---- calls ------------------------------------------------------------------------------

  /**
   * The task a capability call runs in: the named task, which must be running, or the
   * session's running task, started for the call when the session has none: a manual-calls task
   * (`MANUAL_CALLS`). A manual-calls task whose snapshot is older than the catalog (a server added
   * or changed since it began) is finished and a fresh one takes its place (`#renewManual`), so a
   * manual call never fails on a stale snapshot; a task started on purpose is never replaced.
   */
  taskForCall({ taskId, sessionId }: { taskId?: string | undefined; sessionId?: string | undefined }): RunningTask {
    if (taskId) return this.#named(taskId, sessionId);
    const session = this.#journal.session(sessionId ?? DEFAULT_SESSION);
    const active = session.active;
    if (!active) return this.#startManual(session);
    return this.#manual.get(session.id) === active.id ? this.#renewManual(session, active) : active.running();
  }

  /**
   * The task a discovery operation runs in, named by either id (no default session: discovery is
   * a model's, not the console's). A manual-calls task used for discovery hands out references to
   * its snapshot, so from then on it is kept like a task started on purpose: never replaced.
   */
  resolve(where: { taskId?: string | undefined; sessionId?: string | undefined }): RunningTask {
    if (!where.taskId && !where.sessionId) throw new CapstanError('BAD_REQUEST', 'give the taskId or the sessionId to run in');
    if (where.taskId) return this.#named(where.taskId, where.sessionId);
    const session = this.#journal.session(where.sessionId!);
    const task = session.active?.running() ?? this.#startManual(session);
    if (this.#manual.get(session.id) === task.id) this.#manual.delete(session.id);
    return task;
  }

  /** Runs one capability call in a running task, whatever its entry (callPath.ts). */
  runCall(task: RunningTask, spec: CallSpec, work: (signal: AbortSignal) => unknown): Promise<CallOutcome> {
    return this.#calls.run(task, spec, work);
  }

  /** Cancels one running call, not its task (callPath.ts). */
  cancelCall(requestId: string, reason?: string): Promise<CallCancellation> {
    return this.#calls.cancel(requestId, reason);
  }

  /**
   * Cancels every call still running, each recorded as it ends (cancelled, or outcome_unknown once
   * the grace period is over); for shutdown, while their providers and the ledger are still there.
   * Undefined when none runs, so that a stop with nothing running stays synchronous.
   */
  cancelRunningCalls(reason: string): Promise<void> | undefined {
    return this.#calls.cancelAll(reason);
  }

  /** The call running under `requestId`, its task and who made it. */
  runningCall(requestId: string): { task: Task; inFlight: InFlight } {
    return this.#calls.running(requestId);
  }

  // ---- reading ----------------------------------------------------------------------------

  /** A task in memory, or one read back from the store (ended tasks leave memory beyond a limit). */
  get(taskId: string): Task {
    return this.#journal.task(taskId);
  }

  /**
   * Every task that has not ended, and a page of ended ones, newest first (older pages with
   * `finishedBefore`), with the sessions they belong to: the same before and after a restart.
   */
  view({ finishedBefore, finishedLimit = DEFAULT_FINISHED_PAGE }: TasksQuery = {}): TasksView {
    const unfinished = this.#memory.unfinished().map((task) => task.view());
    const page = this.store.finishedPage({ before: finishedBefore, limit: finishedLimit });
    const tasks = [...unfinished, ...page.tasks.map((record) => this.#memory.held(record.view.id) ?? record.view)];
    const sessionIds = new Set([...this.#memory.sessionIds(), ...tasks.map((task) => task.sessionId)]);
    return {
      sessions: [...sessionIds].map((id) => this.#journal.session(id).view()),
      tasks,
      finishedTotal: page.total,
      finishedBefore: page.before,
      asOf: this.ledger.lastSeq,
    };
  }

  /** How many tasks that have not ended are in the sessions `where` picks. */
  unfinishedCount(where: (sessionId: string) => boolean): number {
    return this.#memory.unfinished().filter((task) => where(task.sessionId)).length;
  }

  onChange(listener: (task: TaskView) => void): () => void {
    return this.#journal.onChange(listener);
  }

  // ---- internals --------------------------------------------------------------------------

  #named(taskId: string, sessionId: string | undefined): RunningTask {
    const task = this.get(taskId);
    if (sessionId && task.sessionId !== sessionId) throw new CapstanError('TASK_NOT_FOUND', `task "${taskId}" is not in session "${sessionId}"`);
    return task.running();
  }

  /** Starts the session's manual-calls task, marked as such in memory and in its ledger entries. */
  #startManual(session: Session, replacing?: Task): RunningTask {
    const task = this.#submit(session, MANUAL_CALLS, undefined, { requiresSuccess: false, ahead: true, manual: true });
    this.#manual.set(session.id, task.id);
    this.#run(task, undefined, replacing ? `started in place of ${replacing.id}: the catalog changed since it began` : undefined);
    return task.running();
  }

  /**
   * The session's manual-calls task, or a fresh one when the catalog changed since it began. The
   * old one is finished (succeeded, with a final message saying why) and the new one takes its
   * place ahead of any follow-ups queued behind it. While a call of the old one still runs (or
   * once it is stopping), it is kept: the call after that moves on.
   */
  #renewManual(session: Session, active: Task): RunningTask {
    const current = active.snapshot?.catalogGeneration === this.catalog.generation;
    if (active.state !== 'running' || current || active.calls.size > 0 || this.#work.has(active.id)) return active.running();
    const message = `the catalog changed (generation ${active.snapshot?.catalogGeneration} → ${this.catalog.generation}); manual calls continue in a new task`;
    const at = new Date().toISOString();
    this.#journal.transition(active, 'quiescing', 'finishing', { messageDigest: this.ledger.digest(message), manual: true }, (seq) => {
      active.finishing(seq, message);
      this.#memory.say(session, seq, { role: 'task', text: message, taskId: active.id, at });
    });
    // No call runs, so the barrier holds already; ended without advancing the session, so the
    // follow-ups queued behind it wait behind its replacement instead.
    this.#journal.transition(active, 'succeeded', 'finished: the catalog changed; manual calls continue in a new task', { manual: true });
    this.#manual.delete(session.id);
    return this.#startManual(session, active);
  }

  #runningOrActive(sessionId: string, taskId: string | undefined): RunningTask {
    const task = taskId ? this.get(taskId) : this.#journal.session(sessionId).active;
    if (!task) throw notActive(undefined, sessionId);
    return task.running();
  }

  /**
   * Adds a queued task to the session. A follow-up goes last and succeeds the task submitted
   * before it; a started or superseding task goes ahead of the waiting ones and succeeds the
   * last task that ran (the active one, if any): a follow-up cancelled or discarded before it
   * ran has nothing to hand over.
   */
  #submit(session: Session, title: string, input: string | undefined, options: { requiresSuccess: boolean; ahead: boolean; manual?: boolean }): Task {
    this.config.admitTask?.(session.id);
    const waiting = session.waiting;
    const predecessor = options.ahead ? session.lastRan : session.tasks.at(-1);
    const task = new Task(session.id, title, options.requiresSuccess, predecessor?.id ?? null, session.conversation.length);
    const at = new Date().toISOString();
    this.#journal.record(task, { kind: 'task_transition', details: { from: null, to: task.state, title, requiresSuccess: task.requiresSuccess, reason: 'submitted', ...(options.manual ? { manual: true } : {}) } }, (seq) => {
      task.submittedSeq = seq;
      if (options.ahead && waiting.length > 0) session.tasks.splice(session.tasks.indexOf(waiting[0]!), 0, task);
      else session.tasks.push(task);
      this.#memory.remember(task);
      if (input) this.#memory.say(session, seq, { role: 'operator', text: input, taskId: task.id, at });
    });
    return task;
  }

  /** Runs the next waiting task when nothing is active; a dependent one blocks after a failure. */
  #advance(session: Session): void {
    session.trim();
    if (session.active) return;
    const next = session.waiting[0];
    if (!next || next.state === 'blocked') return;
    const predecessor = next.predecessorId ? this.get(next.predecessorId) : undefined;
    const dependencyFailed = next.requiresSuccess && predecessor && predecessor.state !== 'succeeded' && !this.#resumed.has(next.id);
    if (dependencyFailed) {
      this.#journal.transition(next, 'blocked', `its predecessor ended ${predecessor.state}`);
      return;
    }
    this.#run(next, predecessor);
  }

  #run(task: Task, predecessor?: Task, reason?: string): void {
    const grants = new Grants(this.config.grantsFor?.(task.sessionId) ?? this.config.grants);
    const run = { snapshot: this.catalog.snapshot(), grants, context: new CapabilityContext(this.config.budget) };
    const handoff = predecessor && isTerminal(predecessor.state) ? handoffTo(task, predecessor, run, this.#journal.session(task.sessionId).conversation) : null;
    this.#journal.transition(task, 'running', reason ?? (predecessor ? `after ${predecessor.id}` : 'started'), this.#manual.get(task.sessionId) === task.id ? { manual: true } : {}, (seq) => task.moved(seq, 'running', { run, handoff }));
  }

  async #cancel(task: Task, terminal: 'cancelled' | 'superseded', reason: string): Promise<void> {
    const calls = [...task.calls.values()];
    task.assertCanMove('cancelling');
    this.#journal.record(task, { kind: 'cancellation', details: { reason, callsInFlight: calls.length } });
    this.#journal.transition(task, 'cancelling', reason);
    for (const { call } of calls) call.abort('cancelled');
    this.#journal.transition(task, 'quiescing', 'waiting for running calls to end');
    await this.#barrier(task);
    this.#end(task, terminal, reason);
  }

  /**
   * The barrier: every started call finishes, acknowledges cancellation or becomes unknown, and
   * its end is durable in the ledger, before the task ends and anything succeeds it.
   */
  async #barrier(task: Task): Promise<void> {
    const work = this.#work.get(task.id);
    this.#work.delete(task.id);
    // The work's own failure to stop is its to report; the barrier only waits for it.
    const stopped = work?.stop().catch(() => undefined);
    // A call whose end could not be recorded (the ledger failing) has ended all the same; the durable() below says so.
    await Promise.allSettled([stopped, ...[...task.calls.values()].map(({ recorded }) => recorded)]);
    await this.ledger.durable();
  }

  #end(task: Task, state: 'succeeded' | 'failed' | 'cancelled' | 'superseded', reason: string): void {
    this.#journal.transition(task, state, reason);
    this.#advance(this.#journal.session(task.sessionId));
  }

}
