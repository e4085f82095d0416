/**
 * The group commit when the database refuses a write, as a full disk does: SQLite's
 * `max_page_count` makes an INSERT that needs a new page fail with SQLITE_FULL and roll the whole
 * transaction back, on a real database in WAL mode.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../electron/store/database';
import { GroupCommit } from '../../electron/store/groupCommit';

const UNLIMITED = 1_073_741_823;

describe('a batch the database rolls back', () => {
  let dataDir: string;
  let db: Database;
  let group: GroupCommit;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-group-'));
    db = openDatabase(dataDir);
    db.exec('CREATE TABLE t (x TEXT)');
    group = GroupCommit.of(db);
  });
  afterEach(() => {
    db.exec(`PRAGMA max_page_count = ${UNLIMITED}`);
    group.flush();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

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
