/**
 * Tampering with the ledger's files, named by `GET /ledger/verify` while the gateway runs and by
 * `capstan ledger verify` once it has stopped; a malformed ledger.key stops `capstan serve`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LEDGER_HEAD_FILE, LEDGER_KEY_FILE } from '../../electron/runtime/ledger';
import { LEDGER_PROBLEM_NAMES, type LedgerVerification } from '../../shared/ledger';
import { startTestGateway } from '../support/gateway';
import { CLI, startServe } from '../support/serveProcess';
import { appendForged, MIN_ENTRIES, tamperings, toPreMacLedger } from '../support/tamper';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-tamper-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const capstan = (dataDir: string, ...args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { encoding: 'utf8' });

describe('a tampered ledger', () => {
  it.each(tamperings)('$problem ($what): named by GET /ledger/verify and by capstan ledger verify', async ({ problem, brokenAt, apply }) => {
    const dataDir = freshDir();
    const gw = await startTestGateway({ dataDir });
    let running = true;
    try {
      // Each call writes at least two entries.
      for (let i = 0; i < MIN_ENTRIES / 2; i++) expect((await gw.call({ tool: 'time_now' })).status).toBe(200);
      const intact = (await (await gw.request('/ledger/verify')).json()) as LedgerVerification & { ok: true };
      expect(intact).toMatchObject({ ok: true, sealedSeq: intact.lastSeq });
      const head = intact.lastSeq;

      apply(dataDir);
      const response = await gw.request('/ledger/verify');
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ok: false, problem, brokenAt: brokenAt(head), reason: expect.any(String) });
      await gw.stop();
      running = false;

      const verify = capstan(dataDir, 'ledger', 'verify');
      expect(verify.stdout).toMatch(new RegExp(`^ledger BROKEN at seq ${brokenAt(head)}, ${LEDGER_PROBLEM_NAMES[problem]}: `));
      expect(verify.status).toBe(1);
    } finally {
      if (running) await gw.stop();
    }
  });

  it('a tail cut off while the gateway was stopped is named after it restarts, and reseal is refused once the gap is in the chain', async () => {
    const dataDir = freshDir();
    const first = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 'tamper-token-0123', '--log-level', 'warn']);
    const get = async (url: string, path: string) => (await fetch(`${url}${path}`, { headers: { authorization: 'Bearer tamper-token-0123' } })).json() as Promise<Record<string, unknown>>;
    const call = (url: string) =>
      fetch(`${url}/tools/call`, { method: 'POST', headers: { authorization: 'Bearer tamper-token-0123', 'content-type': 'application/json' }, body: '{"tool":"time_now"}' });
    for (let i = 0; i < MIN_ENTRIES / 2; i++) await call(first.url);
    const { lastSeq: head } = (await get(first.url, '/ledger?limit=1')) as { lastSeq: number };
    first.child.kill('SIGTERM');
    await first.exited;

    tamperings.find((t) => t.problem === 'truncated')!.apply(dataDir);
    const again = await startServe(['--port', '0', '--data-dir', dataDir, '--token', 'tamper-token-0123', '--log-level', 'warn']);
    try {
      await call(again.url);
      // New entries number on after the sealed head: the cut-off entries stay a visible gap.
      expect(await get(again.url, '/ledger/verify')).toMatchObject({ ok: false, problem: 'deleted', brokenAt: head - 1, reason: `entries #${head - 1} to #${head} are missing` });
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
    const reseal = capstan(dataDir, 'ledger', 'reseal');
    expect(reseal.status).toBe(1);
    expect(reseal.stdout).toMatch(/deleted entries: .*\nnot resealed/);
  });

  it('capstan ledger reseal accepts a ledger whose checkpoint is missing, once its chain holds', async () => {
    const dataDir = freshDir();
    const gw = await startTestGateway({ dataDir });
    await gw.call({ tool: 'time_now' });
    await gw.stop();
    tamperings.find((t) => t.problem === 'checkpoint_missing')!.apply(dataDir);
    const verify = capstan(dataDir, 'ledger', 'verify');
    expect(verify.status).toBe(1);
    expect(verify.stdout).toContain('`capstan ledger reseal` accepts it as it is');
    const reseal = capstan(dataDir, 'ledger', 'reseal');
    const [, head] = /^ledger ok: (\d+) entries, chain verified up to seq \1, ledger.head resealed at this head$/m.exec(reseal.stdout) ?? [];
    expect(Number(head)).toBeGreaterThanOrEqual(2);
    expect(reseal.status).toBe(0);
    expect(capstan(dataDir, 'ledger', 'verify').stdout).toBe(`ledger ok: ${head} entries, chain verified up to seq ${head}, sealed at seq ${head}\n`);
  });
});

describe('entries written without ledger.key', () => {
  const sealedHead = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, LEDGER_HEAD_FILE), 'utf8')) as { seq: number; macFrom?: number };

  it('a correctly chained approval appended while the gateway was stopped is named forged at its seq, and the next start does not seal it', async () => {
    const dataDir = freshDir();
    const first = await startTestGateway({ dataDir });
    for (let i = 0; i < MIN_ENTRIES / 2; i++) expect((await first.call({ tool: 'time_now' })).status).toBe(200);
    await first.stop();
    const head = sealedHead(dataDir).seq;

    // As an attacker who can read and write capstan.sqlite but not ledger.key: the hash chains.
    const forgedSeq = appendForged(dataDir);
    expect(forgedSeq).toBe(head + 1);
    const verify = capstan(dataDir, 'ledger', 'verify');
    expect(verify.stdout).toMatch(new RegExp(`^ledger BROKEN at seq ${forgedSeq}, forged entry: it carries no MAC`));
    expect(verify.status).toBe(1);

    const again = await startTestGateway({ dataDir });
    try {
      expect((await again.call({ tool: 'time_now' })).status).toBe(200);
      expect(await (await again.request('/ledger/verify')).json()).toMatchObject({ ok: false, problem: 'forged', brokenAt: forgedSeq });
    } finally {
      await again.stop();
    }
    // Neither the start nor the commits since moved the checkpoint over the forged entry.
    expect(sealedHead(dataDir)).toEqual(expect.objectContaining({ seq: head, macFrom: 1 }));
    expect(capstan(dataDir, 'ledger', 'verify').stdout).toMatch(new RegExp(`^ledger BROKEN at seq ${forgedSeq}, forged entry: `));
    const reseal = capstan(dataDir, 'ledger', 'reseal');
    expect(reseal.stdout).toMatch(/forged entry: .*\nnot resealed/);
    expect(reseal.status).toBe(1);
  });

  it('a ledger from before entry MACs verifies as before, says which entries the chain alone vouches for, and MACs the entries after', async () => {
    const dataDir = freshDir();
    const old = await startTestGateway({ dataDir });
    for (let i = 0; i < MIN_ENTRIES / 2; i++) await old.call({ tool: 'time_now' });
    await old.stop();
    toPreMacLedger(dataDir);
    const head = sealedHead(dataDir).seq;

    const verify = capstan(dataDir, 'ledger', 'verify');
    expect(verify.stdout).toBe(
      `ledger ok: ${head} entries, chain verified up to seq ${head}, sealed at seq ${head}\n` +
        `note: entries #1 to #${head} were written before entries carried a keyed MAC, and verified by the hash chain alone\n`,
    );
    expect(verify.status).toBe(0);

    const upgraded = await startTestGateway({ dataDir });
    try {
      await upgraded.call({ tool: 'time_now' });
      const result = (await (await upgraded.request('/ledger/verify')).json()) as LedgerVerification & { ok: true };
      expect(result).toMatchObject({ ok: true, sealedSeq: result.lastSeq, chainOnlyThrough: head });
      expect(result.lastSeq).toBeGreaterThan(head);
    } finally {
      await upgraded.stop();
    }
    expect(sealedHead(dataDir).macFrom).toBe(head + 1);
    expect(capstan(dataDir, 'ledger', 'verify').stdout).toMatch(
      new RegExp(`\nnote: entries #1 to #${head} were written before entries carried a keyed MAC, and verified by the hash chain alone; the entries after it carry one, verified\n$`),
    );
    const forgedSeq = appendForged(dataDir);
    expect(capstan(dataDir, 'ledger', 'verify').stdout).toMatch(new RegExp(`^ledger BROKEN at seq ${forgedSeq}, forged entry: `));
  });
});

describe('a malformed ledger.key', () => {
  it('stops capstan serve with a message naming the file, and is never replaced', async () => {
    const dataDir = freshDir();
    const keyFile = join(dataDir, LEDGER_KEY_FILE);
    writeFileSync(keyFile, 'not a key\n');
    await expect(startServe(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'])).rejects.toThrow(
      `capstan serve: ${keyFile} is not a valid ledger key: it holds characters other than hexadecimal digits`,
    );
    expect(readFileSync(keyFile, 'utf8')).toBe('not a key\n');
  });
});
