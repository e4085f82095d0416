import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../electron/store/database';
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
  it('opens in WAL mode at the latest schema version, and reopening migrates nothing twice', () => {
    const dir = freshDir();
    const db = openDatabase(dir);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
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
