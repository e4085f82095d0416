/**
 * Where the task runtime keeps what must outlive the process: each task's view, each session's
 * conversation and its unknown outcomes. Writes join the ledger's group commit, so a row and the
 * ledger entry that records its change are committed together or not at all. Reads validate
 * every row, so a hand-edited file loses the bad row, never the start.
 */
import type { Grant } from '../../shared/capability';
import { Message, TaskView, UnknownOutcome, TERMINAL_STATES } from '../../shared/tasks';
import type { Database } from './database';
import { GroupCommit } from './groupCommit';

/** A task as stored: its view, plus what the runtime needs to rebuild it. */
export interface TaskRecord {
  view: TaskView;
  /** How much of the session's conversation existed when the task was submitted. */
  conversationAt: number;
  reductions: Grant[];
  /** The seq of the entry that submitted it: the session's order of tasks. */
  submittedSeq: number;
}

export interface StoredSession {
  conversation: Message[];
  unknownOutcomes: UnknownOutcome[];
  /** The highest version among its tasks. */
  version: number;
}

interface TaskRow {
  view: string;
  submitted_seq: number;
}

const TERMINAL = TERMINAL_STATES.map((state) => `'${state}'`).join(', ');

export class TaskStore {
  readonly #batch: GroupCommit;
  readonly #saveTask;
  readonly #addMessage;
  readonly #setUnknown;
  readonly #clearUnknown;

  constructor(private readonly db: Database) {
    this.#batch = GroupCommit.of(db);
    this.#saveTask = db.prepare(
      `INSERT INTO tasks (id, session_id, submitted_seq, state, version, view) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET state = excluded.state, version = excluded.version, view = excluded.view`,
    );
    this.#addMessage = db.prepare('INSERT INTO conversation (session_id, seq, role, text, task_id, at) VALUES (?, ?, ?, ?, ?, ?)');
    this.#setUnknown = db.prepare('INSERT OR REPLACE INTO unknown_outcomes (session_id, request_id, task_id, capability, at) VALUES (?, ?, ?, ?, ?)');
    this.#clearUnknown = db.prepare('DELETE FROM unknown_outcomes WHERE session_id = ? AND request_id = ?');
  }

  // ---- writes, in the ledger's open batch ----------------------------------------------------

  /** The row is written as the batch commits, once however often the batch changed the task (GroupCommit.writeLast). */
  saveTask({ view, conversationAt, reductions, submittedSeq }: TaskRecord): void {
    this.#batch.writeLast(`task ${view.id}`, () => {
      this.#saveTask.run(view.id, view.sessionId, submittedSeq, view.state, view.version, JSON.stringify({ view, conversationAt, reductions }));
    });
  }

  /** `seq` is the ledger entry that added the message, which orders the conversation. */
  addMessage(sessionId: string, seq: number, message: Message): void {
    this.#batch.write(() => this.#addMessage.run(sessionId, seq, message.role, message.text, message.taskId, message.at));
  }

  setUnknownOutcome(sessionId: string, outcome: UnknownOutcome): void {
    this.#batch.write(() => this.#setUnknown.run(sessionId, outcome.requestId, outcome.taskId, outcome.capability, outcome.at));
  }

  clearUnknownOutcome(sessionId: string, requestId: string): void {
    this.#batch.write(() => this.#clearUnknown.run(sessionId, requestId));
  }

  // ---- reads, each after the open batch's kept rows are written (settle), so that it sees them -----

  task(id: string): TaskRecord | undefined {
    this.#batch.settle();
    const row = this.db.prepare('SELECT view, submitted_seq FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Sessions with a task that had not ended when the process stopped. */
  sessionsWithUnfinishedTasks(): string[] {
    this.#batch.settle();
    const rows = this.db.prepare(`SELECT DISTINCT session_id FROM tasks WHERE state NOT IN (${TERMINAL})`).all() as { session_id: string }[];
    return rows.map((row) => row.session_id);
  }

  /** A session's tasks that have not ended, and its last task that ran (the next one's predecessor), in submission order. */
  sessionTasks(sessionId: string): TaskRecord[] {
    this.#batch.settle();
    const rows = this.db
      .prepare(
        `SELECT view, submitted_seq FROM tasks WHERE session_id = ?1 AND (state NOT IN (${TERMINAL})
           OR submitted_seq = (SELECT MAX(submitted_seq) FROM tasks WHERE session_id = ?1 AND json_extract(view, '$.view.startedAt') IS NOT NULL)) ORDER BY submitted_seq`,
      )
      .all(sessionId) as unknown as TaskRow[];
    return rows.flatMap((row) => toRecord(row) ?? []);
  }

  session(sessionId: string): StoredSession | undefined {
    this.#batch.settle();
    const version = this.db.prepare('SELECT MAX(version) AS version FROM tasks WHERE session_id = ?').get(sessionId) as { version: number | null };
    if (version.version === null) return undefined;
    const conversation = this.db
      .prepare('SELECT role, text, task_id AS taskId, at FROM conversation WHERE session_id = ? ORDER BY seq')
      .all(sessionId)
      .flatMap((row) => parsed(Message, row));
    const unknownOutcomes = this.db
      .prepare('SELECT request_id AS requestId, task_id AS taskId, capability, at FROM unknown_outcomes WHERE session_id = ? ORDER BY at')
      .all(sessionId)
      .flatMap((row) => parsed(UnknownOutcome, row));
    return { conversation, unknownOutcomes, version: version.version };
  }

  /** Finished tasks, newest change first, older than `before` (a version) when given. */
  finishedPage({ before, limit }: { before?: number | undefined; limit: number }): { tasks: TaskRecord[]; total: number; before: number | null } {
    this.#batch.settle();
    const rows = this.db
      .prepare(`SELECT view, submitted_seq FROM tasks WHERE state IN (${TERMINAL}) AND version < ? ORDER BY version DESC LIMIT ?`)
      .all(before ?? Number.MAX_SAFE_INTEGER, limit + 1) as unknown as TaskRow[];
    const { total } = this.db.prepare(`SELECT COUNT(*) AS total FROM tasks WHERE state IN (${TERMINAL})`).get() as { total: number };
    const tasks = rows.slice(0, limit).flatMap((row) => toRecord(row) ?? []);
    return { tasks, total, before: rows.length > limit ? tasks.at(-1)!.view.version : null };
  }
}

function toRecord(row: TaskRow): TaskRecord | undefined {
  try {
    const stored = JSON.parse(row.view) as { view: unknown; conversationAt: number; reductions: Grant[] };
    const view = TaskView.safeParse(stored.view);
    return view.success ? { view: view.data, conversationAt: stored.conversationAt, reductions: stored.reductions ?? [], submittedSeq: row.submitted_seq } : undefined;
  } catch {
    return undefined;
  }
}

function parsed<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }, row: unknown): T[] {
  const result = schema.safeParse({ ...(row as object) });
  return result.success ? [result.data] : [];
}
