import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, migrate, openDatabase } from '../../electron/store/database';
import { GroupCommit, UNAWAITED_COMMIT_MS } from '../../electron/store/groupCommit';
import { migrations } from '../../electron/store/migrations';
import { readConsoleSettings, writeConsoleSettings } from '../../electron/store/settings';
import { DEFAULT_CONSOLE_SETTINGS } from '../../shared/api';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-store-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the store', () => {
  it('opens in WAL mode, flushing every commit, at the latest schema version, and reopening migrates nothing twice', () => {
    const dir = freshDir();
    const db = openDatabase(dir);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    // FULL (2): a commit survives a power loss, not only a killed process.
    expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 2 });
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: migrations.length });
    db.prepare("INSERT INTO todos (title, created_at) VALUES ('kept', 'now')").run();
    db.close();

    const again = openDatabase(dir);
    expect(migrate(again)).toBe(migrations.length);
    expect(again.prepare('SELECT title FROM todos').all()).toEqual([{ title: 'kept' }]);
    again.close();
  });

  it('keeps console settings, deduplicated, and falls back to the defaults on a corrupt row', () => {
    const db = openDatabase(freshDir());
    expect(readConsoleSettings(db)).toEqual(DEFAULT_CONSOLE_SETTINGS);
    expect(writeConsoleSettings(db, { whitelist: ['todo_list', 'time_now', 'todo_list'] })).toEqual({ whitelist: ['todo_list', 'time_now'] });
    expect(readConsoleSettings(db)).toEqual({ whitelist: ['todo_list', 'time_now'] });
    db.prepare("UPDATE settings SET value = '{not json' WHERE key = 'console'").run();
    expect(readConsoleSettings(db)).toEqual(DEFAULT_CONSOLE_SETTINGS);
    db.close();
  });
});

describe('group commit', () => {
  /** The store, and a second connection that sees only what is committed. */
  const open = () => {
    const dir = freshDir();
    const db = openDatabase(dir);
    const reader = new DatabaseSync(join(dir, DATABASE_FILE), { readOnly: true });
    const todos = () => reader.prepare('SELECT title FROM todos ORDER BY id').all().map((row) => row.title as string);
    const addTodo = (title: string) => db.prepare("INSERT INTO todos (title, created_at) VALUES (?, 'now')").run(title);
    const close = () => {
      reader.close();
      db.close();
    };
    return { db, reader, batch: GroupCommit.of(db), todos, addTodo, close };
  };

  it('leaves a batch no one waits for open past its turn, so the next answer commits it along, and commits it by itself after a short while', async () => {
    const { batch, todos, addTodo, close } = open();
    batch.write(() => addTodo('started'));
    await new Promise(setImmediate);
    expect(todos()).toEqual([]);
    batch.write(() => addTodo('finished'));
    await batch.durable();
    expect(todos()).toEqual(['started', 'finished']);

    batch.write(() => addTodo('unawaited'));
    const written = performance.now();
    const durable = new Promise<void>((done) => batch.afterDurable(done));
    await new Promise(setImmediate);
    expect(todos()).toEqual(['started', 'finished']);
    await durable; // no one asked: its time did
    expect(todos()).toEqual(['started', 'finished', 'unawaited']);
    expect(performance.now() - written).toBeGreaterThanOrEqual(UNAWAITED_COMMIT_MS - 1);
    close();
  });

  it('commits a batch asked for soon when its turn ends, without anyone waiting for it', async () => {
    const { batch, todos, addTodo, close } = open();
    batch.write(() => addTodo('mutating call started'));
    batch.commitSoon();
    await new Promise(setImmediate);
    expect(todos()).toEqual(['mutating call started']);
    close();
  });

  it('commits the writes made until someone waits together, when that turn ends, then tells its listeners', async () => {
    const { batch, todos, addTodo, close } = open();
    const commits: string[][] = [];
    batch.onCommit(() => commits.push(todos()));
    batch.write(() => addTodo('a'));
    batch.write(() => addTodo('b'));
    expect(todos()).toEqual([]);
    await batch.durable();
    expect(todos()).toEqual(['a', 'b']);
    expect(commits).toEqual([['a', 'b']]);
    close();
  });

  it('takes over the flush of a connection opened with FULL: commits with NORMAL, and a batch is durable only after a sync of the WAL that began after its commit', async () => {
    const { db, batch, todos, addTodo, close } = open();
    // SQLite no longer flushes inside COMMIT, on the event loop: the group commit flushes on the thread pool.
    expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
    const heard: string[] = [];
    batch.onCommit(() => heard.push('synced'));
    batch.write(() => addTodo('a'));
    batch.afterDurable(() => heard.push('a is durable'));
    const first = batch.durable().then(() => heard.push('first answered'));
    await new Promise(setImmediate); // the turn ended: 'a' is committed and its flush is running
    expect(todos()).toEqual(['a']);
    batch.write(() => addTodo('b')); // a batch of its own, left open while the first one's flush runs, then committed and flushed
    batch.afterDurable(() => heard.push('b is durable'));
    const second = batch.durable().then(() => heard.push('second answered'));
    await Promise.all([first, second]);
    // Two flushes: 'b' was written after the first one began, so it waits for the second.
    expect(heard).toEqual(['a is durable', 'synced', 'first answered', 'b is durable', 'synced', 'second answered']);
    close();
  });

  it('leaves a connection set to NORMAL as it is: nothing flushed, durable() once committed', async () => {
    const dir = freshDir();
    const db = openDatabase(dir);
    db.exec('PRAGMA synchronous = NORMAL');
    const batch = GroupCommit.of(db);
    expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
    batch.write(() => db.prepare("INSERT INTO todos (title, created_at) VALUES ('a', 'now')").run());
    await batch.durable();
    expect(db.prepare('SELECT title FROM todos').all()).toEqual([{ title: 'a' }]);
    db.close();
  });

  it('commits the open batch at once on flush()', () => {
    const { batch, todos, addTodo, close } = open();
    batch.write(() => addTodo('a'));
    batch.flush();
    expect(todos()).toEqual(['a']);
    close();
  });

  it('keeps one batch per connection', () => {
    const { db, batch, close } = open();
    expect(GroupCommit.of(db)).toBe(batch);
    close();
  });

  it('runs writeNow() in a transaction of its own, after committing the open batch, and leaves nothing when it throws', () => {
    const { batch, todos, addTodo, close } = open();
    batch.write(() => addTodo('batched'));
    batch.writeNow(() => addTodo('now'));
    expect(todos()).toEqual(['batched', 'now']);
    expect(() =>
      batch.writeNow(() => {
        addTodo('half');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(todos()).toEqual(['batched', 'now']);
    close();
  });

  it('saves console settings outside an open batch', () => {
    const { db, reader, batch, addTodo, close } = open();
    batch.write(() => addTodo('batched'));
    writeConsoleSettings(db, { whitelist: ['time_now'] });
    expect(reader.prepare("SELECT value FROM settings WHERE key = 'console'").get()).toEqual({ value: '{"whitelist":["time_now"]}' });
    close();
  });
});
