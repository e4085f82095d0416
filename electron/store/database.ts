/**
 * The single SQLite file under the data dir, through node:sqlite (no native module to rebuild
 * for Electron). Opened in WAL mode and brought to the latest schema by versioned migrations.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { migrations } from './migrations';

export type Database = DatabaseSync;

export const DATABASE_FILE = 'capstan.sqlite';

export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
  migrate(db);
  return db;
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
    db.exec('ROLLBACK');
    throw error;
  }
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
