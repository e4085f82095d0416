/**
 * `capstan token create|list|revoke`: agent tokens, straight in the database like `capstan ledger`,
 * so they work with or without a running gateway; a running one sees the change on its next
 * request (it reads the table on every request).
 */
import { parseArgs } from 'node:util';
import { AgentName } from '../../shared/principal';
import { defaultDataDir } from '../paths';
import { UsageError } from '../server';
import { AgentTokens } from '../store/agentTokens';
import { openDatabase } from '../store/database';
import { openExistingDatabase } from './database';
import { table } from './table';
import { out } from './terminal';

export async function tokenCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { 'data-dir': { type: 'string' }, name: { type: 'string' } },
    allowPositionals: sub === 'revoke',
    strict: true,
  });
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') throw new UsageError(`token needs create, list or revoke${sub ? `, not "${sub}"` : ''}`);
  const name = sub === 'create' ? values.name : sub === 'revoke' ? positionals[0] : undefined;
  if (sub !== 'list') {
    if (!name || positionals.length > 1) throw new UsageError(sub === 'create' ? 'token create needs --name NAME' : 'token revoke needs one NAME');
    const checked = AgentName.safeParse(name);
    if (!checked.success) throw new UsageError(`the name ${checked.error.issues[0]?.message ?? 'is invalid'}, got "${name}"`);
  }
  const dataDir = values['data-dir'] ?? defaultDataDir();
  // Only create makes a database where there was none: listing or revoking in one would be a mistyped --data-dir.
  const db = sub === 'create' ? openDatabase(dataDir) : openExistingDatabase(dataDir);
  try {
    const tokens = new AgentTokens(db);
    if (sub === 'create') {
      const { agent, token } = tokens.create(name!);
      process.stdout.write(`Token for ${agent.principal}, shown only this once (Capstan keeps only its SHA-256):\n${token}\n`);
    } else if (sub === 'revoke') {
      tokens.revoke(name!);
      process.stdout.write(`Revoked the token of agent:${name}; its next request is refused.\n`);
    } else {
      const agents = tokens.list();
      if (agents.length === 0) return void process.stdout.write('No agent tokens. Make one with `capstan token create --name NAME`.\n');
      out(table(['NAME', 'CREATED', 'LAST USED'], agents.map((agent) => [agent.name, agent.createdAt, agent.lastUsedAt ?? 'never'])));
    }
  } finally {
    db.close();
  }
}
