/**
 * The ledger: append-only and tamper-evident. Every entry carries the hash of the one before;
 * UPDATE and DELETE are refused by triggers in the database; evidence is stored only as
 * HMAC-SHA256 digests under a per-install key.
 *
 * Appends made in one turn of the event loop share one transaction (the store's GroupCommit):
 * under load that is one WAL write for many entries. Whoever answers a client first awaits
 * `durable()`, so an entry a client heard about survives the process being killed; listeners
 * hear of entries only once they are committed.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LedgerEntry, LedgerKind, LedgerQuery, LedgerVerification } from '../../shared/ledger';
import { canonicalJson } from '../catalog/digest';
import type { Database } from '../store/database';
import { GroupCommit } from '../store/groupCommit';

export const LEDGER_KEY_FILE = 'ledger.key';
const GENESIS = '0'.repeat(64);
const DEFAULT_PAGE = 200;

export interface LedgerAppend {
  kind: LedgerKind;
  taskId?: string | null;
  sessionId?: string | null;
  requestId?: string | null;
  capability?: string | null;
  details?: Record<string, unknown>;
}

interface Row {
  seq: number;
  at: string;
  kind: LedgerKind;
  task_id: string | null;
  session_id: string | null;
  request_id: string | null;
  capability: string | null;
  details: string;
  prev_hash: string;
  hash: string;
}

/** The per-install evidence key: created on first run, readable by its owner only. */
export function loadLedgerKey(dataDir: string): Buffer {
  const path = join(dataDir, LEDGER_KEY_FILE);
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
}

/** The hash that chains an entry to its predecessor. */
export function entryHash(entry: Omit<LedgerEntry, 'hash'>): string {
  return createHash('sha256').update(entry.prevHash).update(canonicalJson({ ...entry, prevHash: undefined })).digest('hex');
}

const toEntry = (row: Row): LedgerEntry => ({
  seq: row.seq,
  at: row.at,
  kind: row.kind,
  taskId: row.task_id,
  sessionId: row.session_id,
  requestId: row.request_id,
  capability: row.capability,
  details: JSON.parse(row.details) as Record<string, unknown>,
  prevHash: row.prev_hash,
  hash: row.hash,
});

export class Ledger {
  readonly #listeners = new Set<(entry: LedgerEntry) => void>();
  readonly #insert;
  readonly #batch: GroupCommit;
  #lastSeq: number;
  #lastHash: string;
  /** Entries appended in the open batch, announced once it commits. */
  #pending: LedgerEntry[] = [];

  constructor(
    private readonly db: Database,
    private readonly key: Buffer,
  ) {
    this.#insert = db.prepare(
      'INSERT INTO ledger (seq, at, kind, task_id, session_id, request_id, capability, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const last = db.prepare('SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    this.#lastSeq = last?.seq ?? 0;
    this.#lastHash = last?.hash ?? GENESIS;
    this.#batch = GroupCommit.of(db);
    this.#batch.onCommit(() => {
      const committed = this.#pending;
      this.#pending = [];
      for (const entry of committed) for (const listener of this.#listeners) listener(entry);
    });
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** A keyed digest of a value's canonical JSON: evidence without the data. */
  digest(value: unknown): string {
    return createHmac('sha256', this.key).update(canonicalJson(value ?? null)).digest('hex');
  }

  append(input: LedgerAppend): LedgerEntry {
    const unhashed: Omit<LedgerEntry, 'hash'> = {
      seq: this.#lastSeq + 1,
      at: new Date().toISOString(),
      kind: input.kind,
      taskId: input.taskId ?? null,
      sessionId: input.sessionId ?? null,
      requestId: input.requestId ?? null,
      capability: input.capability ?? null,
      details: input.details ?? {},
      prevHash: this.#lastHash,
    };
    const entry: LedgerEntry = { ...unhashed, hash: entryHash(unhashed) };
    this.#batch.write(() =>
      this.#insert.run(
        entry.seq,
        entry.at,
        entry.kind,
        entry.taskId,
        entry.sessionId,
        entry.requestId,
        entry.capability,
        canonicalJson(entry.details),
        entry.prevHash,
        entry.hash,
      ),
    );
    this.#lastSeq = entry.seq;
    this.#lastHash = entry.hash;
    this.#pending.push(entry);
    return entry;
  }

  /** Resolves once everything appended so far is committed to disk. */
  durable(): Promise<void> {
    return this.#batch.durable();
  }

  /** Commits now; for shutdown, before the database closes. */
  flush(): void {
    this.#batch.flush();
  }

  query(filter: LedgerQuery = {}): LedgerEntry[] {
    const where: string[] = ['seq > ?'];
    const params: (string | number)[] = [filter.after ?? 0];
    const add = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(value);
    };
    add('task_id', filter.taskId);
    add('request_id', filter.requestId);
    add('capability', filter.capability);
    add('kind', filter.kind);
    params.push(filter.limit ?? DEFAULT_PAGE);
    const rows = this.db.prepare(`SELECT * FROM ledger WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).all(...params) as unknown as Row[];
    return rows.map(toEntry);
  }

  /** The last `count` entries, oldest first. */
  tail(count: number): LedgerEntry[] {
    const rows = this.db.prepare('SELECT * FROM (SELECT * FROM ledger ORDER BY seq DESC LIMIT ?) ORDER BY seq').all(count) as unknown as Row[];
    return rows.map(toEntry);
  }

  /** Walks the whole chain; reports the first entry whose link or hash does not hold. */
  verify(): LedgerVerification {
    let previous = GENESIS;
    let expectedSeq = 1;
    let entries = 0;
    for (const row of this.db.prepare('SELECT * FROM ledger ORDER BY seq').iterate() as Iterable<Row>) {
      const entry = toEntry(row);
      const broken = (reason: string): LedgerVerification => ({ ok: false, entries, brokenAt: entry.seq, reason });
      if (entry.seq !== expectedSeq) return broken(`sequence jumps from ${expectedSeq - 1} to ${entry.seq}`);
      if (entry.prevHash !== previous) return broken('its previous-hash does not match the entry before it');
      const { hash, ...unhashed } = entry;
      if (entryHash(unhashed) !== hash) return broken('its content does not match its hash');
      previous = hash;
      expectedSeq += 1;
      entries += 1;
    }
    return { ok: true, entries, lastSeq: expectedSeq - 1 };
  }

  onAppend(listener: (entry: LedgerEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
