/**
 * One host per data dir. The ledger numbers and chains its entries from the head it holds in
 * memory, and the task runtime owns the tasks it started, so a second host on the same folder
 * (the desktop app and `capstan serve` both default to the per-user app-data folder) would refuse
 * the operator's calls as another's and contend for the ledger's sequence. The second one is
 * refused at its start with DATA_DIR_IN_USE, naming the first.
 *
 * The lock is SQLite's exclusive lock on `<data dir>/capstan.lock`, taken by a connection kept
 * open for the host's life: the OS drops it when the process ends, however it ends, so a crash
 * leaves nothing to clear, and no process id is guessed at as a pid file would need. SQLite gives
 * the same answer to a second connection within one process, and does it on every platform.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { readGatewayFile } from '../gatewayFile';
import { ownerOnly } from './database';

const DATA_DIR_LOCK = 'capstan.lock';

export class DataDirInUseError extends Error {
  readonly code = 'DATA_DIR_IN_USE';
}

/** SQLite's SQLITE_BUSY: the lock is held elsewhere. */
const BUSY = 5;

/**
 * The lock files this process holds. A second attempt here is refused before it touches the file:
 * on POSIX, closing any descriptor of a file drops every lock the process holds on it, so even
 * opening it to check its mode would hand the data dir to another process.
 */
const held = new Set<string>();

/**
 * Takes the data dir for this process, or throws DataDirInUseError; `doing` says what would have
 * used it (`run a gateway`, `reseal the ledger`). The returned function gives it back.
 */
export function lockDataDir(dataDir: string, doing: string): () => void {
  // The folder's real path: two spellings of one folder (a link, `..`) are one lock.
  const path = join(realpathSync(dataDir), DATA_DIR_LOCK);
  const inUse = () => new DataDirInUseError(`cannot ${doing}: ${dataDir} is in use by ${holder(dataDir)}; stop it first, or give another --data-dir (or CAPSTAN_DATA_DIR)`);
  if (held.has(path)) throw inUse();
  ownerOnly(path);
  const lock = new DatabaseSync(path, { timeout: 0 });
  try {
    // Held until the connection closes: exclusive locking mode keeps the lock past the transaction.
    // The journal in memory: on disk it would be a second file beside the lock, for a transaction that writes nothing.
    lock.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode !== BUSY) throw error;
    throw inUse();
  }
  held.add(path);
  return () => {
    if (!lock.isOpen) return;
    lock.close();
    held.delete(path);
  };
}

/** Whoever holds the folder, as far as its gateway.json tells (the desktop app without a gateway writes none). */
function holder(dataDir: string): string {
  const gateway = readGatewayFile(dataDir);
  return gateway ? `another Capstan (process ${gateway.pid}, gateway ${gateway.url})` : 'another Capstan (the desktop app or `capstan serve`)';
}
