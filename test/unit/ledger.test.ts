import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '../../electron/catalog/digest';
import { entryHash } from '../../electron/runtime/ledgerChain';
import { LedgerKind } from '../../shared/ledger';
import { LEDGER_HEAD_FILE, LEDGER_KEY_FILE, Ledger, LedgerHead, loadLedgerKey } from '../../electron/runtime/ledger';
import { DATABASE_FILE, openDatabase, type Database } from '../../electron/store/database';
import { appendForged, MIN_ENTRIES, tamperings, toPreMacLedger } from '../support/tamper';

interface LedgerFixture {
  dataDir: string;
  db: Database;
  ledger: Ledger;
  /** The same data dir opened again, as a restart would. */
  reopen(): Ledger;
}

const open: { dataDir: string; db: Database }[] = [];
afterEach(() => {
  for (const { dataDir, db } of open.splice(0)) {
    if (db.isOpen) db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

function ledgerFixture(dataDir = mkdtempSync(join(tmpdir(), 'capstan-ledger-'))): LedgerFixture {
  let db = openDatabase(dataDir);
  open.push({ dataDir, db });
  const fixture: LedgerFixture = {
    dataDir,
    db,
    ledger: new Ledger(db, loadLedgerKey(dataDir, db)),
    reopen: () => {
      fixture.ledger.flush();
      db.close();
      fixture.db = db = openDatabase(dataDir);
      open.push({ dataDir, db });
      return (fixture.ledger = new Ledger(db, loadLedgerKey(dataDir, db)));
    },
  };
  return fixture;
}

/** `count` entries, committed and sealed. */
async function appendSome(ledger: Ledger, count = MIN_ENTRIES + 2): Promise<void> {
  for (let i = 0; i < count; i++) ledger.append({ kind: 'task_transition', taskId: `t${i}`, details: { i } });
  await ledger.durable();
}

describe('the ledger', () => {
  it("finds a capability's recorded holds, all of them and nothing else, through their own index (never by reading the whole ledger)", async () => {
    const { ledger, db } = ledgerFixture();
    // Calls by the thousand, and more holds of one tool than any page of a query holds.
    for (let i = 0; i < 3000; i++) ledger.append({ kind: 'call_started', requestId: `r${i}`, capability: 'srv:tool', details: { i } });
    for (let i = 0; i < 1200; i++) ledger.append({ kind: 'contract_held', capability: 'srv:tool', details: { currentHash: `h${i}` } });
    ledger.append({ kind: 'contract_held', capability: 'srv:other', details: { currentHash: 'x' } });
    ledger.append({ kind: 'contract_held', details: { provider: 'srv', server: true, currentHash: 's' } });
    await ledger.durable();
    const holds = ledger.holdsOf('srv:tool');
    expect(holds).toHaveLength(1200);
    expect(holds.every((entry) => entry.kind === 'contract_held' && entry.capability === 'srv:tool')).toBe(true);
    expect(holds.at(-1)!.details.currentHash).toBe('h1199');
    expect(ledger.holdsOf(null).map((entry) => entry.details)).toEqual([{ provider: 'srv', server: true, currentHash: 's' }]);
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT * FROM ledger WHERE kind = 'contract_held' AND capability IS ? ORDER BY seq").all('srv:tool') as { detail: string }[];
    expect(plan.map((step) => step.detail)).toEqual(['SEARCH ledger USING INDEX ledger_holds (capability=?)']);
  });

  it('numbers entries strictly and chains each to the one before', () => {
    const { ledger } = ledgerFixture();
    const first = ledger.append({ kind: 'task_transition', taskId: 't1', details: { from: null, to: 'running' } });
    const second = ledger.append({ kind: 'call_started', taskId: 't1', requestId: 'r1', capability: 'test:x', details: { argumentsDigest: ledger.digest({ a: 1 }) } });
    expect([first.seq, second.seq]).toEqual([1, 2]);
    expect(first.prevHash).toBe('0'.repeat(64));
    expect(second.prevHash).toBe(first.hash);
    ledger.flush();
    expect(ledger.verify()).toEqual({ ok: true, entries: 2, lastSeq: 2, sealedSeq: 2, chainOnlyThrough: 0 });
    expect(ledger.query({ requestId: 'r1' })).toEqual([second]);
    expect(ledger.query({ after: 1 })).toEqual([second]);
    expect(ledger.tail(1)).toEqual([second]);
  });

  it('commits appends together once someone waits for them, and announces them only once they are committed', async () => {
    const { ledger, dataDir } = ledgerFixture();
    const reader = new DatabaseSync(join(dataDir, DATABASE_FILE), { readOnly: true });
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

  it('tells each flush once, after its entries, with how long it was waited for: from being asked, not from the first append', async () => {
    const { ledger } = ledgerFixture();
    const heard: string[] = [];
    const waited: number[] = [];
    ledger.onAppend((entry) => heard.push(`entry ${entry.seq}`));
    ledger.onFlushed((seconds) => {
      heard.push('flushed');
      waited.push(seconds);
    });
    ledger.append({ kind: 'call_started', details: {} });
    // The call runs 30 ms, its start waiting on purpose for the end's answer to commit it along.
    const appended = performance.now();
    while (performance.now() - appended < 30);
    ledger.append({ kind: 'call_finished', details: {} });
    const asked = performance.now();
    await ledger.durable();
    const sinceAsked = (performance.now() - asked) / 1000;
    expect(heard).toEqual(['entry 1', 'entry 2', 'flushed']);
    expect(waited[0]).toBeLessThanOrEqual(sinceAsked);
    await ledger.durable();
    expect(heard).toHaveLength(3);
  });

  it('is refused UPDATE and DELETE by the database itself', () => {
    const { ledger, db } = ledgerFixture();
    ledger.append({ kind: 'task_transition', details: {} });
    ledger.flush();
    expect(() => db.exec("UPDATE ledger SET kind = 'forged'")).toThrow(/append-only/);
    expect(() => db.exec('DELETE FROM ledger')).toThrow(/append-only/);
  });

  it('keeps evidence as keyed digests under a per-install key readable by its owner only', () => {
    const { ledger, dataDir, db } = ledgerFixture();
    const keyFile = join(dataDir, LEDGER_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(loadLedgerKey(dataDir, db)).toEqual(Buffer.from(readFileSync(keyFile, 'utf8'), 'hex'));
    // Canonical JSON: key order does not matter; the key does.
    expect(ledger.digest({ a: 1, b: 2 })).toBe(ledger.digest({ b: 2, a: 1 }));
    expect(ledger.digest({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
    expect(ledgerFixture().ledger.digest({ a: 1 })).not.toBe(ledger.digest({ a: 1 }));
  });
});

describe('entry hashes', () => {
  // The hash made from an entry's members (so an append canonicalizes its details once) must be
  // the one every ledger was written with: the canonical JSON of the whole entry, as verify reads it.
  it('are the SHA-256 of the previous hash and the canonical JSON of the whole entry, whatever its members hold', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 20 });
    const entry = fc.record({
      seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      at: text,
      kind: fc.constantFrom(...LedgerKind.options),
      taskId: fc.option(text),
      sessionId: fc.option(text),
      requestId: fc.option(text),
      capability: fc.option(text),
      principal: fc.option(text),
      details: fc.dictionary(text, fc.jsonValue()),
      prevHash: fc.stringMatching(/^[0-9a-f]{64}$/),
    });
    fc.assert(
      fc.property(entry, (unhashed) => {
        const whole = canonicalJson({ ...unhashed, prevHash: undefined, principal: unhashed.principal ?? undefined });
        expect(entryHash(unhashed)).toBe(createHash('sha256').update(unhashed.prevHash + whole).digest('hex'));
      }),
    );
  });
});

describe('tamper evidence', () => {
  it.each(tamperings)('names $problem when $what, and the seq where it breaks', async ({ problem, brokenAt, apply }) => {
    const { ledger, dataDir, reopen } = ledgerFixture();
    await appendSome(ledger);
    const head = ledger.lastSeq;
    expect(ledger.verify()).toMatchObject({ ok: true, lastSeq: head, sealedSeq: head });
    apply(dataDir);
    expect(ledger.verify()).toMatchObject({ ok: false, problem, brokenAt: brokenAt(head) });
    // The same after a restart: the evidence is in the files, not in this process.
    expect(reopen().verify()).toMatchObject({ ok: false, problem, brokenAt: brokenAt(head) });
  });

  it('names an entry whose details are no longer JSON as edited, rather than failing', async () => {
    const { ledger, db } = ledgerFixture();
    await appendSome(ledger);
    db.exec('DROP TRIGGER ledger_no_update');
    db.exec("UPDATE ledger SET details = '{not json' WHERE seq = 2");
    expect(ledger.verify()).toEqual({ ok: false, entries: 1, problem: 'edited', brokenAt: 2, reason: 'its details are not the JSON that was written' });
  });

  it('keeps a cut-off tail visible: new entries number on after the sealed head, leaving a gap', async () => {
    const fixture = ledgerFixture();
    await appendSome(fixture.ledger, 8);
    tamperings.find((t) => t.problem === 'truncated')!.apply(fixture.dataDir);
    const ledger = fixture.reopen();
    expect(ledger.verify()).toMatchObject({ ok: false, problem: 'truncated', brokenAt: 7 });
    expect(ledger.append({ kind: 'task_transition', details: {} }).seq).toBe(9);
    await ledger.durable();
    expect(ledger.verify()).toEqual({ ok: false, entries: 6, problem: 'deleted', brokenAt: 7, reason: 'entries #7 to #8 are missing' });
  });

  it('writes the checkpoint once per group commit, not per entry', async () => {
    const { ledger } = ledgerFixture();
    const write = vi.spyOn(LedgerHead.prototype, 'write');
    try {
      for (let i = 0; i < 100; i++) ledger.append({ kind: 'task_transition', details: { i } });
      await ledger.durable();
      expect(write).toHaveBeenCalledTimes(1);
      expect(write).toHaveBeenLastCalledWith({ seq: 100, hash: ledger.tail(1)[0]!.hash, macFrom: 1 });
    } finally {
      write.mockRestore();
    }
  });

  it('does not write over a checkpoint that does not vouch for the table; reseal accepts the table as it is, if its chain holds', async () => {
    const fixture = ledgerFixture();
    await appendSome(fixture.ledger);
    const headFile = join(fixture.dataDir, LEDGER_HEAD_FILE);
    rmSync(headFile);
    const ledger = fixture.reopen();
    await appendSome(ledger, 2);
    // Not recreated by the commits since: that would erase the evidence.
    expect(existsSync(headFile)).toBe(false);
    expect(ledger.verify()).toMatchObject({ ok: false, problem: 'checkpoint_missing', brokenAt: ledger.lastSeq });

    expect(ledger.reseal()).toEqual({ ok: true, entries: ledger.lastSeq, lastSeq: ledger.lastSeq, sealedSeq: ledger.lastSeq, chainOnlyThrough: 0 });
    expect(statSync(headFile).mode & 0o777).toBe(0o600);
    await appendSome(ledger, 1);
    expect(ledger.verify()).toMatchObject({ ok: true, sealedSeq: ledger.lastSeq });

    tamperings.find((t) => t.problem === 'edited')!.apply(fixture.dataDir);
    expect(ledger.reseal()).toMatchObject({ ok: false, problem: 'edited', brokenAt: 3 });
  });
});

describe('entry MACs', () => {
  const headRecord = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, LEDGER_HEAD_FILE), 'utf8')) as { seq: number; macFrom?: number };

  it('does not seal a forged tail at the next start, and reseal refuses it', async () => {
    const fixture = ledgerFixture();
    await appendSome(fixture.ledger);
    const head = fixture.ledger.lastSeq;
    fixture.ledger.flush();
    expect(appendForged(fixture.dataDir)).toBe(head + 1);
    const ledger = fixture.reopen();
    const write = vi.spyOn(LedgerHead.prototype, 'write');
    try {
      await appendSome(ledger, 2);
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
    expect(headRecord(fixture.dataDir)).toMatchObject({ seq: head, macFrom: 1 });
    const forged = { ok: false, entries: head, problem: 'forged', brokenAt: head + 1 };
    expect(ledger.verify()).toMatchObject({ ...forged, reason: expect.stringMatching(/^it carries no MAC, where every entry from #1 on must/) });
    expect(ledger.reseal()).toMatchObject(forged);
    expect(fixture.reopen().verify()).toMatchObject(forged);
  });

  it('names an entry with a made-up MAC as forged, and reseal refuses it even without a checkpoint', async () => {
    const fixture = ledgerFixture();
    await appendSome(fixture.ledger);
    const head = fixture.ledger.lastSeq;
    appendForged(fixture.dataDir, 'ab'.repeat(32));
    rmSync(join(fixture.dataDir, LEDGER_HEAD_FILE));
    const ledger = fixture.reopen();
    const forged = { ok: false, problem: 'forged', brokenAt: head + 1, reason: expect.stringMatching(/^its MAC is not the one ledger.key gives its hash/) };
    expect(ledger.verify()).toMatchObject(forged);
    expect(ledger.reseal()).toMatchObject(forged);
  });

  it('verifies a ledger from before MACs by its chain, says so, and MACs what comes after', async () => {
    const fixture = ledgerFixture();
    await appendSome(fixture.ledger);
    const head = fixture.ledger.lastSeq;
    fixture.ledger.flush();
    fixture.db.close();
    toPreMacLedger(fixture.dataDir);
    expect(headRecord(fixture.dataDir).macFrom).toBeUndefined();

    const { ledger, dataDir } = ledgerFixture(fixture.dataDir);
    expect(ledger.verify()).toEqual({ ok: true, entries: head, lastSeq: head, sealedSeq: head, chainOnlyThrough: head });
    await appendSome(ledger, 2);
    expect(ledger.verify()).toEqual({ ok: true, entries: head + 2, lastSeq: head + 2, sealedSeq: head + 2, chainOnlyThrough: head });
    // The version 1 record is replaced by the first seal, which records where MACs start.
    expect(headRecord(dataDir)).toMatchObject({ seq: head + 2, macFrom: head + 1 });
    appendForged(dataDir);
    expect(ledger.verify()).toMatchObject({ ok: false, problem: 'forged', brokenAt: head + 3 });
  });

  it('names MAC-less entries a version before MACs left unsealed as forged, until reseal accepts them', async () => {
    const fixture = ledgerFixture();
    await appendSome(fixture.ledger);
    const head = fixture.ledger.lastSeq;
    fixture.ledger.flush();
    // As the older version would have appended it, had it been killed before sealing it.
    appendForged(fixture.dataDir);
    fixture.db.close();
    toPreMacLedger(fixture.dataDir);

    const { ledger } = ledgerFixture(fixture.dataDir);
    expect(ledger.verify()).toMatchObject({ ok: false, problem: 'forged', brokenAt: head + 1 });
    await appendSome(ledger, 1);
    expect(ledger.verify()).toMatchObject({ ok: false, problem: 'forged', brokenAt: head + 1 });
    expect(ledger.reseal()).toEqual({ ok: true, entries: head + 2, lastSeq: head + 2, sealedSeq: head + 2, chainOnlyThrough: head + 1 });
  });
});

describe('the ledger key', () => {
  it.each([
    ['empty', '', /it is empty/],
    ['too short', 'ab'.repeat(16), /it holds 32 hexadecimal digits/],
    ['not hex', 'zz'.repeat(32), /characters other than hexadecimal digits/],
  ])('stops the start when it is %s, naming the file and leaving it as it was', (_what, content, found) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-key-'));
    const db = openDatabase(dataDir);
    open.push({ dataDir, db });
    const keyFile = join(dataDir, LEDGER_KEY_FILE);
    writeFileSync(keyFile, content);
    expect(() => loadLedgerKey(dataDir, db)).toThrow(found);
    expect(() => loadLedgerKey(dataDir, db)).toThrow(`${keyFile} is not a valid ledger key`);
    expect(readFileSync(keyFile, 'utf8')).toBe(content);
  });

  it('is not made again for a ledger that holds entries: the start stops naming the file, and the key put back verifies all', async () => {
    const fixture = ledgerFixture();
    await appendSome(fixture.ledger);
    const keyFile = join(fixture.dataDir, LEDGER_KEY_FILE);
    const key = readFileSync(keyFile, 'utf8');
    rmSync(keyFile);
    expect(() => fixture.reopen()).toThrow(`${keyFile} is missing, and the ledger beside it holds entries made with it: restore it from a backup`);
    expect(existsSync(keyFile)).toBe(false);
    // The commands that only read (`capstan ledger verify`) say the same, rather than call every entry forged.
    const db = fixture.db;
    expect(() => loadLedgerKey(fixture.dataDir, db, { create: false })).toThrow(/is missing/);
    writeFileSync(keyFile, key);
    expect(fixture.reopen().verify()).toMatchObject({ ok: true, entries: MIN_ENTRIES + 2 });
  });

  it('is made on the first start, and never by a command that only reads', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-key-'));
    const db = openDatabase(dataDir);
    open.push({ dataDir, db });
    const keyFile = join(dataDir, LEDGER_KEY_FILE);
    expect(loadLedgerKey(dataDir, db, { create: false })).toHaveLength(32);
    expect(existsSync(keyFile)).toBe(false);
    expect(loadLedgerKey(dataDir, db)).toEqual(Buffer.from(readFileSync(keyFile, 'utf8'), 'hex'));
  });
});

describe('file modes', () => {
  it('makes the database, its -wal and -shm, the key and the checkpoint 0600 even under umask 000', async () => {
    const previous = process.umask(0);
    try {
      const { ledger, dataDir } = ledgerFixture();
      await appendSome(ledger, 1);
      for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, LEDGER_KEY_FILE, LEDGER_HEAD_FILE]) {
        expect(statSync(join(dataDir, file)).mode & 0o777, file).toBe(0o600);
      }
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });
});
