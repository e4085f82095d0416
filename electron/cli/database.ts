/**
 * The database of a data dir for the commands that read it or change what is in it (`capstan
 * ledger`, `capstan token list|revoke`): one that is not there is refused, and nothing is created,
 * so a mistyped `--data-dir` is an error naming the path, not a new, empty database that reads as
 * "ledger ok: 0 entries".
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../server';
import { DATABASE_FILE, openDatabase, type Database } from '../store/database';

export function openExistingDatabase(dataDir: string): Database {
  const path = join(dataDir, DATABASE_FILE);
  if (!existsSync(path)) {
    const where = existsSync(dataDir) ? `${dataDir} holds no Capstan database (${DATABASE_FILE})` : `${dataDir} does not exist`;
    throw new UsageError(`${where}; is --data-dir (or CAPSTAN_DATA_DIR) right? Nothing was created`);
  }
  return openDatabase(dataDir);
}
