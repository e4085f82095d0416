/**
 * The operator's switches over the catalog, kept so they hold after a restart: providers switched
 * on or off from the console, and revoked capabilities. Stored as validated JSON in `settings`,
 * like the console's own settings, so a hand-edited row can never stop the start.
 */
import { z } from 'zod';
import type { Database } from './database';
import { GroupCommit } from './groupCommit';

const KEY = 'catalog';

const CatalogPolicy = z.object({
  /** Provider name → enabled, as the console last switched it; wins over config.json's disabledProviders. */
  providers: z.record(z.string(), z.boolean()).default({}),
  revoked: z.array(z.string()).default([]),
});
export type CatalogPolicy = z.infer<typeof CatalogPolicy>;

export function readCatalogPolicy(db: Database): CatalogPolicy {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string } | undefined;
  try {
    return CatalogPolicy.parse(row ? JSON.parse(row.value) : {});
  } catch {
    return CatalogPolicy.parse({});
  }
}

export function saveProviderSwitch(db: Database, provider: string, enabled: boolean): void {
  const policy = readCatalogPolicy(db);
  write(db, { ...policy, providers: { ...policy.providers, [provider]: enabled } });
}

export function saveRevocation(db: Database, id: string, revoked: boolean): void {
  const policy = readCatalogPolicy(db);
  const others = policy.revoked.filter((known) => known !== id);
  write(db, { ...policy, revoked: revoked ? [...others, id] : others });
}

function write(db: Database, policy: CatalogPolicy): void {
  // In its own transaction, never in the ledger's open batch (see groupCommit.ts).
  GroupCommit.of(db).writeNow(() =>
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(KEY, JSON.stringify(policy)),
  );
}
