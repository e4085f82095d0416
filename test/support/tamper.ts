/**
 * Tampering with a ledger as someone holding its files would: drop the append-only triggers, then
 * edit, delete or cut off rows, re-hash a row or a whole tail, forge or delete ledger.head. The
 * same list drives the tests through `Ledger.verify()`, `capstan ledger verify`,
 * `GET /ledger/verify` and the console's Verify chain; each names what they must report.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { entryHash, LEDGER_HEAD_FILE } from '../../electron/runtime/ledger';
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

/** Gives rows `from`..`to` fresh hashes that chain, as a forger without the key would. */
function rehash(db: DatabaseSync, from: number, to: number): void {
  let prevHash = from === 1 ? '0'.repeat(64) : (db.prepare('SELECT hash FROM ledger WHERE seq = ?').get(from - 1) as { hash: string }).hash;
  for (let seq = from; seq <= to; seq++) {
    const row = db.prepare('SELECT * FROM ledger WHERE seq = ?').get(seq) as unknown as Row;
    const hash = entryHash({
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
    db.prepare('UPDATE ledger SET prev_hash = ?, hash = ? WHERE seq = ?').run(prevHash, hash, seq);
    prevHash = hash;
  }
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
    problem: 'broken_link',
    what: 'an entry edited and given a fresh hash',
    brokenAt: () => 4,
    apply: (dir) =>
      withLedgerTable(dir, (db) => {
        db.exec(`UPDATE ledger SET details = ${forge} WHERE seq = 3`);
        rehash(db, 3, 3);
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
    what: 'the tail edited and every hash after it recomputed',
    brokenAt: (head) => head,
    apply: (dir) =>
      withLedgerTable(dir, (db, head) => {
        db.prepare(`UPDATE ledger SET details = ${forge} WHERE seq = ?`).run(head - 2);
        rehash(db, head - 2, head);
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
