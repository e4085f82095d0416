/**
 * Group commit: writes share one transaction, committed when the turn of the event loop in which
 * someone asks for them to be durable ends. Under load that is one WAL write for many writes. The
 * ledger appends this way; whoever answers a client first awaits `durable()`.
 *
 * A batch no one waits for yet (the start of a call, whose answer comes later) stays open for up
 * to UNAWAITED_COMMIT_MS, so that the next answer's commit takes it along: under eight agents
 * calling over /mcp that is a sixth fewer commits and a fifth fewer bytes written per call (21
 * against 26 KB), since a call's start and end then mostly share the pages of one commit. Whoever
 * needs a write on disk soon without waiting for it (a mutating call's start) says `commitSoon()`.
 *
 * A connection has one transaction at a time, so while a batch is open any other statement on
 * the connection would silently become part of it: committed late, under the batch's promise,
 * or lost with it if the process stops first. The rule is therefore explicit: a write joins the
 * batch through `write()` (or `writeLast()`, for a row whose last state in the batch is all that
 * needs writing), and every other write goes through `writeNow()`, which commits the open batch
 * first and then runs in a transaction of its own, durable before it returns.
 *
 * The flush off the event loop. With `synchronous = FULL` SQLite fsyncs the WAL inside COMMIT,
 * and on this kind of disk that blocks the one thread that serves every request for 1–7 ms per
 * commit (a third of the gateway's time under load, by `node --cpu-prof`), while calls that
 * could be prepared for the next batch wait. In WAL mode FULL differs from NORMAL only by that
 * one sync of the WAL after each commit (SQLite's documentation of `synchronous`: NORMAL already
 * syncs the WAL before each checkpoint, the database after it, and the WAL header when the WAL
 * is reused). So once a connection's writes go through here, it commits with NORMAL, and this
 * class does that sync itself on the libuv thread pool (`fs.fdatasync` of the -wal file; on
 * macOS libuv makes it F_FULLFSYNC, as `PRAGMA fullfsync` did), and calls a batch durable, runs
 * its listeners and resolves its `durable()` only after a sync that started after its COMMIT
 * has returned. Nothing a client hears of is any less durable than under FULL; meanwhile the
 * event loop keeps serving and the calls that arrive join the next batch, which stays open
 * until the running sync ends, then commits (if it is wanted by then) and is synced in turn. So
 * there is one sync in flight at most and one COMMIT per sync: as few commits as when the sync
 * blocked everything (a COMMIT per event-loop turn made small batches, each with WAL writes of
 * its own).
 *
 * What it measurably buys (README, Benchmarks): requests served during a flush, such as a
 * console's GET /tools while agents call, answered in a few ms instead of behind the flush. Not
 * more calls per second from a fixed set of clients that each wait for their answer: those all
 * wait for the same flush either way.
 *
 * Why not a worker thread with a connection of its own doing the INSERTs and the COMMIT: the
 * main thread would then read without its own pending writes (a task row, a ledger entry not
 * yet sent to the worker), and every write would be copied to it; the COMMIT itself, without
 * the sync, is cheap (~0.1 ms).
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import { inTransaction, transaction, type Database } from './database';

/**
 * The longest a batch no one waits for stays open: the delay after which another connection (the
 * CLI's reader) sees it and its entries reach the live views, while it rides along with answers.
 */
export const UNAWAITED_COMMIT_MS = 20;

/** One batch per connection, because a transaction belongs to its connection. */
const batches = new WeakMap<Database, GroupCommit>();

interface Batch {
  /** Batches are numbered as they begin: a failure is over once a batch begun after it is durable. */
  number: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
  /** Called once the batch is durable, in the order they were added, before the listeners. */
  callbacks: (() => void)[];
  /** Called if the batch is lost instead (see onRollback). */
  lostCallbacks: (() => void)[];
  /** Writes kept to run as it commits, the last one under each key (see writeLast). */
  last: Map<string, () => void>;
  /** Since when (performance.now()) someone waits for it, or asked for it soon: it commits when that turn ends, or when the running sync does. */
  wantedAt: number | undefined;
}

export class GroupCommit {
  /** The connection's group commit, created on first use. */
  static of(db: Database): GroupCommit {
    let batch = batches.get(db);
    if (!batch) batches.set(db, (batch = new GroupCommit(db)));
    return batch;
  }

  readonly #listeners = new Set<(waitedSeconds: number) => void>();
  readonly #rollbackListeners = new Set<(error: Error) => void>();
  /** The -wal file this class syncs, or undefined when it leaves syncing to SQLite (see the constructor). */
  readonly #wal: string | undefined;
  /** Begun, not committed. */
  #open: Batch | undefined;
  /** Committed, waiting for the next sync of the WAL. */
  #unsynced: Batch[] = [];
  /** Committed, in the sync running now. */
  #syncing: Batch[] = [];
  #commitTimer: NodeJS.Immediate | undefined;
  #unawaitedTimer: NodeJS.Timeout | undefined;
  #fd: number | undefined;
  #batches = 0;
  /** The last batch lost and why, until a batch begun after it is durable. */
  #failure: { error: Error; after: number } | undefined;

  private constructor(private readonly db: Database) {
    const { journal_mode: mode } = db.prepare('PRAGMA journal_mode').get() as { journal_mode: string };
    const { file } = db.prepare('PRAGMA database_list').get() as { file: string };
    const { synchronous } = db.prepare('PRAGMA synchronous').get() as { synchronous: number };
    // Only a connection opened to sync every commit (FULL or EXTRA, as openDatabase does) is
    // synced here; one set to NORMAL or OFF asked for less, and keeps it.
    if (mode === 'wal' && file && synchronous >= 2) {
      this.#wal = `${file}-wal`;
      // From here on every commit on this connection is synced by this class (see above).
      db.exec('PRAGMA synchronous = NORMAL');
    }
  }

  /** Runs `write` in the open batch, opening one (committed once wanted, or after UNAWAITED_COMMIT_MS). */
  write<T>(write: () => T): T {
    this.#begin();
    try {
      return write();
    } catch (error) {
      // A full disk or an I/O error makes SQLite roll the whole transaction back, not the statement alone.
      if (!inTransaction(this.db)) this.#lost(this.#open, error);
      throw error;
    }
  }

  /**
   * Keeps `write` for the open batch under `key`, in place of whatever was kept under that key,
   * and runs it as the batch commits (or as `settle()` asks): a row a batch changes several times
   * (a task's, at a call's start and at its end) is written once, as it stands at the commit.
   */
  writeLast(key: string, write: () => void): void {
    this.#begin();
    this.#open!.last.set(key, write);
  }

  /** Runs the open batch's kept writes now, so that a read on this connection sees them. */
  settle(): void {
    const batch = this.#open;
    if (!batch || batch.last.size === 0) return;
    try {
      runKept(batch);
    } catch (error) {
      if (!inTransaction(this.db)) this.#lost(batch, error);
      throw error;
    }
  }

  /** Runs `write` in a transaction of its own, after committing the open batch; both are on disk when it returns. */
  writeNow<T>(write: () => T): T {
    // Not after writes the database just lost: what this one records would stand without them.
    if (!this.#commitOpen()) throw this.#failure!.error;
    try {
      return transaction(this.db, write);
    } finally {
      this.#syncNow();
    }
  }

  /** Resolves once every batched write made so far is committed and flushed to disk. */
  durable(): Promise<void> {
    this.commitSoon();
    return (this.#open ?? this.#unsynced.at(-1) ?? this.#syncing.at(-1))?.promise ?? Promise.resolve();
  }

  /** Commits the open batch when this turn of the event loop ends (or the running sync does), without waiting for it. */
  commitSoon(): void {
    const batch = this.#open;
    if (!batch) return;
    batch.wantedAt ??= performance.now();
    // While a sync runs the batch stays open across turns and commits when it ends (#syncLater):
    // one COMMIT per sync, as many writes in it as arrived meanwhile.
    if (this.#syncing.length > 0 || this.#commitTimer) return;
    // No sync can start before this runs: only a commit queues one, and a commit clears this timer.
    this.#commitTimer = setImmediate(() => {
      this.#commitTimer = undefined;
      this.#commitOpen();
      this.#syncLater();
    });
  }

  /**
   * Calls `callback` once every write made so far is durable, before the listeners of the sync
   * that made it so; at once if nothing is waiting. It does not hurry the commit. `lost` is called
   * instead if the batch holding the latest write is lost.
   */
  afterDurable(callback: () => void, lost?: () => void): void {
    const batch = this.#open ?? this.#unsynced.at(-1) ?? this.#syncing.at(-1);
    if (!batch) return callback();
    batch.callbacks.push(callback);
    if (lost) batch.lostCallbacks.push(lost);
  }

  /** Why the last lost batch was lost, until a batch begun after it is durable: writes are failing. */
  get failure(): Error | undefined {
    return this.#failure?.error;
  }

  /** Commits the open batch now, if there is one, and flushes the WAL to disk; for shutdown, before the database closes. */
  flush(): void {
    this.#commitOpen();
    try {
      this.#syncNow();
    } finally {
      if (this.#fd !== undefined) closeSync(this.#fd);
      this.#fd = undefined;
    }
  }

  /**
   * Calls `listener` after each sync that made batches durable (after each commit, when SQLite
   * syncs itself), with how long the longest-waiting of them was waited for: from when it was
   * first wanted (not from its first write, which may wait for an answer on purpose) to now.
   */
  onCommit(listener: (waitedSeconds: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls `listener` when an open batch is lost: SQLite rolled it back (a full disk, an I/O error)
   * as a write or its COMMIT failed. Its writes are gone, its `durable()` rejected, its callbacks
   * never run; what was committed before it stays.
   */
  onRollback(listener: (error: Error) => void): () => void {
    this.#rollbackListeners.add(listener);
    return () => this.#rollbackListeners.delete(listener);
  }

  #begin(): void {
    if (this.#open) return;
    this.db.exec('BEGIN IMMEDIATE');
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    // A batch whose sync failed rejects; no one may be left with an unhandled rejection for it.
    promise.catch(() => {});
    this.#open = { number: ++this.#batches, promise, resolve, reject, callbacks: [], lostCallbacks: [], last: new Map(), wantedAt: undefined };
    this.#unawaitedTimer = setTimeout(() => this.commitSoon(), UNAWAITED_COMMIT_MS);
  }

  /** Commits the open batch; it waits for a sync from here. False when the batch was lost instead. */
  #commitOpen(): boolean {
    const batch = this.#open;
    if (!batch) return true;
    this.#detachOpen();
    // A database closed without flush() rolled the batch back; there is nothing to commit or sync.
    if (!this.db.isOpen) return true;
    try {
      runKept(batch);
      this.db.exec('COMMIT');
    } catch (error) {
      // Not thrown: this runs from timers too, and whoever waits for the batch hears of it.
      if (inTransaction(this.db)) this.db.exec('ROLLBACK');
      this.#lost(batch, error);
      return false;
    }
    if (this.#wal) this.#unsynced.push(batch);
    else this.#done([batch]);
    return true;
  }

  /** The open batch is no longer open (committed, or lost): its timers go with it. */
  #detachOpen(): void {
    this.#open = undefined;
    clearImmediate(this.#commitTimer);
    this.#commitTimer = undefined;
    clearTimeout(this.#unawaitedTimer);
  }

  #lost(batch: Batch | undefined, cause: unknown): void {
    if (!batch) return;
    if (this.#open === batch) this.#detachOpen();
    const error = new Error(`the database rolled back writes not yet committed: ${(cause as Error).message}`, { cause });
    this.#failure = { error, after: batch.number };
    batch.reject(error);
    for (const callback of batch.lostCallbacks) callback();
    for (const listener of this.#rollbackListeners) listener(error);
  }

  /** Starts a sync on the thread pool for what is committed, unless one is running (its end starts the next). */
  #syncLater(): void {
    const wal = this.#wal;
    if (!wal || this.#syncing.length > 0 || this.#unsynced.length === 0) return;
    const syncing = (this.#syncing = this.#unsynced);
    this.#unsynced = [];
    const finish = (error: NodeJS.ErrnoException | null) => {
      // flush() may have synced these meanwhile, on the event loop.
      if (this.#syncing !== syncing) return;
      this.#syncing = [];
      if (error) for (const batch of syncing) batch.reject(new Error(`the database's write-ahead log could not be flushed: ${error.message}`, { cause: error }));
      else this.#done(syncing);
      // What was written while the flush ran and is wanted commits now, in one batch, and is flushed next.
      if (this.#open?.wantedAt !== undefined) this.#commitOpen();
      this.#syncLater();
    };
    let fd: number;
    try {
      fd = this.#walFd();
    } catch (error) {
      return finish(error as NodeJS.ErrnoException);
    }
    fdatasync(fd, finish);
  }

  /**
   * The -wal file, open for as long as the connection writes: one hop to the thread pool per sync
   * rather than three (open, sync, close), each of which waits for the event loop under load.
   * Opened for writing, as Windows flushes only a handle that may write; closed by flush(), which
   * comes before the database closes (a later write opens it again).
   */
  #walFd(): number {
    this.#fd ??= openSync(this.#wal!, 'r+');
    return this.#fd;
  }

  /** Syncs every commit now, on the event loop: for writeNow() and shutdown. */
  #syncNow(): void {
    if (!this.#wal) return;
    const waiting = [...this.#syncing, ...this.#unsynced];
    this.#syncing = [];
    this.#unsynced = [];
    try {
      if (this.#fd !== undefined || existsSync(this.#wal)) fdatasyncSync(this.#walFd());
    } catch (error) {
      for (const batch of waiting) batch.reject(new Error(`the database's write-ahead log could not be flushed: ${(error as Error).message}`, { cause: error }));
      throw error;
    }
    this.#done(waiting);
  }

  #done(durable: Batch[]): void {
    if (durable.length === 0) return;
    if (this.#failure && durable.some((batch) => batch.number > this.#failure!.after)) this.#failure = undefined;
    const now = performance.now();
    // A batch committed without being wanted (writeNow, flush) was waited for from its commit.
    const waitedSeconds = Math.max(0, ...durable.map((batch) => now - (batch.wantedAt ?? now))) / 1000;
    for (const batch of durable) for (const callback of batch.callbacks) callback();
    for (const listener of this.#listeners) listener(waitedSeconds);
    for (const batch of durable) batch.resolve();
  }
}

/** Runs a batch's kept writes once each, in the order their keys were first kept. */
function runKept(batch: Batch): void {
  for (const [key, write] of batch.last) {
    batch.last.delete(key);
    write();
  }
}
