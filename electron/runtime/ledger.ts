/**
 * The ledger: append-only and tamper-evident. Every entry carries the hash of the one before;
 * UPDATE and DELETE are refused by triggers in the database; evidence is stored only as
 * HMAC-SHA256 digests under a per-install key.
 *
 * Appends share one transaction until someone waits for them (the store's GroupCommit): under
 * load that is one WAL write for many entries, flushed to disk off the event loop.
 * Whoever answers a client first awaits `durable()`, so an entry a client heard about survives
 * the process being killed and a power loss; listeners hear of entries only once they are
 * committed and flushed, and ledger.head is written only then.
 *
 * The triggers stop mistakes, not someone holding the file: they can be dropped. What catches
 * that is `verify()`: a gap in `seq` (a deleted entry), a `prevHash` that is not the hash before
 * it (a broken link), an entry whose content is not its hash (an edited one), an entry without
 * the MAC that only the key gives its hash (a forged one: the chain's hashes are not keyed, so
 * anyone who can read the table can append an entry that chains), and, since the hash chain
 * alone still holds when its last entries are cut off, a keyed checkpoint of the head in
 * `ledger.head` (a truncated tail, or a tail rewritten with fresh hashes).
 *
 * Entries written before entries carried a MAC have none (NULL); ledger.head records the first
 * seq that must carry one (`macFrom`), under its own MAC, and verify() says how many came before
 * it, verified by the chain alone.
 *
 * About 460 lines, kept whole: appending, the rewind after a batch the database rolled back, and
 * verification all read and move the same head (seq, hash, MAC key, seal); what does not touch
 * it is in ledgerChain.ts (hashes and MACs) and ledgerFiles.ts (the key and checkpoint files).
 */
import { dirname, join } from 'node:path';
import type { StatementSync } from 'node:sqlite';
import { asciiLower, type LedgerEntry, type LedgerKind, type LedgerProblem, type LedgerQuery, type LedgerVerification } from '../../shared/ledger';
import { CapstanError } from '../../shared/errors';
import type { Principal } from '../../shared/principal';
import { canonicalJson } from '../catalog/digest';
import type { Database } from '../store/database';
import { GroupCommit } from '../store/groupCommit';
import { type Broken, checkHead, entryHash, entryMacs, GENESIS, macFromOf } from './ledgerChain';
import { hmacSha256 } from './hmacSha256';
import { LEDGER_HEAD_FILE, LEDGER_KEY_FILE, LedgerHead, type Checkpoint } from './ledgerFiles';
import { currentPrincipal } from './principal';

export { LEDGER_HEAD_FILE, LEDGER_KEY_FILE, LedgerHead, loadLedgerKey, type Checkpoint } from './ledgerFiles';

const DEFAULT_PAGE = 200;

export interface LedgerAppend {
  kind: LedgerKind;
  taskId?: string | null;
  sessionId?: string | null;
  requestId?: string | null;
  capability?: string | null;
  details?: Record<string, unknown>;
  /** Who the entry is for; by default the principal of the operation running (principal.ts). */
  principal?: Principal;
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
  principal: string | null;
  mac: string | null;
}

const toEntry = (row: Row): LedgerEntry => ({
  seq: row.seq,
  at: row.at,
  kind: row.kind,
  taskId: row.task_id,
  sessionId: row.session_id,
  requestId: row.request_id,
  capability: row.capability,
  principal: row.principal,
  details: JSON.parse(row.details) as Record<string, unknown>,
  prevHash: row.prev_hash,
  hash: row.hash,
});

/** What walking the chain found: how far it holds, and the first entry where it does not. */
interface Walk {
  entries: number;
  lastSeq: number;
  lastHash: string;
  /** The hash of the entry at the seq asked for, if the walk reached it. */
  hashAt: string | undefined;
  /** The first seq that must carry a MAC, as given or as found (the first entry carrying one); at most lastSeq + 1. */
  macFrom: number;
  broken?: Broken;
}

interface WalkFrom {
  /** Where to start: after this seq, whose hash is `afterHash`; the whole chain by default. */
  after?: number;
  afterHash?: string;
  /** The seq the checkpoint sealed, whose hash the walk keeps. */
  sealedSeq?: number;
  /**
   * The first seq whose entry must carry a MAC. Unknown (no checkpoint vouches for one): the first
   * entry found carrying one, as MAC-less entries can only come before it.
   */
  macFrom?: number;
}

export class Ledger {
  readonly #listeners = new Set<(entry: LedgerEntry) => void>();
  readonly #flushListeners = new Set<(seconds: number) => void>();
  readonly #insert;
  readonly #batch: GroupCommit;
  readonly #head: LedgerHead;
  #lastSeq: number;
  #lastHash: string;
  /** Entries made durable by the sync that is ending, announced by its listener (see the constructor). */
  #durable: LedgerEntry[] = [];
  /**
   * Whether commits move ledger.head on. Not when it did not vouch for the table at open (missing,
   * failing its MAC, or sealing a different entry): writing over it would erase the evidence.
   * `reseal()` accepts the table as it is.
   */
  #sealing: boolean;
  /** Why this process stopped sealing, if writing ledger.head failed. */
  #sealFailure: string | undefined;
  /** What the checkpoint records as the first seq that must carry a MAC, while sealing. */
  #macFrom = 1;
  readonly #entryMac: (entryHash: string) => string;
  /** The evidence digest: HMAC-SHA256 under the ledger key. */
  readonly #digest: (canonical: string) => string;
  /**
   * Queries compiled once per shape (which filters, which match): compiling one took as long as
   * running it, on every call (a call's requestId check is a query). The shapes are few.
   */
  readonly #queries = new Map<string, StatementSync>();
  readonly #firstPrincipal: StatementSync;
  readonly #anyWithRequestId: StatementSync;
  readonly #holds: StatementSync;
  /** Where the chain starts for this process: the table's head, or the checkpoint's when the table lost its tail. */
  #floor: { seq: number; hash: string };
  /** Entries whose batch the database rolled back: whoever waits for one of them hears so (durable). */
  readonly #lost = new WeakSet<LedgerEntry>();

  constructor(
    private readonly db: Database,
    key: Buffer,
  ) {
    this.#entryMac = entryMacs(key);
    this.#digest = hmacSha256(key);
    this.#insert = db.prepare(
      'INSERT INTO ledger (seq, at, kind, task_id, session_id, request_id, capability, principal, details, prev_hash, hash, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#firstPrincipal = db.prepare('SELECT principal FROM ledger WHERE request_id = ? ORDER BY seq LIMIT 1');
    this.#anyWithRequestId = db.prepare('SELECT 1 FROM ledger WHERE request_id = ? LIMIT 1');
    // The literal kind is what lets SQLite read these through the partial index ledger_holds (migrations.ts).
    this.#holds = db.prepare("SELECT * FROM ledger WHERE kind = 'contract_held' AND capability IS ? ORDER BY seq");
    const last = db.prepare('SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    this.#lastSeq = last?.seq ?? 0;
    this.#lastHash = last?.hash ?? GENESIS;

    const { file } = db.prepare('PRAGMA database_list').get() as { file: string };
    if (!file) throw new Error('the ledger needs a database file: its checkpoint lives beside it');
    this.#head = new LedgerHead(join(dirname(file), LEDGER_HEAD_FILE), key);
    const checkpoint = this.#head.read();
    if (typeof checkpoint === 'object' && checkpoint.seq > this.#lastSeq) {
      // The table lost its tail (cut off, or an older copy put back). Number on after the sealed
      // head, so the loss stays in the chain as a gap that verify() names, instead of new entries
      // taking the lost ones' numbers and the checkpoint moving past it.
      this.#lastSeq = checkpoint.seq;
      this.#lastHash = checkpoint.hash;
      this.#macFrom = macFromOf(checkpoint);
      this.#sealing = true;
    } else if (checkHead(checkpoint, this.#lastSeq, (seq) => this.#hashAt(seq))) {
      this.#sealing = false;
    } else {
      // The checkpoint vouches for the table up to the head it sealed (or there is neither). What
      // comes after it, left unsealed by a crash or appended by someone else, must hold, MACs
      // included, before the next commit seals it: sealing a forged entry would vouch for it.
      const sealed: Checkpoint = typeof checkpoint === 'object' ? checkpoint : { seq: 0, hash: GENESIS, macFrom: 1 };
      this.#macFrom = macFromOf(sealed);
      this.#sealing = !this.#walk({ after: sealed.seq, afterHash: sealed.hash, macFrom: this.#macFrom }).broken;
    }

    this.#floor = { seq: this.#lastSeq, hash: this.#lastHash };
    this.#batch = GroupCommit.of(db);
    // A batch SQLite rolled back (a full disk) took its entries with it: the chain goes on from the
    // last committed one, so the next entry takes the first lost seq and no gap is left.
    this.#batch.onRollback(() => {
      const last = db.prepare('SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
      const from = last && last.seq >= this.#floor.seq ? last : this.#floor;
      this.#lastSeq = from.seq;
      this.#lastHash = from.hash;
    });
    // Once per sync of the WAL: the head sealed once, at the newest durable entry, then each entry announced.
    this.#batch.onCommit((waitedSeconds) => {
      const durable = this.#durable;
      this.#durable = [];
      if (durable.length === 0) return;
      this.#seal(durable.at(-1)!);
      for (const entry of durable) for (const listener of this.#listeners) listener(entry);
      for (const listener of this.#flushListeners) listener(waitedSeconds);
    });
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** A keyed digest of a value's canonical JSON: evidence without the data. */
  digest(value: unknown): string {
    return this.digestJson(canonicalJson(value ?? null));
  }

  /** `digest()` of a value whose canonical JSON is already made (a call's result: runtime/call.ts). */
  digestJson(canonical: string): string {
    return this.#digest(canonical);
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
      principal: input.principal ?? currentPrincipal(),
      details: input.details ?? {},
      prevHash: this.#lastHash,
    };
    const details = canonicalJson(unhashed.details);
    const entry: LedgerEntry = { ...unhashed, hash: entryHash(unhashed, details) };
    const mac = this.#entryMac(entry.hash);
    const write = () =>
      this.#insert.run(
        entry.seq,
        entry.at,
        entry.kind,
        entry.taskId,
        entry.sessionId,
        entry.requestId,
        entry.capability,
        entry.principal,
        details,
        entry.prevHash,
        entry.hash,
        mac,
      );
    try {
      this.#batch.write(write);
    } catch (error) {
      throw ledgerUnavailable(error);
    }
    this.#batch.afterDurable(
      () => this.#durable.push(entry),
      () => this.#lost.add(entry),
    );
    this.#lastSeq = entry.seq;
    this.#lastHash = entry.hash;
    return entry;
  }

  /**
   * Resolves once everything appended so far is committed to disk; rejects LEDGER_UNAVAILABLE if it
   * could not be, or if any of `mine` (the caller's own entries) was lost with a batch the database
   * rolled back, though later ones were written since.
   */
  async durable(...mine: (LedgerEntry | undefined)[]): Promise<void> {
    try {
      await this.#batch.durable();
    } catch (error) {
      throw ledgerUnavailable(error);
    }
    if (mine.some((entry) => entry !== undefined && this.#lost.has(entry))) throw ledgerUnavailable(this.#batch.failure ?? new Error('an entry was rolled back'));
  }

  /**
   * Why the ledger's writes are failing (a batch was rolled back), until a batch begun since is on
   * disk: a call's start is then made durable before its work runs (callPath.ts).
   */
  get unavailable(): string | undefined {
    return this.#batch.failure?.message;
  }

  /** Commits what is appended when this turn ends (or the running sync does), without waiting for it (GroupCommit.commitSoon). */
  commitSoon(): void {
    this.#batch.commitSoon();
  }

  /** Commits now; for shutdown, before the database closes. */
  flush(): void {
    this.#batch.flush();
  }

  query(filter: LedgerQuery = {}): LedgerEntry[] {
    const where: string[] = ['seq > ?'];
    const params: (string | number)[] = [filter.after ?? 0];
    const contains = filter.match === 'contains';
    const add = (column: string, value: string | undefined, anyPart = contains) => {
      if (value === undefined) return;
      // instr, not LIKE: the operator's `%` or `_` is a character to find, not a wildcard.
      // SQLite's lower() folds ASCII only, as asciiLower does for the console's own matching.
      where.push(anyPart ? `instr(lower(${column}), ?) > 0` : `${column} = ?`);
      params.push(anyPart ? asciiLower(value) : value);
    };
    add('task_id', filter.taskId);
    add('request_id', filter.requestId);
    add('capability', filter.capability);
    add('principal', filter.principal);
    add('kind', filter.kind, false);
    params.push(filter.limit ?? DEFAULT_PAGE);
    const sql = `SELECT * FROM ledger WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`;
    let query = this.#queries.get(sql);
    if (!query) this.#queries.set(sql, (query = this.db.prepare(sql)));
    return (query.all(...params) as unknown as Row[]).map(toEntry);
  }

  /** Every hold recorded for a capability (services/pins.ts; null: servers' own), oldest first, however long the ledger. */
  holdsOf(capability: string | null): LedgerEntry[] {
    return (this.#holds.all(capability) as unknown as Row[]).map(toEntry);
  }

  /**
   * Who a requestId's first entry was written for: `undefined` when the ledger has none, `null`
   * for an entry from before principals. A call's check that its requestId is its own asks this.
   */
  firstPrincipalOf(requestId: string): string | null | undefined {
    // SQLite plans a statement that reads an index in order from a bound value (ORDER BY, MIN) again
    // each time the value changes: re-prepared for every new requestId, a twentieth of a REST
    // call's CPU (perf). Most requestIds are new, and whether any entry has one is planned once.
    if (this.#anyWithRequestId.get(requestId) === undefined) return undefined;
    return (this.#firstPrincipal.get(requestId) as { principal: string | null } | undefined)?.principal;
  }

  /** The last `count` entries, oldest first. */
  tail(count: number): LedgerEntry[] {
    const rows = this.db.prepare('SELECT * FROM (SELECT * FROM ledger ORDER BY seq DESC LIMIT ?) ORDER BY seq').all(count) as unknown as Row[];
    return rows.map(toEntry);
  }

  /**
   * Walks the whole chain and checks its head against ledger.head; names the first thing that
   * does not hold: an edited, deleted, unlinked or forged entry, a truncated or rewritten tail,
   * or a missing or forged checkpoint.
   */
  verify(): LedgerVerification {
    // The checkpoint first: it is written after its commit, so the table read next is at least as
    // new, and a commit landing in between cannot look like a truncation.
    const checkpoint = this.#head.read();
    const walk = typeof checkpoint === 'object' ? this.#walk({ sealedSeq: checkpoint.seq, macFrom: macFromOf(checkpoint) }) : this.#walk({});
    const broken =
      walk.broken ??
      (this.#sealFailure
        ? { problem: 'checkpoint_missing' as const, brokenAt: walk.lastSeq, reason: `${LEDGER_HEAD_FILE} could not be written (${this.#sealFailure}): entries after it are not sealed` }
        : checkHead(checkpoint, walk.lastSeq, () => walk.hashAt));
    if (broken) return { ok: false, entries: walk.entries, ...broken };
    return {
      ok: true,
      entries: walk.entries,
      lastSeq: walk.lastSeq,
      sealedSeq: typeof checkpoint === 'object' ? checkpoint.seq : 0,
      chainOnlyThrough: walk.macFrom - 1,
    };
  }

  /**
   * Accepts the ledger as it now is and seals its head: after restoring a backup, or for a ledger
   * written before ledger.head existed. Refused, with the reason, unless the chain itself holds,
   * MACs included: an entry with a wrong MAC, or without one after the first entry that carries
   * one or from the seq a valid checkpoint says MACs start, is never accepted. Without such a
   * checkpoint, entries without a MAC before the first that has one are taken as written before
   * MACs (verify() then says how many).
   */
  reseal(): LedgerVerification {
    this.flush();
    const checkpoint = this.#head.read();
    const walk = this.#walk({ macFrom: typeof checkpoint === 'object' ? checkpoint.macFrom : undefined });
    if (walk.broken) return { ok: false, entries: walk.entries, ...walk.broken };
    this.#macFrom = walk.lastSeq === 0 ? 1 : walk.macFrom;
    if (walk.lastSeq === 0) this.#head.remove();
    else this.#head.replace({ seq: walk.lastSeq, hash: walk.lastHash, macFrom: this.#macFrom });
    this.#sealing = true;
    this.#sealFailure = undefined;
    return this.verify();
  }

  /** Hears each entry once it is durable (committed and flushed), in seq order. */
  onAppend(listener: (entry: LedgerEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Hears each flush that made entries durable, with how long it was waited for (GroupCommit.onCommit). */
  onFlushed(listener: (seconds: number) => void): () => void {
    this.#flushListeners.add(listener);
    return () => this.#flushListeners.delete(listener);
  }

  #seal(entry: LedgerEntry): void {
    if (!this.#sealing) return;
    try {
      this.#head.write({ seq: entry.seq, hash: entry.hash, macFrom: this.#macFrom });
    } catch (error) {
      // Not thrown: the entries are committed, and the commit's other listeners must still hear of them.
      this.#sealing = false;
      this.#sealFailure = (error as Error).message;
    }
  }

  #hashAt(seq: number): string | undefined {
    return (this.db.prepare('SELECT hash FROM ledger WHERE seq = ?').get(seq) as { hash: string } | undefined)?.hash;
  }

  #walk({ after = 0, afterHash = GENESIS, sealedSeq = 0, macFrom }: WalkFrom): Walk {
    const walk: Walk = { entries: 0, lastSeq: after, lastHash: afterHash, hashAt: undefined, macFrom: macFrom ?? Infinity };
    const done = (): Walk => ({ ...walk, macFrom: Math.min(walk.macFrom, walk.lastSeq + 1) });
    for (const row of this.db.prepare('SELECT * FROM ledger WHERE seq > ? ORDER BY seq').iterate(after) as Iterable<Row>) {
      const expected = walk.lastSeq + 1;
      const broken = (problem: LedgerProblem, brokenAt: number, reason: string): Walk => ({ ...done(), broken: { problem, brokenAt, reason } });
      if (row.seq !== expected) {
        return broken('deleted', expected, row.seq === expected + 1 ? `entry #${expected} is missing` : `entries #${expected} to #${row.seq - 1} are missing`);
      }
      if (row.prev_hash !== walk.lastHash) return broken('broken_link', row.seq, `its previous-hash is not the hash of entry #${row.seq - 1}`);
      let entry: LedgerEntry;
      try {
        entry = toEntry(row);
      } catch {
        return broken('edited', row.seq, 'its details are not the JSON that was written');
      }
      const { hash, ...unhashed } = entry;
      if (entryHash(unhashed) !== hash) return broken('edited', row.seq, 'its content does not match its hash');
      if (row.mac !== null) {
        if (row.mac !== this.#entryMac(hash)) {
          return broken('forged', row.seq, `its MAC is not the one ${LEDGER_KEY_FILE} gives its hash: it was written without the key, or given another entry's MAC`);
        }
        // Without a checkpoint to say where MACs start, the first entry carrying one does.
        if (macFrom === undefined && walk.macFrom === Infinity) walk.macFrom = row.seq;
      } else if (row.seq >= walk.macFrom) {
        return broken('forged', row.seq, `it carries no MAC, where every entry from #${walk.macFrom} on must: it was written without ${LEDGER_KEY_FILE}`);
      }
      if (row.seq === sealedSeq) walk.hashAt = hash;
      walk.entries += 1;
      walk.lastSeq = row.seq;
      walk.lastHash = hash;
    }
    return done();
  }
}

/** A write or flush of the ledger's database that failed (a full disk, an I/O error), as the caller's error. */
export function ledgerUnavailable(error: unknown): CapstanError {
  if (error instanceof CapstanError) return error;
  return new CapstanError('LEDGER_UNAVAILABLE', `the ledger could not write to its database: ${(error as Error).message}`);
}
