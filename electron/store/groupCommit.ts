/**
 * Group commit: writes made in one turn of the event loop share one transaction, committed when
 * the turn ends. Under load that is one WAL write for many writes. The ledger appends this way;
 * whoever answers a client first awaits `durable()`.
 *
 * A connection has one transaction at a time, so while a batch is open any other statement on
 * the connection would silently become part of it: committed late, under the batch's promise,
 * or lost with it if the process stops first. The rule is therefore explicit: a write joins the
 * batch through `write()`, and every other write goes through `writeNow()`, which commits the
 * open batch first and then runs in a transaction of its own, committed before it returns.
 */
import { transaction, type Database } from './database';

/** One batch per connection, because a transaction belongs to its connection. */
const batches = new WeakMap<Database, GroupCommit>();

export class GroupCommit {
  /** The connection's group commit, created on first use. */
  static of(db: Database): GroupCommit {
    let batch = batches.get(db);
    if (!batch) batches.set(db, (batch = new GroupCommit(db)));
    return batch;
  }

  readonly #listeners = new Set<() => void>();
  #committed: Promise<void> = Promise.resolve();
  #commit: (() => void) | undefined;

  private constructor(private readonly db: Database) {}

  /** Runs `write` in the open batch, opening one that commits when this turn of the event loop ends. */
  write<T>(write: () => T): T {
    this.#begin();
    return write();
  }

  /** Runs `write` in a transaction of its own, after committing the open batch; both are on disk when it returns. */
  writeNow<T>(write: () => T): T {
    this.flush();
    return transaction(this.db, write);
  }

  /** Resolves once every batched write made so far is committed. */
  durable(): Promise<void> {
    return this.#committed;
  }

  /** Commits the open batch now, if there is one; for shutdown, before the database closes. */
  flush(): void {
    this.#commit?.();
  }

  /** Calls `listener` after each batch commits. */
  onCommit(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #begin(): void {
    if (this.#commit) return;
    this.db.exec('BEGIN IMMEDIATE');
    let resolve!: () => void;
    this.#committed = new Promise((done) => (resolve = done));
    const commit = () => {
      if (this.#commit !== commit) return;
      this.#commit = undefined;
      // A database closed without flush() rolled the batch back; there is nothing to commit.
      if (!this.db.isOpen) return;
      this.db.exec('COMMIT');
      resolve();
      for (const listener of this.#listeners) listener();
    };
    this.#commit = commit;
    setImmediate(commit);
  }
}
