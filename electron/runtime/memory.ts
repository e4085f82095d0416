/**
 * Which sessions and tasks the runtime holds in memory, and how the rest is read back from the
 * store. Every task that has not ended stays; ended tasks beyond a limit and idle sessions beyond
 * another leave memory (the store keeps them) and come back, whole, when something asks for them.
 * Messages and unknown outcomes are written to the store as they change memory.
 */
import { CapstanError } from '../../shared/errors';
import type { Message, TaskView, UnknownOutcome } from '../../shared/tasks';
import type { TaskStore } from '../store/taskStore';
import { isTerminal, Session, Task } from './task';

export interface MemoryLimits {
  /** Ended tasks kept in memory besides each session's last one. */
  finishedTasks: number;
  /** Sessions kept in memory; idle ones (no task that has not ended) leave first. */
  sessions: number;
}

export class RuntimeMemory {
  /** In least-recently-used order: the first idle ones leave when there are too many. */
  readonly #sessions = new Map<string, Session>();
  readonly #tasks = new Map<string, Task>();
  /** Ended tasks in memory, oldest first. */
  readonly #finished = new Set<string>();

  constructor(
    private readonly store: TaskStore,
    private readonly limits: MemoryLimits,
  ) {}

  /** The session, in memory or read back from the store; the most recently used stay in memory. */
  session(id: string): Session {
    let session = this.#sessions.get(id);
    if (session) {
      this.#sessions.delete(id);
    } else {
      session = this.#restoreSession(id);
    }
    this.#sessions.set(id, session);
    for (const [known, held] of this.#sessions) {
      if (this.#sessions.size <= this.limits.sessions) break;
      if (held.idle) this.#sessions.delete(known);
    }
    return session;
  }

  /** A task in memory, or one read back from the store. */
  task(id: string): Task {
    const known = this.#tasks.get(id);
    if (known) return known;
    const record = this.store.task(id);
    if (!record) throw new CapstanError('TASK_NOT_FOUND', `no task "${id}"`);
    const task = Task.restore(record);
    this.remember(task);
    return task;
  }

  /** Keeps a task in memory; ended ones beyond the limit leave, but never a session's own. */
  remember(task: Task): void {
    this.#tasks.set(task.id, task);
    if (!isTerminal(task.state)) return;
    this.#finished.delete(task.id);
    this.#finished.add(task.id);
    for (const id of this.#finished) {
      if (this.#finished.size <= this.limits.finishedTasks) return;
      this.#finished.delete(id);
      const old = this.#tasks.get(id);
      if (old && !this.#sessions.get(old.sessionId)?.tasks.includes(old)) this.#tasks.delete(id);
    }
  }

  /** The view of a task as memory holds it, if it does. */
  held(id: string): TaskView | undefined {
    return this.#tasks.get(id)?.view();
  }

  unfinished(): Task[] {
    return [...this.#tasks.values()].filter((task) => !isTerminal(task.state));
  }

  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** A message joins the conversation with the entry `seq` that recorded it. */
  say(session: Session, seq: number, message: Message): void {
    session.conversation.push(message);
    this.store.addMessage(session.id, seq, message);
  }

  setUnknownOutcome(session: Session, outcome: UnknownOutcome): void {
    session.unknownOutcomes.set(outcome.requestId, outcome);
    this.store.setUnknownOutcome(session.id, outcome);
  }

  clearUnknownOutcome(session: Session, requestId: string): void {
    session.unknownOutcomes.delete(requestId);
    this.store.clearUnknownOutcome(session.id, requestId);
  }

  #restoreSession(id: string): Session {
    const session = new Session(id);
    const stored = this.store.session(id);
    if (!stored) return session;
    session.conversation.push(...stored.conversation);
    for (const outcome of stored.unknownOutcomes) session.unknownOutcomes.set(outcome.requestId, outcome);
    session.version = stored.version;
    session.tasks = this.store.sessionTasks(id).map((record) => this.#tasks.get(record.view.id) ?? Task.restore(record));
    for (const task of session.tasks) this.remember(task);
    return session;
  }
}
