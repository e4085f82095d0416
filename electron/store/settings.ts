/** The console's settings, stored as validated JSON so a hand-edited row can never crash the app. */
import { ConsoleSettings, DEFAULT_CONSOLE_SETTINGS } from '../../shared/api';
import type { Database } from './database';
import { GroupCommit } from './groupCommit';

const KEY = 'console';

export function readConsoleSettings(db: Database): ConsoleSettings {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string } | undefined;
  if (!row) return DEFAULT_CONSOLE_SETTINGS;
  try {
    return ConsoleSettings.parse(JSON.parse(row.value));
  } catch {
    return DEFAULT_CONSOLE_SETTINGS;
  }
}

export function writeConsoleSettings(db: Database, settings: ConsoleSettings): ConsoleSettings {
  const clean = ConsoleSettings.parse({ whitelist: [...new Set(settings.whitelist)] });
  // Saved in its own transaction, never in the ledger's open batch (see groupCommit.ts).
  GroupCommit.of(db).writeNow(() =>
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(KEY, JSON.stringify(clean)),
  );
  return clean;
}
