/**
 * The group commit on a real database in WAL mode: a row kept to be written as the batch commits
 * (writeLast), and a batch the database refuses, as a full disk does: SQLite's `max_page_count`
 * makes an INSERT that needs a new page fail with SQLITE_FULL and roll the whole transaction back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../electron/store/database';
import { GroupCommit } from '../../electron/store/groupCommit';

const UNLIMITED = 1_073_741_823;

let dataDir: string;
let db: Database;
let group: GroupCommit;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'capstan-group-'));
  db = openDatabase(dataDir);
  db.exec('CREATE TABLE t (x TEXT); CREATE TABLE row (id TEXT PRIMARY KEY, state TEXT)');
  group = GroupCommit.of(db);
});
afterEach(() => {
  db.exec(`PRAGMA max_page_count = ${UNLIMITED}`);
  group.flush();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a batch the database rolls back', () => {
  const insert = (text: string) => group.write(() => db.prepare('INSERT INTO t VALUES (?)').run(text));
  const rows = () => (db.prepare('SELECT x FROM t ORDER BY rowid').all() as { x: string }[]).map((row) => row.x.slice(0, 8));
  const full = () => {
    const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${pages}`);
  };
  /** Writes in one batch until the database refuses; returns the batch's durable() and its lost callbacks' count. */
  const fillUntilLost = () => {
    const heard = { durable: 0, lost: 0 };
    insert('lost 1'.padEnd(3000, '.'));
    group.afterDurable(
      () => (heard.durable += 1),
      () => (heard.lost += 1),
    );
    const durable = group.durable();
    expect(() => {
      for (let n = 2; n < 100; n += 1) insert(`lost ${n}`.padEnd(3000, '.'));
    }).toThrow(/database or disk is full/);
    return { durable, heard };
  };

  it('rejects its durable(), tells its lost callbacks, keeps what was committed before it, and says writes are failing', async () => {
    insert('kept');
    await group.durable();
    full();
    const { durable, heard } = fillUntilLost();
    await expect(durable).rejects.toThrow(/rolled back writes not yet committed: database or disk is full/);
    expect(heard).toEqual({ durable: 0, lost: 1 });
    expect(group.failure?.message).toMatch(/database or disk is full/);
    expect(rows()).toEqual(['kept']);
  });

  it('says writes are failing until a batch begun after the loss is on disk, not when an earlier one is', async () => {
    insert('earlier');
    const earlier = group.durable();
    // The earlier batch commits when this turn ends, and its flush starts on the thread pool.
    await new Promise((resolve) => setImmediate(resolve));
    full();
    const { durable } = fillUntilLost();
    await expect(durable).rejects.toThrow();
    // The earlier batch's flush ends after the loss: it was begun before it, so writes are still failing.
    await earlier;
    expect(group.failure).toBeDefined();
    db.exec(`PRAGMA max_page_count = ${UNLIMITED}`);
    insert('later');
    await group.durable();
    expect(group.failure).toBeUndefined();
    expect(rows()).toEqual(['earlier', 'later']);
  });
});

describe('a row kept for the commit (writeLast)', () => {
  let writes = 0;
  const save = (id: string, state: string) =>
    group.writeLast(`row ${id}`, () => {
      writes += 1;
      db.prepare('INSERT INTO row VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET state = excluded.state').run(id, state);
    });
  const rows = () => db.prepare('SELECT id, state FROM row ORDER BY id').all().map((row) => ({ ...row }));

  it('is written once per batch, as it last stood, and is on disk with the batch', async () => {
    writes = 0;
    save('a', 'started');
    save('b', 'started');
    save('a', 'running');
    save('a', 'finished');
    await group.durable();
    expect(writes).toBe(2);
    // Read from another connection: what the commit put on disk.
    const reader = openDatabase(dataDir);
    try {
      expect(reader.prepare('SELECT id, state FROM row ORDER BY id').all().map((row) => ({ ...row }))).toEqual([
        { id: 'a', state: 'finished' },
        { id: 'b', state: 'started' },
      ]);
    } finally {
      reader.close();
    }
  });

  it('is seen by a read on the connection once settled, before its batch commits', () => {
    save('a', 'started');
    expect(rows()).toEqual([]);
    group.settle();
    expect(rows()).toEqual([{ id: 'a', state: 'started' }]);
    save('a', 'finished');
    group.settle();
    expect(rows()).toEqual([{ id: 'a', state: 'finished' }]);
  });

  it('that the database refuses as the batch commits loses the whole batch, and says so', async () => {
    group.write(() => db.prepare('INSERT INTO row VALUES (?, ?)').run('kept', 'before'));
    await group.durable();
    const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${pages}`);
    group.write(() => db.prepare('INSERT INTO row VALUES (?, ?)').run('small', 'fits'));
    for (let n = 0; n < 20; n += 1) save(`big ${n}`, 'x'.repeat(3000));
    await expect(group.durable()).rejects.toThrow(/rolled back writes not yet committed: database or disk is full/);
    expect(group.failure?.message).toMatch(/database or disk is full/);
    expect(rows()).toEqual([{ id: 'kept', state: 'before' }]);
  });
});
