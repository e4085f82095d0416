import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { LEDGER_KEY_FILE, Ledger, loadLedgerKey } from '../../electron/runtime/ledger';
import { DATABASE_FILE } from '../../electron/store/database';
import { runtimeFixture, type RuntimeFixture } from '../support/runtime';

let fixture: RuntimeFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

describe('the ledger', () => {
  it('numbers entries strictly and chains each to the one before', async () => {
    fixture = await runtimeFixture();
    const { ledger } = fixture;
    const first = ledger.append({ kind: 'task_transition', taskId: 't1', details: { from: null, to: 'running' } });
    const second = ledger.append({ kind: 'call_started', taskId: 't1', requestId: 'r1', capability: 'test:x', details: { argumentsDigest: ledger.digest({ a: 1 }) } });
    expect([first.seq, second.seq]).toEqual([1, 2]);
    expect(first.prevHash).toBe('0'.repeat(64));
    expect(second.prevHash).toBe(first.hash);
    expect(ledger.verify()).toEqual({ ok: true, entries: 2, lastSeq: 2 });
    expect(ledger.query({ requestId: 'r1' })).toEqual([second]);
    expect(ledger.query({ after: 1 })).toEqual([second]);
    expect(ledger.tail(1)).toEqual([second]);
  });

  it("commits one turn's appends together, and announces them only once they are committed", async () => {
    fixture = await runtimeFixture();
    const { ledger } = fixture;
    const reader = new DatabaseSync(join(fixture.dataDir, DATABASE_FILE), { readOnly: true });
    const committed = () => reader.prepare('SELECT seq FROM ledger ORDER BY seq').all().map((row) => row.seq as number);
    const heard: number[][] = [];
    ledger.onAppend((entry) => heard.push([entry.seq, ...committed()]));
    ledger.append({ kind: 'task_transition', details: {} });
    ledger.append({ kind: 'task_transition', details: {} });
    expect(committed()).toEqual([]);
    expect(heard).toEqual([]);
    await ledger.durable();
    expect(committed()).toEqual([1, 2]);
    expect(heard).toEqual([
      [1, 1, 2],
      [2, 1, 2],
    ]);
    ledger.append({ kind: 'task_transition', details: {} });
    ledger.flush();
    expect(committed()).toEqual([1, 2, 3]);
    reader.close();
  });

  it('is refused UPDATE and DELETE by the database itself', async () => {
    fixture = await runtimeFixture();
    fixture.ledger.append({ kind: 'task_transition', details: {} });
    expect(() => fixture!.db.exec("UPDATE ledger SET kind = 'forged'")).toThrow(/append-only/);
    expect(() => fixture!.db.exec('DELETE FROM ledger')).toThrow(/append-only/);
  });

  it('reports the first broken entry when someone gets round the triggers', async () => {
    fixture = await runtimeFixture();
    for (let i = 0; i < 5; i++) fixture.ledger.append({ kind: 'task_transition', taskId: `t${i}`, details: { i } });
    fixture.db.exec('DROP TRIGGER ledger_no_update');
    fixture.db.exec(`UPDATE ledger SET details = '{"i":99}' WHERE seq = 3`);
    expect(new Ledger(fixture.db, loadLedgerKey(fixture.dataDir)).verify()).toEqual({
      ok: false,
      entries: 2,
      brokenAt: 3,
      reason: 'its content does not match its hash',
    });
  });

  it('keeps evidence as keyed digests under a per-install key readable by its owner only', async () => {
    fixture = await runtimeFixture();
    const keyFile = join(fixture.dataDir, LEDGER_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(loadLedgerKey(fixture.dataDir)).toEqual(Buffer.from(readFileSync(keyFile, 'utf8'), 'hex'));
    const { ledger } = fixture;
    // Canonical JSON: key order does not matter; the key does.
    expect(ledger.digest({ a: 1, b: 2 })).toBe(ledger.digest({ b: 2, a: 1 }));
    expect(ledger.digest({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
    const other = await runtimeFixture();
    expect(other.ledger.digest({ a: 1 })).not.toBe(ledger.digest({ a: 1 }));
    other.close();
  });
});
