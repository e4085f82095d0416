/**
 * The runtime's one way to change a task: write its ledger entry first, then apply the change in
 * memory and save the task (`record`), so a write that fails changes nothing. The task lifecycle
 * (runtime.ts), the call path (callPath.ts) and the restart recovery (recovery.ts) all change
 * tasks through it, and whoever listens (the event bus) hears every change once.
 */
import type { TaskState, TaskView } from '../../shared/tasks';
import type { TaskStore } from '../store/taskStore';
import type { LedgerEntry } from '../../shared/ledger';
import { ledgerUnavailable, type Ledger, type LedgerAppend } from './ledger';
import type { RuntimeMemory } from './memory';
import { isTerminal, type Session, type Task } from './task';

export class TaskJournal {
  readonly #listeners = new Set<(task: TaskView) => void>();

  constructor(
    readonly ledger: Ledger,
    readonly store: TaskStore,
    readonly memory: RuntimeMemory,
  ) {}

  session(id: string): Session {
    return this.memory.session(id);
  }

  /** A task in memory, or one read back from the store (ended tasks leave memory beyond a limit). */
  task(taskId: string): Task {
    return this.memory.task(taskId);
  }

  onChange(listener: (task: TaskView) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Writes the entry, then applies the change it records: a write that fails changes nothing.
   * The entry's seq becomes the task's and the session's version.
   */
  record(task: Task, entry: Omit<LedgerAppend, 'taskId' | 'sessionId'>, change?: (seq: number) => void): LedgerEntry {
    const appended = this.ledger.append({ ...entry, taskId: task.id, sessionId: task.sessionId });
    const { seq } = appended;
    change?.(seq);
    task.touched(seq);
    this.session(task.sessionId).version = seq;
    const record = task.record();
    try {
      this.store.saveTask(record);
    } catch (error) {
      // In the ledger's batch: a full disk fails it as it fails the ledger's own writes.
      throw ledgerUnavailable(error);
    }
    for (const listener of this.#listeners) listener(record.view);
    return appended;
  }

  /** Moves the task through its state machine (task.ts), recorded; an ended task may leave memory. */
  transition(task: Task, to: TaskState, reason: string, extra: Record<string, unknown> = {}, change?: (seq: number) => void): void {
    const from = task.state;
    task.assertCanMove(to);
    this.record(task, { kind: 'task_transition', details: { from, to, reason, ...extra } }, (seq) => {
      change?.(seq);
      if (task.state !== to) task.moved(seq, to);
    });
    if (isTerminal(to)) this.memory.remember(task);
  }

  /** Resolves when the task reaches a terminal state. */
  ended(task: Task): Promise<void> {
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
}
