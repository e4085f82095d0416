/**
 * Tampering with a ledger as someone holding its files would: drop the append-only triggers, then
 * edit, delete or cut off rows, re-hash a row or a whole tail, append a row that chains, swap or
 * drop entries' MACs, forge or delete ledger.head. Most without ledger.key, as anyone who can read
 * and write the database could; the two marked so with it, to reach what only the checkpoint or
 * the chain's links catch once MACs hold. The same list drives the tests through
 * `Ledger.verify()`, `capstan ledger verify`, `GET /ledger/verify` and the console's Verify
 * chain; each names what they must report.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { LEDGER_HEAD_FILE, LEDGER_KEY_FILE } from '../../electron/runtime/ledger';
import { entryHash, entryMacs } from '../../electron/runtime/ledgerChain';
import { DATABASE_FILE } from '../../electron/store/database';
import type { LedgerProblem } from '../../shared/ledger';

export interface Tampering {
  problem: LedgerProblem;
  /** What was done, for test titles. */
  what: string;
  /** The seq verification must name, given the ledger's head before tampering. */
  brokenAt: (head: number) => number;
  apply: (dataDir: string) => void;
}

/** The fewest entries a ledger needs for every tampering below to hit a different entry. */
export const MIN_ENTRIES = 6;

interface Row {
  seq: number;
  at: string;
  kind: string;
  task_id: string | null;
  session_id: string | null;
  request_id: string | null;
  capability: string | null;
  principal: string | null;
  details: string;
  prev_hash: string;
  hash: string;
  mac: string | null;
}

/** Opens the database file directly, with the triggers that refuse UPDATE and DELETE dropped. */
function withLedgerTable(dataDir: string, change: (db: DatabaseSync, head: number) => void): void {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
  try {
    db.exec('PRAGMA busy_timeout = 5000; DROP TRIGGER IF EXISTS ledger_no_update; DROP TRIGGER IF EXISTS ledger_no_delete;');
    const { head } = db.prepare('SELECT max(seq) AS head FROM ledger').get() as { head: number };
    change(db, head);
  } finally {
    db.close();
  }
}

const hashOf = (row: Row, prevHash: string) =>
  entryHash({
    seq: row.seq,
    at: row.at,
    kind: row.kind as never,
    taskId: row.task_id,
    sessionId: row.session_id,
    requestId: row.request_id,
    capability: row.capability,
    principal: row.principal,
    details: JSON.parse(row.details) as Record<string, unknown>,
    prevHash,
  });

/** The install's entry MACs, under ledger.key: for the tamperings done with it. */
const macsOf = (dataDir: string) => entryMacs(Buffer.from(readFileSync(join(dataDir, LEDGER_KEY_FILE), 'utf8').trim(), 'hex'));

/**
 * Gives rows `from`..`to` fresh hashes that chain; their MACs by `mac`: under a key of the
 * forger's own when they have not got ledger.key, the install's when they have.
 */
function rehash(db: DatabaseSync, from: number, to: number, mac: (entryHash: string) => string): void {
  let prevHash = from === 1 ? '0'.repeat(64) : (db.prepare('SELECT hash FROM ledger WHERE seq = ?').get(from - 1) as { hash: string }).hash;
  for (let seq = from; seq <= to; seq++) {
    const row = db.prepare('SELECT * FROM ledger WHERE seq = ?').get(seq) as unknown as Row;
    const hash = hashOf(row, prevHash);
    db.prepare('UPDATE ledger SET prev_hash = ?, hash = ?, mac = ? WHERE seq = ?').run(prevHash, hash, mac(hash), seq);
    prevHash = hash;
  }
}

/**
 * Appends an entry that chains onto the ledger's last, as anyone who can read and write the
 * database can without ledger.key: an operator approving an agent's call. Its MAC is left out, as
 * by a forger who does not know of it (`mac` given: one made up). Returns its seq.
 */
export function appendForged(dataDir: string, mac: string | null = null): number {
  let seq = 0;
  withLedgerTable(dataDir, (db, head) => {
    const last = db.prepare('SELECT hash, session_id FROM ledger WHERE seq = ?').get(head) as { hash: string; session_id: string | null };
    const row: Row = {
      seq: (seq = head + 1),
      at: new Date().toISOString(),
      kind: 'approval_decided',
      task_id: null,
      session_id: last.session_id,
      request_id: 'forged-request',
      capability: 'builtin:time_now',
      principal: 'operator',
      details: JSON.stringify({ decision: 'approved' }),
      prev_hash: last.hash,
      hash: '',
      mac,
    };
    row.hash = hashOf(row, last.hash);
    db.prepare(
      'INSERT INTO ledger (seq, at, kind, task_id, session_id, request_id, capability, principal, details, prev_hash, hash, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(row.seq, row.at, row.kind, row.task_id, row.session_id, row.request_id, row.capability, row.principal, row.details, row.prev_hash, row.hash, row.mac);
  });
  return seq;
}

/**
 * Makes a data dir look as a version from before entries carried MACs left it: no `mac` column,
 * schema version 4, and ledger.head a version 1 record (`{ seq, hash, mac }`, MACed under its
 * own derived key). The entries' hashes are as that version wrote them: MACs were never hashed.
 */
export function toPreMacLedger(dataDir: string): void {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
  try {
    // Everything a later migration adds goes too (the pins of migration 6, the holds index of 7), as that version had none.
    db.exec('DROP INDEX IF EXISTS ledger_holds; ALTER TABLE ledger DROP COLUMN mac; DROP TABLE IF EXISTS pins; PRAGMA user_version = 4;');
  } finally {
    db.close();
  }
  const path = join(dataDir, LEDGER_HEAD_FILE);
  const { seq, hash } = JSON.parse(readFileSync(path, 'utf8')) as { seq: number; hash: string };
  const ledgerKey = Buffer.from(readFileSync(join(dataDir, LEDGER_KEY_FILE), 'utf8').trim(), 'hex');
  const key = createHmac('sha256', ledgerKey).update('capstan ledger.head v1').digest();
  const mac = createHmac('sha256', key).update(`${seq}:${hash}`).digest('hex');
  writeFileSync(path, `${JSON.stringify({ seq, hash, mac }).padEnd(255)}\n`);
}

const forge = `'{"forged":true}'`;

export const tamperings: readonly Tampering[] = [
  {
    problem: 'edited',
    what: "an entry's details edited",
    brokenAt: () => 3,
    apply: (dir) => withLedgerTable(dir, (db) => db.exec(`UPDATE ledger SET details = ${forge} WHERE seq = 3`)),
  },
  {
    problem: 'forged',
    what: 'an entry edited and given a fresh hash, without ledger.key',
    brokenAt: () => 3,
    apply: (dir) =>
      withLedgerTable(dir, (db) => {
        db.exec(`UPDATE ledger SET details = ${forge} WHERE seq = 3`);
        rehash(db, 3, 3, entryMacs(randomBytes(32)));
      }),
  },
  {
    problem: 'forged',
    what: 'a correctly chained entry appended at the tail without ledger.key',
    brokenAt: (head) => head + 1,
    apply: (dir) => void appendForged(dir),
  },
  {
    problem: 'forged',
    what: 'two entries given each other\'s MAC',
    brokenAt: () => 3,
    apply: (dir) =>
      withLedgerTable(dir, (db) => {
        const mac = (seq: number) => (db.prepare('SELECT mac FROM ledger WHERE seq = ?').get(seq) as { mac: string }).mac;
        const [third, fourth] = [mac(3), mac(4)];
        db.prepare('UPDATE ledger SET mac = ? WHERE seq = ?').run(fourth, 3);
        db.prepare('UPDATE ledger SET mac = ? WHERE seq = ?').run(third, 4);
      }),
  },
  {
    problem: 'forged',
    what: "an entry's MAC removed",
    brokenAt: () => 4,
    apply: (dir) => withLedgerTable(dir, (db) => db.exec('UPDATE ledger SET mac = NULL WHERE seq = 4')),
  },
  {
    problem: 'broken_link',
    what: 'an entry edited and given a fresh hash and MAC, with ledger.key',
    brokenAt: () => 4,
    apply: (dir) =>
      withLedgerTable(dir, (db) => {
        db.exec(`UPDATE ledger SET details = ${forge} WHERE seq = 3`);
        rehash(db, 3, 3, macsOf(dir));
      }),
  },
  {
    problem: 'deleted',
    what: 'an entry deleted',
    brokenAt: () => 4,
    apply: (dir) => withLedgerTable(dir, (db) => db.exec('DELETE FROM ledger WHERE seq = 4')),
  },
  {
    problem: 'truncated',
    what: 'the last two entries cut off',
    brokenAt: (head) => head - 1,
    apply: (dir) => withLedgerTable(dir, (db, head) => db.prepare('DELETE FROM ledger WHERE seq >= ?').run(head - 1)),
  },
  {
    problem: 'rewritten',
    what: 'the tail edited and every hash and MAC after it recomputed, with ledger.key',
    brokenAt: (head) => head,
    apply: (dir) =>
      withLedgerTable(dir, (db, head) => {
        db.prepare(`UPDATE ledger SET details = ${forge} WHERE seq = ?`).run(head - 2);
        rehash(db, head - 2, head, macsOf(dir));
      }),
  },
  {
    problem: 'checkpoint_tampered',
    what: 'ledger.head edited to seal a later head',
    brokenAt: (head) => head,
    apply: (dir) => {
      const path = join(dir, LEDGER_HEAD_FILE);
      const record = JSON.parse(readFileSync(path, 'utf8')) as { seq: number; hash: string; mac: string };
      writeFileSync(path, JSON.stringify({ ...record, seq: record.seq + 5 }));
    },
  },
  {
    problem: 'checkpoint_missing',
    what: 'ledger.head deleted',
    brokenAt: (head) => head,
    apply: (dir) => rmSync(join(dir, LEDGER_HEAD_FILE)),
  },
];
