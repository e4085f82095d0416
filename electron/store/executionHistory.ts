/**
 * Recent executions (shared/executions.ts): the operator's own tool calls with their arguments
 * and results, so a reloaded console finds them again. The ledger keeps only keyed digests, so
 * this is the one copy of a result: bounded in memory (a count, an age and a byte budget), and
 * kept across restarts in its own file, `executions.sqlite`, only when the operator opts in. It
 * is never written to the ledger's database and nothing of a run's values goes to the log.
 *
 * Whose calls: the operator's (the console over IPC or HTTP, `capstan call`, curl or an MCP client
 * with the operator's token). Agents' calls are theirs (their ledger entries and the Approvals queue),
 * and Harn scripts have their run panel; neither passes through here.
 *
 * About 370 lines: the memory bounds, the opt-in file and its batched writes change the same
 * entries, and splitting them would expose the entries' bookkeeping between modules.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ToolCallResponse } from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import {
  DEFAULT_HISTORY_SETTINGS,
  ExecutionRecord,
  HistorySettings,
  type ExecutionsView,
} from '../../shared/executions';
import { OPERATOR, type Principal } from '../../shared/principal';
import type { Logger } from '../logger';
import { ownerOnly, type Database } from './database';
import { GroupCommit } from './groupCommit';

export const HISTORY_FILE = 'executions.sqlite';
/** A run whose arguments and result take more JSON than this keeps neither, only their size. */
export const MAX_RUN_BYTES = 1024 * 1024;
/** All runs together, whatever the count allows: the oldest go first. */
export const MAX_HISTORY_BYTES = 32 * 1024 * 1024;

const SETTINGS_KEY = 'executions';
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the history needs to know of a call, as the callTool operation received it. */
export interface TrackedCall {
  tool: string;
  arguments: Record<string, unknown>;
  confirmation?: string | undefined;
  sessionId?: string | undefined;
  taskId?: string | undefined;
}

interface Entry {
  record: ExecutionRecord;
  bytes: number;
  /** The challenge the gateway answered this run with, while it waits for one. */
  challengeId?: string | undefined;
}

export interface ExecutionHistoryOptions {
  dataDir: string;
  /** The gateway's database, where the history's settings are kept beside the console's. */
  db: Database;
  /** Told after every change (the host turns it into an `executions` event). */
  onChange?: ((change: { revision: number; cleared: boolean }) => void) | undefined;
  log: Logger;
  now?: () => number;
}

export class ExecutionHistory {
  readonly epoch = randomUUID();
  /** Oldest first: the order runs started in. */
  readonly #entries = new Map<string, Entry>();
  readonly #byChallenge = new Map<string, string>();
  #settings: HistorySettings;
  #revision = 0;
  #bytes = 0;
  #file: DatabaseSync | undefined;
  /** Rows to write (a record) or delete (null), by id: written together once the event-loop turn ends. */
  readonly #pending = new Map<string, ExecutionRecord | null>();
  #flushing: NodeJS.Immediate | undefined;
  readonly #path: string;
  readonly #now: () => number;
  #cutoff: { at: number; days: number; oldest: string } | undefined;

  constructor(private readonly options: ExecutionHistoryOptions) {
    this.#path = join(options.dataDir, HISTORY_FILE);
    this.#now = options.now ?? Date.now;
    this.#settings = readHistorySettings(options.db);
    if (this.#settings.persist) this.#open(true);
    this.#trim();
  }

  get settings(): HistorySettings {
    return this.#settings;
  }

  /**
   * Runs `call` and records it when the operator made it. A call answered with a confirmation
   * challenge waits as `awaiting_confirmation`; the call that answers that challenge continues
   * the same run, so a confirmed call shows as one run, confirmed, never as a refusal.
   */
  async track(
    call: TrackedCall,
    context: { requestId: string; principal: Principal },
    /** Runs the call; it calls `confirmed` once the call is confirmed (a dialog, a redeemed challenge). */
    run: (confirmed: () => void) => Promise<ToolCallResponse>,
    /** The capability `call.tool` names, asked only for the operator's calls; it may throw (an unknown tool). */
    capabilityOf: () => string,
  ): Promise<ToolCallResponse> {
    if (context.principal !== OPERATOR) return run(() => undefined);
    let capability: string | undefined;
    try {
      capability = capabilityOf();
    } catch {
      capability = undefined;
    }
    const entry = this.#begin(call, context.requestId, capability);
    const began = performance.now();
    let confirmed = call.confirmation !== undefined;
    try {
      const response = await run(() => (confirmed = true));
      this.#settle(entry, { status: 'ok', confirmed, taskId: response.taskId, result: response.result, durationMs: response.durationMs, ...(response.traceId ? { traceId: response.traceId } : {}) });
      return response;
    } catch (thrown) {
      const error = thrown instanceof CapstanError ? thrown : new CapstanError('INTERNAL_ERROR', 'the gateway could not complete this request');
      const body = { code: error.code, message: error.message, ...error.details };
      // A call that ran: the duration its ledger entry holds; one refused before it ran: the time to refuse it.
      const durationMs = error.durationMs ?? Math.round((performance.now() - began) * 10) / 10;
      const challenge = error.code === 'CONFIRMATION_REQUIRED' ? (error.details.challenge as { id: string; expiresAt: string } | undefined) : undefined;
      if (challenge) {
        entry.challengeId = challenge.id;
        this.#byChallenge.set(challenge.id, entry.record.id);
        this.#settle(entry, { status: 'awaiting_confirmation', confirmed: false, taskId: error.taskId, confirmationExpiresAt: challenge.expiresAt, durationMs });
      } else {
        this.#settle(entry, { status: 'error', confirmed, taskId: error.taskId, error: body, durationMs });
      }
      throw thrown;
    }
  }

  /** Newest first; with `after`, only the runs changed since that revision. */
  list(after?: number): ExecutionsView {
    this.#trim();
    const executions = [...this.#entries.values()]
      .reverse()
      .map((entry) => entry.record)
      .filter((record) => after === undefined || record.revision > after);
    return { executions, revision: this.#revision, epoch: this.epoch, settings: this.#settings };
  }

  /** Forgets every run, in memory and on disk. */
  clear(): ExecutionsView {
    this.#entries.clear();
    this.#byChallenge.clear();
    this.#bytes = 0;
    this.#pending.clear();
    this.#write((file) => {
      file.exec('DELETE FROM executions');
      // secure_delete zeroes the rows' pages; the checkpoint empties the WAL that still held them.
      file.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    });
    this.#changed(true);
    return this.list();
  }

  /** Saves new settings and applies them at once: a lower limit trims, turning persistence off deletes the file. */
  configure(settings: HistorySettings): ExecutionsView {
    const clean = HistorySettings.parse(settings);
    writeHistorySettings(this.options.db, clean);
    const wasPersisting = this.#settings.persist;
    this.#settings = clean;
    if (clean.persist && !wasPersisting) this.#open(false);
    if (!clean.persist && wasPersisting) this.#deleteFile();
    this.#trim();
    this.#changed(false);
    return this.list();
  }

  close(): void {
    this.#flush();
    this.#file?.close();
    this.#file = undefined;
  }

  #begin(call: TrackedCall, requestId: string, capability: string | undefined): Entry {
    // The answer to a challenge this history handed out continues that run.
    const waiting = call.confirmation === undefined ? undefined : this.#entries.get(this.#byChallenge.get(call.confirmation) ?? '');
    if (waiting) {
      this.#byChallenge.delete(call.confirmation!);
      waiting.challengeId = undefined;
      const { confirmationExpiresAt: _expiry, error: _error, ...rest } = waiting.record;
      waiting.record = { ...rest, requestId, status: 'running', revision: this.#nextRevision() };
      this.#changed(false);
      return waiting;
    }
    const record: ExecutionRecord = {
      id: randomUUID(),
      requestId,
      tool: call.tool,
      ...(capability ? { capability } : {}),
      arguments: call.arguments,
      ...(call.sessionId ? { sessionId: call.sessionId } : {}),
      ...(call.taskId ? { taskId: call.taskId } : {}),
      status: 'running',
      confirmed: false,
      startedAt: new Date(this.#now()).toISOString(),
      revision: this.#nextRevision(),
    };
    const entry: Entry = { record, bytes: 0 };
    this.#measure(entry);
    this.#entries.set(record.id, entry);
    this.#trim();
    this.#changed(false);
    return entry;
  }

  #settle(entry: Entry, outcome: Partial<ExecutionRecord> & Pick<ExecutionRecord, 'status' | 'confirmed'>): void {
    // Trimmed away while it ran (a Clear, a lower limit): it stays forgotten.
    if (this.#entries.get(entry.record.id) !== entry) return;
    const defined = Object.fromEntries(Object.entries(outcome).filter(([, value]) => value !== undefined));
    entry.record = { ...entry.record, ...defined, finishedAt: new Date(this.#now()).toISOString(), revision: this.#nextRevision() };
    this.#measure(entry);
    this.#persist(entry.record.id, entry.record);
    this.#trim();
    this.#changed(false);
  }

  /** Counts a run's bytes; one over MAX_RUN_BYTES keeps its size instead of its values. */
  #measure(entry: Entry): void {
    this.#bytes -= entry.bytes;
    const { record } = entry;
    let bytes = JSON.stringify(record).length;
    if (bytes > MAX_RUN_BYTES) {
      // The error's code and message stay; a tool error's own content (its `result`) does not.
      const { result: _result, error, ...rest } = record;
      entry.record = { ...rest, arguments: {}, ...(error ? { error: { code: error.code, message: error.message } } : {}), omittedBytes: bytes };
      bytes = JSON.stringify(entry.record).length;
    }
    entry.bytes = bytes;
    this.#bytes += bytes;
  }

  /** Drops what the settings no longer allow: too old, too many, too large together. Running runs stay. */
  #trim(): void {
    const oldest = this.#oldestKept();
    // The usual case, on every call: nothing to drop, known without walking the runs.
    const first = this.#entries.values().next().value;
    if (this.#entries.size <= this.#settings.maxEntries && this.#bytes <= MAX_HISTORY_BYTES && (!first || first.record.startedAt >= oldest)) return;
    const dropped: string[] = [];
    let count = this.#entries.size;
    for (const [id, entry] of this.#entries) {
      const over = count > this.#settings.maxEntries || this.#bytes > MAX_HISTORY_BYTES || entry.record.startedAt < oldest;
      // Runs are kept in the order they started: once one may stay, every later one may too
      // (a full history drops one run per call, rather than walking all of them each time).
      if (!over) break;
      if (entry.record.status === 'running' && entry.record.startedAt >= oldest) continue;
      this.#entries.delete(id);
      if (entry.challengeId) this.#byChallenge.delete(entry.challengeId);
      this.#bytes -= entry.bytes;
      count -= 1;
      dropped.push(id);
    }
    for (const id of dropped) this.#persist(id, null);
  }

  /** The start time (ISO) before which a run is too old to keep; worked out again at most once a second, not on every call. */
  #oldestKept(): string {
    const now = this.#now();
    const cutoff = this.#cutoff;
    if (cutoff && cutoff.days === this.#settings.maxAgeDays && now >= cutoff.at && now - cutoff.at < 1000) return cutoff.oldest;
    const oldest = new Date(now - this.#settings.maxAgeDays * DAY_MS).toISOString();
    this.#cutoff = { at: now, days: this.#settings.maxAgeDays, oldest };
    return oldest;
  }

  /** Queues a row's write (or, with null, its deletion) for the end of this event-loop turn: one transaction for a burst of calls. */
  #persist(id: string, record: ExecutionRecord | null): void {
    if (!this.#file) return;
    this.#pending.set(id, record);
    this.#flushing ??= setImmediate(() => this.#flush());
  }

  #flush(): void {
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    if (this.#pending.size === 0) return;
    const rows = [...this.#pending];
    this.#pending.clear();
    this.#write((file) => {
      const upsert = file.prepare('INSERT INTO executions (id, started_at, record) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record');
      const remove = file.prepare('DELETE FROM executions WHERE id = ?');
      file.exec('BEGIN');
      try {
        for (const [id, record] of rows) {
          if (record) upsert.run(id, record.startedAt, JSON.stringify(record));
          else remove.run(id);
        }
        file.exec('COMMIT');
      } catch (error) {
        file.exec('ROLLBACK');
        throw error;
      }
    });
  }

  #nextRevision(): number {
    this.#revision += 1;
    return this.#revision;
  }

  #changed(cleared: boolean): void {
    if (cleared) this.#nextRevision();
    this.options.onChange?.({ revision: this.#revision, cleared });
  }

  /**
   * Opens the history file. At start it reads what an earlier process kept; when the operator
   * turns persistence on, it writes the runs finished so far instead.
   */
  #open(load: boolean): void {
    try {
      ownerOnly(this.#path);
      const file = new DatabaseSync(this.#path);
      // NORMAL, not the ledger's FULL: a convenience copy need not survive a power loss.
      file.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON; PRAGMA busy_timeout = 5000;');
      file.exec('CREATE TABLE IF NOT EXISTS executions (id TEXT PRIMARY KEY, started_at TEXT NOT NULL, record TEXT NOT NULL)');
      this.#file = file;
    } catch (error) {
      this.options.log.warn({ code: (error as { code?: unknown }).code }, 'could not open the execution history file; runs are kept in memory only');
      return;
    }
    if (load) {
      const rows = this.#file.prepare('SELECT record FROM executions ORDER BY started_at, rowid').all() as { record: string }[];
      for (const row of rows) {
        const parsed = ExecutionRecord.safeParse(parseJson(row.record));
        // A row edited by hand or from another version is skipped, not fatal.
        if (!parsed.success || parsed.data.status === 'running') continue;
        const entry: Entry = { record: { ...parsed.data, revision: this.#nextRevision() }, bytes: 0 };
        this.#measure(entry);
        this.#entries.set(entry.record.id, entry);
      }
    } else {
      const insert = this.#file.prepare('INSERT OR REPLACE INTO executions (id, started_at, record) VALUES (?, ?, ?)');
      this.#write(() => {
        for (const { record } of this.#entries.values()) if (record.status !== 'running') insert.run(record.id, record.startedAt, JSON.stringify(record));
      });
    }
  }

  #deleteFile(): void {
    this.#pending.clear();
    this.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${this.#path}${suffix}`, { force: true });
  }

  /** A failed write costs the copy on disk, never the call: logged by its code, with no values. */
  #write(work: (file: DatabaseSync) => void): void {
    const file = this.#file;
    if (!file) return;
    try {
      work(file);
    } catch (error) {
      this.options.log.warn({ code: (error as { code?: unknown }).code }, 'could not write the execution history file');
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The history's settings, kept in the gateway's settings table beside the console's (a bad row reads as the defaults). */
export function readHistorySettings(db: Database): HistorySettings {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(SETTINGS_KEY) as { value: string } | undefined;
  const parsed = HistorySettings.safeParse(row ? parseJson(row.value) : undefined);
  return parsed.success ? parsed.data : DEFAULT_HISTORY_SETTINGS;
}

function writeHistorySettings(db: Database, settings: HistorySettings): void {
  // Its own transaction, never the ledger's open batch (groupCommit.ts).
  GroupCommit.of(db).writeNow(() =>
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(SETTINGS_KEY, JSON.stringify(settings)),
  );
}
