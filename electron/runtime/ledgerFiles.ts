/**
 * The ledger's two files beside the database: the per-install evidence key (`ledger.key`) and the
 * keyed checkpoint of the chain's head (`ledger.head`). Apart from ledger.ts because they are
 * about files on disk, not the chain.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './hmacSha256';
import { chmodSync, closeSync, existsSync, fdatasyncSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Database } from '../store/database';

export const LEDGER_KEY_FILE = 'ledger.key';
export const LEDGER_HEAD_FILE = 'ledger.head';

/**
 * The per-install evidence key: 32 random bytes as hex, made on first run, readable by its owner
 * only. It is never replaced: a new key would silently orphan every digest and the checkpoint made
 * with the old one, and make every entry's MAC fail as forged. So a malformed file stops the start
 * and names itself, and a missing one is made only for a ledger that holds nothing made with it
 * (no entry's MAC, no ledger.head); otherwise the start stops and says how to get it back. `create: false` (the
 * commands that only read the ledger) makes none: an empty ledger without one gets a key of the
 * moment, which nothing it reads was made with.
 */
export function loadLedgerKey(dataDir: string, db: Database, { create = true }: { create?: boolean } = {}): Buffer {
  const path = join(dataDir, LEDGER_KEY_FILE);
  if (!existsSync(path)) {
    // Newest first: entries carry MACs from some seq on, so a ledger with any has one at its end.
    const holding = db.prepare('SELECT 1 FROM ledger WHERE mac IS NOT NULL ORDER BY seq DESC LIMIT 1').get() !== undefined || existsSync(join(dataDir, LEDGER_HEAD_FILE));
    if (holding) {
      throw new Error(
        `${path} is missing, and the ledger beside it holds entries made with it: restore it from a backup. ` +
          'A new key would make every entry fail verification as forged, so none was made; to begin a new ledger instead, move capstan.sqlite and ledger.head away with it.',
      );
    }
    if (!create) return randomBytes(32);
    createKey(path);
  }
  chmodSync(path, 0o600);
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) {
    const found = text === '' ? 'it is empty' : /[^0-9a-f]/i.test(text) ? 'it holds characters other than hexadecimal digits' : `it holds ${text.length} hexadecimal digits`;
    throw new Error(
      `${path} is not a valid ledger key: ${found}, where 64 hexadecimal digits (32 bytes) were expected. ` +
        'It was left as it is: restore it from a backup, or move it away to have a new key made (digests and ledger.head made with the old key will then no longer verify).',
    );
  }
  return Buffer.from(text, 'hex');
}

/** Written and flushed before anything is digested with it: a key lost to a power loss would orphan the ledger. */
function createKey(path: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, randomBytes(32).toString('hex'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDirectory(dirname(path));
}

/** Makes a new name in `dir` survive a power loss. Windows cannot open a directory, and NTFS journals names itself. */
function syncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The ledger's head as the checkpoint vouches for it. */
export interface Checkpoint {
  seq: number;
  hash: string;
  /**
   * The first seq whose entry must carry a MAC (ledgerChain.ts, entryMacs): entries before it were
   * written before entries carried one, and are verified by the chain alone. 1 on a ledger begun
   * with MACs. Absent only from a checkpoint written before it existed (a version 1 record),
   * which is read, never written.
   */
  macFrom?: number;
}

/** A fixed size, so that rewriting the record in place never leaves the tail of a longer one behind. */
const HEAD_RECORD_BYTES = 256;

/**
 * The keyed checkpoint of the ledger's head: `{ seq, hash, macFrom, mac }` in
 * `<data dir>/ledger.head`, rewritten after every group commit that added entries. `macFrom` is
 * under the MAC too, so that no one without the key can move the point from which entries must
 * carry a MAC past entries they wrote. A record from before it (`{ seq, hash, mac }`, MACed
 * under a key of its own) is still read, and replaced by the next seal.
 *
 * Why a file of its own rather than a row beside the entries: whoever deletes rows from the
 * table, or puts back an older copy of capstan.sqlite, changes that one file, and a checkpoint
 * inside it would go back with it; a separate file has to be found and rolled back too, and it
 * cannot be rewritten to match without the key. What it does not survive: someone who can read
 * ledger.key (they can forge any checkpoint) or who rolls both files back to an older pair; a
 * deleted ledger.head is reported as missing, never recreated silently.
 *
 * Why rewritten in place rather than written to a temporary file and renamed: a rename over an
 * existing file makes ext4 flush the data first (~4 ms here, as much as the commit itself),
 * while one write of one record, smaller than a disk sector, at offset 0 costs ~15 µs (up to
 * ~0.25 ms right after the commit's flush; `npm run bench`) and is as atomic on power loss as
 * SQLite's own page writes assume. It is not flushed: after an OS
 * crash it may be a few seconds behind the table (the newest entries unsealed), never ahead of
 * it, because it is written after the commit has been flushed. A torn or foreign record fails
 * its MAC and is reported, never trusted. The file is created, and replaced on reseal, through
 * a temporary file and a rename.
 */
export class LedgerHead {
  readonly #mac: (message: string) => string;
  /** The MAC of records written before `macFrom` existed, read only. */
  readonly #v1Mac: (message: string) => string;

  constructor(
    readonly path: string,
    ledgerKey: Buffer,
  ) {
    // A key of its own, derived from the ledger key: a MAC under the ledger key itself would be an
    // evidence digest, which any tool could produce for a result shaped like a checkpoint. One per
    // record version, so that a record of one version can never pass for the other.
    this.#mac = hmacSha256(createHmac('sha256', ledgerKey).update('capstan ledger.head v2').digest());
    this.#v1Mac = hmacSha256(createHmac('sha256', ledgerKey).update('capstan ledger.head v1').digest());
    if (existsSync(path)) chmodSync(path, 0o600);
  }

  read(): Checkpoint | 'missing' | 'tampered' {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'tampered';
    }
    try {
      const { seq, hash, macFrom, mac } = JSON.parse(text) as Record<string, unknown>;
      if (!Number.isSafeInteger(seq) || typeof hash !== 'string' || typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return 'tampered';
      if (macFrom === undefined) {
        // A version 1 record, from before entries carried a MAC.
        const checkpoint = { seq: seq as number, hash };
        return timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(this.#v1Mac(`${checkpoint.seq}:${checkpoint.hash}`), 'hex')) ? checkpoint : 'tampered';
      }
      if (!Number.isSafeInteger(macFrom) || (macFrom as number) < 1) return 'tampered';
      const checkpoint = { seq: seq as number, hash, macFrom: macFrom as number };
      return timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(this.#macOf(checkpoint), 'hex')) ? checkpoint : 'tampered';
    } catch {
      return 'tampered';
    }
  }

  /** After each group commit: the record rewritten in place (see above), or created if there is none. */
  write(checkpoint: Required<Checkpoint>): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.replace(checkpoint);
      throw error;
    }
    try {
      writeSync(fd, this.#record(checkpoint), 0, HEAD_RECORD_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  }

  /** The whole file replaced at once, flushed: a temporary file renamed over it. */
  replace(checkpoint: Required<Checkpoint>): void {
    const temp = `${this.path}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, this.#record(checkpoint));
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, 0o600);
    renameSync(temp, this.path);
    syncDirectory(dirname(this.path));
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }

  #macOf({ seq, hash, macFrom }: Required<Checkpoint>): string {
    return this.#mac(`${seq}:${hash}:${macFrom}`);
  }

  #record(checkpoint: Required<Checkpoint>): Buffer {
    const { seq, hash, macFrom } = checkpoint;
    const json = JSON.stringify({ seq, hash, macFrom, mac: this.#macOf(checkpoint) });
    return Buffer.from(`${json.padEnd(HEAD_RECORD_BYTES - 1)}\n`);
  }
}
