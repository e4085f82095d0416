/**
 * The database of a data dir for the commands that read it or change what is in it (`capstan
 * ledger`, `capstan token list|revoke`): one that is not there is refused, and nothing is created,
 * so a mistyped `--data-dir` is an error naming the path, not a new, empty database that reads as
 * "ledger ok: 0 entries". The commands that only read open it read-only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../server';
import { DatabaseSync } from 'node:sqlite';
import { DATABASE_FILE, openDatabase, type Database } from '../store/database';
import { migrations } from '../store/migrations';

export function openExistingDatabase(dataDir: string, { readOnly = false }: { readOnly?: boolean } = {}): Database {
  const path = join(dataDir, DATABASE_FILE);
  if (!existsSync(path)) {
    const where = existsSync(dataDir) ? `${dataDir} holds no Capstan database (${DATABASE_FILE})` : `${dataDir} does not exist`;
    throw new UsageError(`${where}; is --data-dir (or CAPSTAN_DATA_DIR) right? Nothing was created`);
  }
  if (readOnly) {
    // A command that only reads leaves the file as it found it (a backup, a copy kept as evidence):
    // no mode changed, no migration, no write. Only a file older than this schema is brought up to it first.
    const db = new DatabaseSync(path, { readOnly: true });
    const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
    if (version >= migrations.length) return db;
    db.close();
  }
  return openDatabase(dataDir);
}
