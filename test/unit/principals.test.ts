/**
 * Principals below the gateway: who a ledger entry names (the caller, still, when a call ends
 * long after its request; `system` for restart recovery), how the chain hashes them without
 * breaking ledgers written before them, agent tokens, and the one authorization table.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../electron/catalog/digest';
import { authorize, bearerAuthenticator, ownsSession, sessionFor } from '../../electron/services/principal';
import { Ledger, loadLedgerKey } from '../../electron/runtime/ledger';
import { currentPrincipal, runAs } from '../../electron/runtime/principal';
import { AgentTokens, AGENT_TOKEN_PREFIX } from '../../electron/store/agentTokens';
import { DATABASE_FILE, openDatabase } from '../../electron/store/database';
import { GroupCommit } from '../../electron/store/groupCommit';
import { migrations } from '../../electron/store/migrations';
import { operations, type OperationName } from '../../shared/api';
import { runtimeFixture, stubbornWrite, type RuntimeFixture } from '../support/runtime';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-principals-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function fixture(options: Parameters<typeof runtimeFixture>[0] = {}): Promise<RuntimeFixture> {
  const made = await runtimeFixture(options);
  cleanups.push(() => made.close());
  return made;
}

describe('the principal of ledger entries', () => {
  it('names the caller on every entry its request causes, even a call_finished written after the grace period, when the operator cancelled', async () => {
    const f = await fixture({ graceMs: 50, tools: [stubbornWrite] });
    const { contract, tool } = f.catalog.resolveTool('stubborn_write');
    const { task, call } = runAs('agent:bot', () => {
      const task = f.runtime.start('agent:bot', 'write somewhere');
      const spec = { requestId: 'agent-call', capability: contract.id, mutating: true, timeoutMs: 60_000 };
      // The request's own promise is dropped, as an HTTP client that hung up would leave it.
      const call = f.runtime.runCall(task, spec, (signal) => tool.definition.run({}, { signal, requestId: 'agent-call' }));
      return { task, call };
    });
    // Out of the agent's context now: the operator cancels, and the stubborn call outlives its grace period.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await runAs('operator', () => f.runtime.cancel(task.id));
    expect((await call).status).toBe('outcome_unknown');

    const entries = f.ledger.query({ taskId: task.id, limit: 100 });
    const named = (kind: string) => entries.filter((entry) => entry.kind === kind).map((entry) => entry.principal);
    expect(named('call_started')).toEqual(['agent:bot']);
    expect(named('call_finished')).toEqual(['agent:bot']);
    expect(named('cancellation')).toEqual(['operator']);
    expect(entries.find((entry) => entry.kind === 'task_transition' && entry.details.to === 'running')?.principal).toBe('agent:bot');
    expect(entries.find((entry) => entry.kind === 'task_transition' && entry.details.to === 'cancelled')?.principal).toBe('operator');
  });

  it('keeps the principal through timers and promise chains, and is `system` outside any request', async () => {
    expect(currentPrincipal()).toBe('system');
    const later = await runAs('agent:a', () => new Promise((resolve) => setTimeout(() => void Promise.resolve().then(() => resolve(currentPrincipal())), 5)));
    expect(later).toBe('agent:a');
    const [a, b] = await Promise.all([runAs('agent:a', async () => currentPrincipal()), runAs('operator', async () => currentPrincipal())]);
    expect([a, b]).toEqual(['agent:a', 'operator']);
  });

  it('writes restart recovery as `system`', async () => {
    const f = await runtimeFixture({ graceMs: 50, tools: [stubbornWrite] });
    runAs('agent:bot', () => f.runtime.start('agent:bot', 'left running'));
    await f.ledger.durable();
    const restarted = await f.restart();
    cleanups.push(() => restarted.close());
    const last = restarted.ledger.tail(1)[0]!;
    expect(last).toMatchObject({ kind: 'task_transition', principal: 'system', details: { to: 'failed', reason: 'gateway restarted' } });
  });
});

describe('hashing principals into the chain', () => {
  /** The hash as it was computed before principals existed: the entry without the field. */
  const legacyHash = (entry: Record<string, unknown>) => createHash('sha256').update(entry.prevHash as string).update(canonicalJson({ ...entry, prevHash: undefined })).digest('hex');

  /** A data dir whose ledger was written before migration 4, with entries 1..count. */
  function legacyLedger(count: number): string {
    const dir = tempDir();
    const db = new DatabaseSync(join(dir, DATABASE_FILE));
    for (const [index, sql] of migrations.slice(0, 3).entries()) db.exec(`${sql}; PRAGMA user_version = ${index + 1};`);
    let prevHash = '0'.repeat(64);
    for (let seq = 1; seq <= count; seq++) {
      const entry = { seq, at: new Date(0).toISOString(), kind: 'steer', taskId: 't', sessionId: 'operator', requestId: null, capability: null, details: { n: seq }, prevHash };
      const hash = legacyHash(entry);
      db.prepare('INSERT INTO ledger (seq, at, kind, task_id, session_id, request_id, capability, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
        seq, entry.at, entry.kind, entry.taskId, entry.sessionId, null, null, canonicalJson(entry.details), prevHash, hash,
      );
      prevHash = hash;
    }
    db.close();
    return dir;
  }

  function reopen(dir: string) {
    const db = openDatabase(dir);
    cleanups.unshift(() => db.isOpen && db.close());
    return { db, ledger: new Ledger(db, loadLedgerKey(dir, db)) };
  }

  it('verifies a ledger written before principals, continued with entries that name theirs', async () => {
    const dir = legacyLedger(3);
    const { ledger } = reopen(dir);
    expect(ledger.reseal()).toMatchObject({ ok: true, entries: 3 });
    runAs('agent:bot', () => ledger.append({ kind: 'steer', details: { n: 4 } }));
    ledger.append({ kind: 'steer', details: { n: 5 }, principal: 'operator' });
    await ledger.durable();
    expect(ledger.verify()).toMatchObject({ ok: true, entries: 5 });
    expect(ledger.query().map((entry) => entry.principal)).toEqual([null, null, null, 'agent:bot', 'operator']);
  });

  it.each([
    ['an old entry given a principal', 'UPDATE ledger SET principal = \'operator\' WHERE seq = 2', 2],
    ['a new entry stripped of its principal', 'UPDATE ledger SET principal = NULL WHERE seq = 4', 4],
    ["a new entry's principal changed", "UPDATE ledger SET principal = 'operator' WHERE seq = 4", 4],
  ])('reports %s as an edited entry', async (_what, sql, seq) => {
    const dir = legacyLedger(3);
    const { db, ledger } = reopen(dir);
    ledger.reseal();
    runAs('agent:bot', () => ledger.append({ kind: 'steer', details: { n: 4 } }));
    ledger.append({ kind: 'steer', details: { n: 5 } });
    await ledger.durable();
    db.exec(`DROP TRIGGER ledger_no_update; ${sql}`);
    expect(ledger.verify()).toMatchObject({ ok: false, problem: 'edited', brokenAt: seq });
  });
});

describe('agent tokens', () => {
  function tokens(now = () => Date.now()) {
    const dir = tempDir();
    const db = openDatabase(dir);
    cleanups.unshift(() => db.isOpen && db.close());
    return { db, dir, tokens: new AgentTokens(db, now) };
  }

  it('makes a high-entropy token shown once, keeps only its SHA-256, and authenticates it', () => {
    const { db, tokens: store } = tokens();
    const { agent, token } = store.create('claude-desktop');
    expect(agent).toMatchObject({ name: 'claude-desktop', principal: 'agent:claude-desktop', lastUsedAt: null });
    expect(token).toMatch(new RegExp(`^${AGENT_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`));
    const stored = db.prepare('SELECT * FROM agent_tokens').all();
    expect(JSON.stringify(stored)).not.toContain(token.slice(AGENT_TOKEN_PREFIX.length));
    expect(stored).toEqual([expect.objectContaining({ name: 'claude-desktop', token_hash: createHash('sha256').update(token).digest('hex') })]);
    expect(store.authenticate(token)).toBe('claude-desktop');
    expect(store.authenticate(`${token}x`)).toBeUndefined();
  });

  it('refuses a name in use, lets a revoked name be used again, and the old token stays dead', () => {
    const { tokens: store } = tokens();
    const first = store.create('bot');
    expect(() => store.create('bot')).toThrow(expect.objectContaining({ code: 'AGENT_EXISTS' }));
    store.revoke('bot');
    expect(store.authenticate(first.token)).toBeUndefined();
    expect(() => store.revoke('bot')).toThrow(expect.objectContaining({ code: 'AGENT_NOT_FOUND' }));
    const second = store.create('bot');
    expect(store.authenticate(second.token)).toBe('bot');
    expect(store.authenticate(first.token)).toBeUndefined();
  });

  it('notes the last use at most once a minute, and another connection sees creations and revocations at once', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { db, dir, tokens: store } = tokens(() => now);
    const { token } = store.create('bot');
    store.authenticate(token);
    GroupCommit.of(db).flush(); // the batch the use joined, committed now rather than when an answer or its time asks
    expect(store.list()[0]!.lastUsedAt).toBe('2026-01-01T00:00:00.000Z');
    now += 30_000;
    store.authenticate(token);
    expect(db.isTransaction).toBe(false);
    now += 31_000;
    store.authenticate(token);
    GroupCommit.of(db).flush();
    expect(store.list()[0]!.lastUsedAt).toBe('2026-01-01T00:01:01.000Z');

    // Another process's connection to the same file, as `capstan token` has.
    const other = openDatabase(dir);
    cleanups.unshift(() => other.close());
    const made = new AgentTokens(other).create('cli-made');
    expect(store.authenticate(made.token)).toBe('cli-made');
    // The gateway's batch (its lastUsedAt) commits when an answer or its time asks; the test commits it by hand.
    GroupCommit.of(db).flush();
    new AgentTokens(other).revoke('cli-made');
    expect(store.authenticate(made.token)).toBeUndefined();
  });

  it('turns a bearer header into a principal: the operator token, an agent token, or none', () => {
    const { tokens: store } = tokens();
    const { token } = store.create('bot');
    const authenticate = bearerAuthenticator('operator-token-0123456789', store);
    expect(authenticate('Bearer operator-token-0123456789')).toBe('operator');
    expect(authenticate(`bearer ${token}`)).toBe('agent:bot');
    expect(authenticate('Bearer nope')).toBeUndefined();
    expect(authenticate(undefined)).toBeUndefined();
    expect(authenticate(token)).toBeUndefined();
    // Without the agent store, only the operator's token counts.
    expect(bearerAuthenticator('operator-token-0123456789')(`Bearer ${token}`)).toBeUndefined();
  });
});

describe('the authorization table', () => {
  const names = Object.keys(operations) as OperationName[];

  it('lets the operator run everything and an agent only what is open to any principal', () => {
    for (const name of names) {
      expect(() => authorize(name, 'operator', {})).not.toThrow();
      if (operations[name].audience === 'any') expect(() => authorize(name, 'agent:bot', {}), name).not.toThrow();
      else expect(() => authorize(name, 'agent:bot', {}), name).toThrow(expect.objectContaining({ code: 'FORBIDDEN_FOR_AGENT' }));
    }
  });

  it('gives agents discovery and calls, and nothing that changes policy or reads the operator’s views', () => {
    const open = names.filter((name) => operations[name].audience === 'any').sort();
    // MCP servers' resources and prompts are read and got like calls, under the agent's grants.
    const declared = ['listResources', 'readResource', 'listPrompts', 'getPrompt', 'completeArgument'];
    expect(open).toEqual(
      ['callTool', 'cancelCall', 'cancelTask', 'capabilitiesInspect', 'capabilitiesList', 'capabilitiesSearch', 'listTasks', 'listTools', 'skillsActivate', 'taskAction', 'toolsLoad', ...declared].sort(),
    );
  });

  it('refuses an agent that sends a confirmation, whatever it holds', () => {
    expect(() => authorize('callTool', 'agent:bot', { tool: 'http_check', confirmation: 'anything' })).toThrow(expect.objectContaining({ code: 'FORBIDDEN_FOR_AGENT' }));
    expect(() => authorize('callTool', 'agent:bot', { tool: 'time_now' })).not.toThrow();
    expect(() => authorize('callTool', 'operator', { tool: 'http_check', confirmation: 'x' })).not.toThrow();
  });

  it('keeps agents in sessions of their own', () => {
    expect(ownsSession('agent:bot', 'agent:bot')).toBe(true);
    expect(ownsSession('agent:bot', sessionFor('agent:bot', 'mcp-1'))).toBe(true);
    expect(ownsSession('agent:bot', 'agent:bot2')).toBe(false);
    expect(ownsSession('agent:bot', 'agent:bo')).toBe(false);
    expect(ownsSession('agent:bot', 'operator')).toBe(false);
    expect(ownsSession('operator', 'agent:bot')).toBe(true);
    expect(sessionFor('operator', 'mcp-1')).toBe('operator/mcp-1');
  });
});
