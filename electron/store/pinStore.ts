/** The pins table (migrations.ts): one row per pinned MCP tool, written outside the ledger's batch. */
import type { Database } from './database';
import { GroupCommit } from './groupCommit';

export interface PinRow {
  provider: string;
  name: string;
  hash: string;
  descriptor: Record<string, unknown>;
  pinnedAt: string;
}

export class PinStore {
  constructor(private readonly db: Database) {}

  /** Every pin of a provider, by tool name. */
  of(provider: string): Map<string, PinRow> {
    const rows = this.db.prepare('SELECT provider, name, hash, descriptor, pinned_at FROM pins WHERE provider = ?').all(provider) as {
      provider: string;
      name: string;
      hash: string;
      descriptor: string;
      pinned_at: string;
    }[];
    return new Map(rows.map((row) => [row.name, { provider: row.provider, name: row.name, hash: row.hash, descriptor: JSON.parse(row.descriptor) as Record<string, unknown>, pinnedAt: row.pinned_at }]));
  }

  save(rows: readonly PinRow[]): void {
    if (rows.length === 0) return;
    GroupCommit.of(this.db).writeNow(() => {
      const insert = this.db.prepare(
        'INSERT INTO pins (provider, name, hash, descriptor, pinned_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(provider, name) DO UPDATE SET hash = excluded.hash, descriptor = excluded.descriptor, pinned_at = excluded.pinned_at',
      );
      for (const row of rows) insert.run(row.provider, row.name, row.hash, JSON.stringify(row.descriptor), row.pinnedAt);
    });
  }

  /** Forgets one tool's pin (its tool was renamed and the new name accepted). */
  forgetTool(provider: string, name: string): void {
    GroupCommit.of(this.db).writeNow(() => this.db.prepare('DELETE FROM pins WHERE provider = ? AND name = ?').run(provider, name));
  }

  /** Forgets a provider's pins (the operator removed the server; adding it again pins it anew). */
  forget(provider: string): void {
    GroupCommit.of(this.db).writeNow(() => this.db.prepare('DELETE FROM pins WHERE provider = ?').run(provider));
  }
}
