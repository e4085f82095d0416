/**
 * The task runtime. A session keeps the conversation; a task owns the execution state of one
 * top-level request: its catalog snapshot, grants, capability context and calls. At most one
 * task is active per session; follow-ups queue behind it; cancellation stops new calls at once,
 * aborts running ones and waits for each to end before anything succeeds the task.
 *
 * Every change is written to the ledger first and applied in memory after (`#record`), so a
 * write that fails leaves neither. Every capability call, whatever its entry, is `runCall`.
 *
 * Longer than ~350 lines on purpose: the task actions, the call path and the restart recovery
 * all go through `#record` and the transitions, and read best beside them. What could stand
 * alone has moved out: the state machine (task.ts), a call in flight (call.ts), what memory
 * holds (memory.ts), the ledger scan of a restart (recovery.ts).
 */
import type { Grant } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import { SYSTEM } from '../../shared/principal';
import {
  DEFAULT_SESSION,
  type CallCancellation,
  type CallStatus,
  type SessionView,
  type TaskState,
  type TaskView,
  type TasksQuery,
  type TasksView,
} from '../../shared/tasks';
import type { Catalog } from '../catalog/catalog';
import type { TaskStore } from '../store/taskStore';
import { RuntimeMemory, type MemoryLimits } from './memory';
import { currentPrincipal, runAs } from './principal';
import { unendedCalls } from './recovery';
import { CapabilityContext, type AdmissionBudget } from './admission';
import { Call, type CallOutcome, type CallSpec } from './call';
import { Grants } from './grants';
import type { Ledger, LedgerAppend } from './ledger';
import { handoffTo, isTerminal, notActive, Session, Task, type InFlight, type RunningTask } from './task';

export interface RuntimeConfig {
  grants: readonly Grant[];
  budget: AdmissionBudget;
  /** How long a cancelled or timed-out call may take to end before its outcome is unknown. */
  graceMs: number;
  limits?: Partial<RuntimeLimits>;
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
const RESTARTED = 'gateway restarted';

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
  readonly #listeners = new Set<(task: TaskView) => void>();
  /** Blocked follow-ups the operator let run despite their predecessor's outcome. */
  readonly #resumed = new Set<string>();
  readonly #limits: RuntimeLimits;
  /** Work attached to running tasks, by task id (see `attachWork`). */
  readonly #work = new Map<string, TaskWork>();

  constructor(
    private readonly catalog: Catalog,
    private readonly ledger: Ledger,
    private readonly store: TaskStore,
    private readonly config: RuntimeConfig,
  ) {
    this.#limits = { ...DEFAULT_RUNTIME_LIMITS, ...config.limits };
    this.#memory = new RuntimeMemory(store, this.#limits);
  }

  /**
   * After a restart: every task the last process left unfinished is closed as failed, each call
   * it started without an end gets one with an unknown outcome, and a mutating one arms its
   * session's mutation gate until the operator acknowledges it. All of it recorded.
   */
  async recover(): Promise<void> {
    // Nobody asked for this: its entries name the gateway itself.
    runAs(SYSTEM, () => {
      for (const sessionId of this.store.sessionsWithUnfinishedTasks()) {
        const session = this.#session(sessionId);
        for (const task of session.tasks.filter((t) => !isTerminal(t.state))) this.#closeAfterRestart(task, session);
        session.trim();
      }
    });
    await this.ledger.durable();
  }

  // ---- actions ----------------------------------------------------------------------------

  /** Start: creates and runs a task when the session has none active. */
  start(sessionId: string, title: string, input?: string): RunningTask {
    const session = this.#session(sessionId);
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
    const session = this.#session(task.sessionId);
    const at = new Date().toISOString();
    this.#record(task, { kind: 'steer', details: { textDigest: this.ledger.digest(text) } }, (seq) => {
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
    const session = this.#session(sessionId);
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
    const session = this.#session(sessionId);
    for (const waiting of session.waiting) this.#transition(waiting, 'superseded', 'discarded by a supersede before it ran');
    const task = this.#submit(session, title, input, { requiresSuccess: false, ahead: true });
    const active = session.active;
    // A task already stopping (finishing, or cancelled by someone else) is waited for, not cancelled twice;
    // whoever ends it runs the replacement next.
    if (active) await (active.state === 'running' ? this.#cancel(active, 'superseded', 'superseded by a new task') : this.#ended(active));
    else this.#advance(session);
    return task;
  }

  /** Finish: the task's final message; waits for its calls to end, then the next task may run. */
  async finish(sessionId: string, taskId: string | undefined, message: string, outcome: 'succeeded' | 'failed'): Promise<Task> {
    const task = this.#runningOrActive(sessionId, taskId);
    const session = this.#session(task.sessionId);
    task.assertCanMove('quiescing');
    const at = new Date().toISOString();
    this.#transition(task, 'quiescing', 'finishing', { messageDigest: this.ledger.digest(message) }, (seq) => {
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
      this.#record(task, { kind: 'cancellation', details: { reason, callsInFlight: 0 } });
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
      throw new CapstanError('TASK_NOT_ACTIVE', `${task.id} is ${task.state}; only a blocked follow-up can be resumed`, { state: task.state });
    }
    this.#transition(task, 'queued', 'resumed by the operator', { overrideDependency: true });
    this.#resumed.add(task.id);
    this.#advance(this.#session(task.sessionId));
    return task;
  }

  /** Acknowledge: the operator accepts a mutating call's unknown outcome; mutations may run again. */
  acknowledge(taskId: string, requestId: string): SessionView {
    const task = this.get(taskId);
    const session = this.#session(task.sessionId);
    const unknown = session.unknownOutcomes.get(requestId);
    if (!unknown) {
      throw new CapstanError('NOTHING_TO_ACKNOWLEDGE', `no mutating call "${requestId}" with an unknown outcome in session "${session.id}"`);
    }
    this.#record(
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
    this.#record(task, { kind: 'grant_reduced', details: { pattern: grant.pattern, authority: grant.authority } }, () => grants.reduce(grant));
    return task;
  }

  // ---- calls ------------------------------------------------------------------------------

  /**
   * The task a capability call runs in: the named task, which must be running, or the
   * session's running task, started for the call when the session has none.
   */
  taskForCall({ taskId, sessionId }: { taskId?: string | undefined; sessionId?: string | undefined }): RunningTask {
    if (taskId) {
      const task = this.get(taskId);
      if (sessionId && task.sessionId !== sessionId) throw new CapstanError('TASK_NOT_FOUND', `task "${taskId}" is not in session "${sessionId}"`);
      return task.running();
    }
    const session = sessionId ?? DEFAULT_SESSION;
    const active = this.#session(session).active;
    return active ? active.running() : this.start(session, 'Manual calls');
  }

  /** The task a discovery operation runs in, named by either id (no default session: discovery is a model's, not the console's). */
  resolve(where: { taskId?: string | undefined; sessionId?: string | undefined }): RunningTask {
    if (!where.taskId && !where.sessionId) throw new CapstanError('BAD_REQUEST', 'give the taskId or the sessionId to run in');
    return this.taskForCall(where);
  }

  /**
   * Runs one capability call in a running task, whatever its entry: granted `execute`? → may it
   * mutate? → confirmed? → recorded as started → the work under its deadline, abortable by the
   * task's cancellation → recorded as finished. Resolves only once the end is durable, so a call
   * a client hears about is a call on record. A refusal is recorded, then thrown.
   */
  async runCall(task: RunningTask, spec: CallSpec, work: (signal: AbortSignal) => unknown): Promise<CallOutcome> {
    const { requestId, capability } = spec;
    if (task.calls.has(requestId)) throw new CapstanError('BAD_REQUEST', `requestId "${requestId}" is already running in ${task.id}`).inTask(task.id);
    try {
      task.grants.require(capability, 'tool', 'execute');
      if (spec.mutating) this.#assertMayMutate(task);
      if (spec.confirm) {
        const confirmation = await this.#confirmation(task, spec.confirm);
        // A confirmation may take minutes (an agent's call waits for the operator): what it
        // was asked under is asked again, so a task that stopped or a grant lowered meanwhile holds.
        task.running();
        task.grants.require(capability, 'tool', 'execute');
        if (spec.mutating) this.#assertMayMutate(task);
        this.#record(task, { kind: 'confirmation', requestId, capability, details: confirmation });
      }
    } catch (error) {
      if (error instanceof CapstanError && !isTerminal(task.state)) this.#refuse(task, requestId, capability, error.code);
      await this.ledger.durable();
      throw error instanceof CapstanError ? error.inTask(task.id) : error;
    }

    const call = new Call(spec, this.config.graceMs);
    // Settles once the call's end is recorded (rejects if recording it failed): the cancellation barrier.
    const { promise: recorded, resolve, reject } = Promise.withResolvers<CallOutcome>();
    // In flight from its recorded start, so the task view that announces the start counts it.
    this.#record(task, { kind: 'call_started', requestId, capability, details: { mutating: spec.mutating, ...spec.details } }, () =>
      task.calls.set(requestId, { call, principal: currentPrincipal(), recorded }),
    );
    call
      .run(work)
      .then((outcome) => {
        this.#finishCall(task, call, outcome);
        return outcome;
      })
      .then(resolve, reject);
    const outcome = await recorded;
    await this.ledger.durable();
    return outcome;
  }

  /**
   * Cancels one running call, not its task: a `cancellation` naming the call is recorded, then the
   * call is told to stop and gets the grace period, as in a task's cancellation (one that does
   * neither ends `outcome_unknown`, and a mutating one then blocks the session's mutations until
   * acknowledged). Resolves with how the call ended once that is on record; the task runs on.
   * Who may cancel it is the gateway's to decide (`runningCall` names who made it).
   */
  async cancelCall(requestId: string, reason = 'call cancelled by the operator'): Promise<CallCancellation> {
    const { task, inFlight } = this.runningCall(requestId);
    const { capability } = inFlight.call.spec;
    this.#record(task, { kind: 'cancellation', requestId, capability, details: { reason, scope: 'call' } });
    inFlight.call.abort('cancelled', 'call');
    const outcome = await inFlight.recorded;
    await this.ledger.durable();
    return { requestId, taskId: task.id, capability, status: outcome.status, durationMs: outcome.durationMs };
  }

  /** The call running under `requestId`, its task and who made it; CALL_NOT_RUNNING when it already ended, else CALL_NOT_FOUND. */
  runningCall(requestId: string): { task: Task; inFlight: InFlight } {
    for (const task of this.#memory.unfinished()) {
      const inFlight = task.calls.get(requestId);
      if (inFlight) return { task, inFlight };
    }
    const ended = this.ledger.query({ requestId, kind: 'call_finished', limit: 1000 }).at(-1);
    if (ended) {
      throw new CapstanError('CALL_NOT_RUNNING', `call "${requestId}" already ended (${String(ended.details.status)}); there is nothing to cancel`, {
        callStatus: ended.details.status,
      });
    }
    throw new CapstanError('CALL_NOT_FOUND', `no call "${requestId}" is running`);
  }

  /**
   * Asks for the call's confirmation with a signal that aborts as soon as the task leaves
   * `running`: a call waiting for a person ends with its task (refused and recorded in the
   * task's last moments, before its barrier commits), and nothing is left waiting after it.
   */
  async #confirmation(task: Task, confirm: NonNullable<CallSpec['confirm']>): Promise<Record<string, unknown>> {
    const stopped = new AbortController();
    const stop = this.onChange((view) => {
      if (view.id === task.id && view.state !== 'running') stopped.abort(notActive(task));
    });
    try {
      return await confirm(stopped.signal);
    } finally {
      stop();
    }
  }

  #finishCall(task: Task, call: Call, outcome: CallOutcome): void {
    const { requestId, capability, mutating } = call.spec;
    const session = this.#session(task.sessionId);
    const evidence = outcome.status === 'ok' ? { resultDigest: this.ledger.digestJson(outcome.resultJson) } : { code: outcome.error.code };
    this.#record(task, { kind: 'call_finished', requestId, capability, details: { status: outcome.status, durationMs: outcome.durationMs, ...evidence } }, () => {
      task.calls.delete(requestId);
      task.counts[outcome.status] += 1;
      if (outcome.status === 'outcome_unknown' && mutating) this.#memory.setUnknownOutcome(session, { requestId, taskId: task.id, capability, at: new Date().toISOString() });
    });
  }

  /**
   * A call that did not start, both ends on record: refused (grant, mutation gate, a denied or
   * expired approval...), or answered with a confirmation challenge (CONFIRMATION_REQUIRED, the
   * HTTP round trip), which is no refusal: the same call comes back confirmed and runs, so it is
   * counted apart, as a confirmation request.
   */
  #refuse(task: Task, requestId: string, capability: string, code: string): void {
    const status: CallStatus = code === 'CONFIRMATION_REQUIRED' ? 'confirmation_requested' : 'refused';
    const started = status === 'refused' ? { refused: true } : { confirmationRequested: true };
    this.#record(task, { kind: 'call_started', requestId, capability, details: started });
    this.#record(task, { kind: 'call_finished', requestId, capability, details: { status, code, durationMs: 0 } }, () => {
      task.counts[status] += 1;
    });
  }

  /** Refuses a new mutating call while a mutating call of the session has an unknown outcome. */
  #assertMayMutate(task: Task): void {
    const [first] = this.#session(task.sessionId).unknownOutcomes.values();
    if (first) {
      throw new CapstanError('MUTATION_BLOCKED', `the outcome of ${first.capability} (${first.requestId}) is unknown; acknowledge it before running another mutating call`, {
        blockedBy: first.requestId,
      });
    }
  }

  // ---- reading ----------------------------------------------------------------------------

  /** A task in memory, or one read back from the store (ended tasks leave memory beyond a limit). */
  get(taskId: string): Task {
    return this.#memory.task(taskId);
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
      sessions: [...sessionIds].map((id) => this.#session(id).view()),
      tasks,
      finishedTotal: page.total,
      finishedBefore: page.before,
      asOf: this.ledger.lastSeq,
    };
  }

  onChange(listener: (task: TaskView) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- internals --------------------------------------------------------------------------

  #session(id: string): Session {
    return this.#memory.session(id);
  }

  /** Ends a task the last process left unfinished (see `recover`); the only move outside the state machine. */
  #closeAfterRestart(task: Task, session: Session): void {
    for (const started of unendedCalls(this.ledger, task.id)) {
      const requestId = started.requestId!;
      const capability = started.capability ?? 'unknown';
      this.#record(task, { kind: 'call_finished', requestId, capability, details: { status: 'outcome_unknown', code: 'OUTCOME_UNKNOWN', reason: RESTARTED } }, () => {
        task.counts.outcome_unknown += 1;
        if (started.details.mutating === true) this.#memory.setUnknownOutcome(session, { requestId, taskId: task.id, capability, at: new Date().toISOString() });
      });
    }
    this.#record(task, { kind: 'task_transition', details: { from: task.state, to: 'failed', reason: RESTARTED } }, (seq) => task.moved(seq, 'failed'));
    this.#memory.remember(task);
  }

  #runningOrActive(sessionId: string, taskId: string | undefined): RunningTask {
    const task = taskId ? this.get(taskId) : this.#session(sessionId).active;
    if (!task) throw notActive(undefined, sessionId);
    return task.running();
  }

  /**
   * Writes the entry, then applies the change it records: a write that fails changes nothing.
   * The entry's seq becomes the task's and the session's version.
   */
  #record(task: Task, entry: Omit<LedgerAppend, 'taskId' | 'sessionId'>, change?: (seq: number) => void): void {
    const { seq } = this.ledger.append({ ...entry, taskId: task.id, sessionId: task.sessionId });
    change?.(seq);
    task.touched(seq);
    this.#session(task.sessionId).version = seq;
    const record = task.record();
    this.store.saveTask(record);
    for (const listener of this.#listeners) listener(record.view);
  }

  /**
   * Adds a queued task to the session. A follow-up goes last and succeeds the task submitted
   * before it; a started or superseding task goes ahead of the waiting ones and succeeds the
   * last task that ran (the active one, if any): a follow-up cancelled or discarded before it
   * ran has nothing to hand over.
   */
  #submit(session: Session, title: string, input: string | undefined, options: { requiresSuccess: boolean; ahead: boolean }): Task {
    const waiting = session.waiting;
    const predecessor = options.ahead ? session.lastRan : session.tasks.at(-1);
    const task = new Task(session.id, title, options.requiresSuccess, predecessor?.id ?? null, session.conversation.length);
    const at = new Date().toISOString();
    this.#record(task, { kind: 'task_transition', details: { from: null, to: task.state, title, requiresSuccess: task.requiresSuccess, reason: 'submitted' } }, (seq) => {
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
      this.#transition(next, 'blocked', `its predecessor ended ${predecessor.state}`);
      return;
    }
    this.#run(next, predecessor);
  }

  #run(task: Task, predecessor?: Task): void {
    const run = { snapshot: this.catalog.snapshot(), grants: new Grants(this.config.grants), context: new CapabilityContext(this.config.budget) };
    const handoff = predecessor && isTerminal(predecessor.state) ? handoffTo(task, predecessor, run, this.#session(task.sessionId).conversation) : null;
    this.#transition(task, 'running', predecessor ? `after ${predecessor.id}` : 'started', {}, (seq) => task.moved(seq, 'running', { run, handoff }));
  }

  async #cancel(task: Task, terminal: 'cancelled' | 'superseded', reason: string): Promise<void> {
    const calls = [...task.calls.values()];
    task.assertCanMove('cancelling');
    this.#record(task, { kind: 'cancellation', details: { reason, callsInFlight: calls.length } });
    this.#transition(task, 'cancelling', reason);
    for (const { call } of calls) call.abort('cancelled');
    this.#transition(task, 'quiescing', 'waiting for running calls to end');
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
    await Promise.all([stopped, ...[...task.calls.values()].map(({ recorded }) => recorded)]);
    await this.ledger.durable();
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
    this.#transition(task, state, reason);
    this.#advance(this.#session(task.sessionId));
  }

  #transition(task: Task, to: TaskState, reason: string, extra: Record<string, unknown> = {}, change?: (seq: number) => void): void {
    const from = task.state;
    task.assertCanMove(to);
    this.#record(task, { kind: 'task_transition', details: { from, to, reason, ...extra } }, (seq) => {
      change?.(seq);
      if (task.state !== to) task.moved(seq, to);
    });
    if (isTerminal(to)) this.#memory.remember(task);
  }
}
