/**
 * The single SQLite file under the data dir, through node:sqlite (no native module to rebuild
 * for Electron). Opened in WAL mode and brought to the latest schema by versioned migrations.
 *
 * Durability: `synchronous = FULL` makes every COMMIT fsync the WAL before it returns, so a
 * committed transaction survives an OS crash or a power loss, not only a killed process (with
 * NORMAL, WAL mode syncs only at checkpoints: a power loss can take the last commits with it).
 * `fullfsync` asks macOS for F_FULLFSYNC, without which its fsync stops at the drive's cache;
 * elsewhere it does nothing. The cost is one flush per commit, which the group commit
 * (groupCommit.ts) shares among the writes made until an answer waits for them; once it takes a
 * connection over it does that flush itself, off the event loop, and sets NORMAL so that SQLite
 * does not flush again inside COMMIT: the same guarantee, without blocking every request meanwhile.
 * README, "Durability".
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { migrations } from './migrations';

export type Database = DatabaseSync;

export const DATABASE_FILE = 'capstan.sqlite';

export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, DATABASE_FILE);
  ownerOnly(path);
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA fullfsync = ON; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
  // SQLite gives the -wal and -shm files it creates the database file's mode; these are left from before.
  for (const companion of [`${path}-wal`, `${path}-shm`]) if (existsSync(companion)) chmodSync(companion, 0o600);
  migrate(db);
  return db;
}

/**
 * Creates `path` if it is missing and makes it readable and writable by its owner only, whatever
 * the umask (SQLite would create the database 0644 less the umask: 0666 under umask 000).
 */
export function ownerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}

/**
 * Runs `write` in a transaction committed before it returns, or rolled back if it throws.
 * While the ledger's batch may be open, write through GroupCommit.writeNow() (groupCommit.ts)
 * instead, which commits that batch first.
 */
export function transaction<T>(db: Database, write: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = write();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    // SQLite may have rolled it back already (a full disk, an I/O error); the first error is the one to tell.
    if (inTransaction(db)) db.exec('ROLLBACK');
    throw error;
  }
}

/** Whether a transaction is open on the connection (`isTransaction` from Node 22.16 on; before it, a BEGIN tells). */
export function inTransaction(db: Database): boolean {
  if (typeof (db as { isTransaction?: boolean }).isTransaction === 'boolean') return db.isTransaction;
  try {
    db.exec('BEGIN');
  } catch {
    return true;
  }
  db.exec('ROLLBACK');
  return false;
}

/** Applies each migration newer than the file's `user_version`, each in its own transaction. */
export function migrate(db: Database): number {
  const { user_version: current } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  for (const [index, sql] of migrations.entries()) {
    const version = index + 1;
    if (version <= current) continue;
    try {
      transaction(db, () => {
        db.exec(sql);
        db.exec(`PRAGMA user_version = ${version}`);
      });
    } catch (error) {
      throw new Error(`migration ${version} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return migrations.length;
}
