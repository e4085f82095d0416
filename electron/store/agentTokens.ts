/**
 * Agent tokens: each names one agent (`agent:<name>` in the ledger) and is shown once, at
 * creation; the database keeps only its SHA-256.
 *
 * Why a plain SHA-256 and not a slow password hash (scrypt, argon2): a token is 256 random bits,
 * so its digest cannot be reversed by guessing, however fast each guess is; a slow hash only
 * helps secrets people choose. It also lets the gateway find a token with one indexed lookup
 * of its digest on every request, in microseconds, where a salted slow hash would need a
 * per-token comparison costing tens of milliseconds. The lookup's timing reveals nothing useful:
 * the digest of a guess is not something the guesser can steer toward a stored one.
 *
 * The table is read on every request, never cached, so a token created or revoked by
 * `capstan token` in another process, against the same file, counts on the next request.
 */
import { hash, randomBytes } from 'node:crypto';
import type { AgentView, CreatedAgent } from '../../shared/agents';
import { CapstanError } from '../../shared/errors';
import { agentPrincipal } from '../../shared/principal';
import type { Database } from './database';
import { GroupCommit } from './groupCommit';

/** Makes agent tokens recognisable to secret scanners and to people. */
export const AGENT_TOKEN_PREFIX = 'capstan_agent_';
/** `lastUsedAt` is written at most this often per token: a write per request would cost a disk flush each. */
const LAST_USED_EVERY_MS = 60_000;

interface Row {
  name: string;
  created_at: string;
  last_used_at: string | null;
}

const view = (row: Row): AgentView => ({ name: row.name, principal: agentPrincipal(row.name), createdAt: row.created_at, lastUsedAt: row.last_used_at });
const digest = (token: string) => hash('sha256', token);

export class AgentTokens {
  readonly #find;
  readonly #touch;
  /** When this process last wrote each agent's lastUsedAt. */
  readonly #touched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.#find = db.prepare('SELECT name, created_at, last_used_at FROM agent_tokens WHERE token_hash = ?');
    this.#touch = db.prepare('UPDATE agent_tokens SET last_used_at = ? WHERE name = ?');
  }

  /** A new token for `name`, returned this once. A name in use is refused; a revoked one may be used again. */
  create(name: string): CreatedAgent {
    const token = `${AGENT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const createdAt = new Date(this.now()).toISOString();
    try {
      GroupCommit.of(this.db).writeNow(() =>
        this.db.prepare('INSERT INTO agent_tokens (name, token_hash, created_at) VALUES (?, ?, ?)').run(name, digest(token), createdAt),
      );
    } catch (error) {
      if ((error as { errcode?: number }).errcode === SQLITE_CONSTRAINT_PRIMARYKEY) {
        throw new CapstanError('AGENT_EXISTS', `an agent named "${name}" already has a token; revoke it first to replace it`, { field: 'name' });
      }
      throw error;
    }
    return { agent: { name, principal: agentPrincipal(name), createdAt, lastUsedAt: null }, token };
  }

  list(): AgentView[] {
    return (this.db.prepare('SELECT name, created_at, last_used_at FROM agent_tokens ORDER BY name').all() as unknown as Row[]).map(view);
  }

  /** Deletes the agent's token: the next request with it is UNAUTHORIZED. */
  revoke(name: string): void {
    const { changes } = GroupCommit.of(this.db).writeNow(() => this.db.prepare('DELETE FROM agent_tokens WHERE name = ?').run(name));
    if (changes === 0) throw new CapstanError('AGENT_NOT_FOUND', `no agent named "${name}" has a token`);
  }

  /** The agent a presented token belongs to, if any; notes the use (at most once a minute, in the ledger's batch). */
  authenticate(token: string): string | undefined {
    const row = this.#find.get(digest(token)) as Row | undefined;
    if (!row) return undefined;
    const now = this.now();
    if (now - (this.#touched.get(row.name) ?? 0) >= LAST_USED_EVERY_MS) {
      this.#touched.set(row.name, now);
      // Joins the open group commit: no flush of its own.
      GroupCommit.of(this.db).write(() => this.#touch.run(new Date(now).toISOString(), row.name));
    }
    return row.name;
  }
}

/** SQLite's extended code for a duplicate primary key. */
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
