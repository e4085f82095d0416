/**
 * A database that cannot grow, as on a full disk: SQLite's `max_page_count` on the gateway's own
 * connection makes every write that needs a new page fail with SQLITE_FULL ("database or disk is
 * full") and roll its whole transaction back, which is what a full disk does to a batch of ledger
 * entries. The gateway must stay up, refuse calls it cannot record, and go on with an unbroken
 * chain once there is room again.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { CLI, startHostWithTestTools } from '../support/serveProcess';

const UNLIMITED = 1_073_741_823;

describe('a full disk', () => {
  let capstan: TestGateway;
  beforeEach(async () => {
    capstan = await startTestGateway();
  });
  afterEach(async () => {
    capstan.host.db.exec(`PRAGMA max_page_count = ${UNLIMITED}`);
    await capstan.stop();
  });

  const fill = () => {
    const { page_count: pages } = capstan.host.db.prepare('PRAGMA page_count').get() as { page_count: number };
    capstan.host.db.exec(`PRAGMA max_page_count = ${pages}`);
  };
  const largeArguments = (n: number) => ({ tool: 'time_now', arguments: {}, requestId: `full-${n}`, sessionId: `full-session-${n}` });

  it('refuses what it cannot record with LEDGER_UNAVAILABLE and stays up; once there is room the chain goes on without a gap', async () => {
    expect((await capstan.call({ tool: 'time_now', arguments: {} })).status).toBe(200);
    fill();
    // Many at once, so that one batch holds several calls' entries when the database refuses to grow.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => capstan.call(largeArguments(n))));
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({ code: 'LEDGER_UNAVAILABLE' });
      expect(String(answer.body.error?.message)).toContain('database or disk is full');
    }
    // Still serving, and still refusing while the database cannot grow.
    expect((await capstan.request('/tools')).status).toBe(200);
    const whileFull = await capstan.call({ tool: 'time_now', arguments: {}, requestId: 'while-full', sessionId: 'after' });
    expect(whileFull).toMatchObject({ status: 503, body: { error: { code: 'LEDGER_UNAVAILABLE' } } });

    capstan.host.db.exec(`PRAGMA max_page_count = ${UNLIMITED}`);
    const after = await capstan.call({ tool: 'time_now', arguments: {}, requestId: 'after-room', sessionId: 'after' });
    expect(after.status).toBe(200);
    const verification = capstan.host.ledger.verify();
    expect(verification).toMatchObject({ ok: true });
    // What a client heard succeed is on record; what it heard refused after its start was written may be too, never half of a batch.
    for (const [n, answer] of answers.entries()) {
      if (answer.status === 200) expect(capstan.host.ledger.query({ requestId: `full-${n}`, kind: 'call_finished' })).toHaveLength(1);
    }
    expect(capstan.host.ledger.query({ requestId: 'after-room', kind: 'call_finished' })).toHaveLength(1);
  });
});

describe('a disk that fills up under a running gateway', () => {
  it('runs no call, once a write has failed, before its start is on disk: a write that cannot be recorded never happens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-full-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ grants: [{ pattern: 'builtin:*', authority: 'execute' }, { pattern: 'test:*', authority: 'execute' }] }));
    const marker = join(dataDir, 'marker');
    const token = 'disk-full-token-0123456789';
    // Every file the process writes stops at 400 KB: the WAL reaches it after a few dozen calls,
    // and its COMMIT fails while each call's entries still fit in SQLite's page cache.
    const gateway = await startHostWithTestTools(dataDir, token, { fileSizeLimit: 400 * 1024 });
    const call = async (body: Record<string, unknown>) => {
      const response = await fetch(`${gateway.url}/tools/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
    };
    try {
      let failed: Awaited<ReturnType<typeof call>> | undefined;
      for (let n = 0; n < 2_000 && !failed; n++) {
        const answer = await call({ tool: 'time_now', arguments: {} });
        if (answer.status !== 200) failed = answer;
      }
      expect(failed).toMatchObject({ status: 503, body: { error: { code: 'LEDGER_UNAVAILABLE' } } });

      const refused = await call({ tool: 'marker_write', arguments: { path: marker }, requestId: 'unrecordable-write' });
      expect(refused).toMatchObject({ status: 503, body: { error: { code: 'LEDGER_UNAVAILABLE' } } });
      expect(existsSync(marker)).toBe(false);
      expect((await fetch(`${gateway.url}/tools`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    // What did reach the disk is one unbroken chain.
    const verify = spawnSync(process.execPath, [CLI, 'ledger', 'verify', '--data-dir', dataDir], { encoding: 'utf8' });
    rmSync(dataDir, { recursive: true, force: true });
    expect(verify.stdout).toMatch(/^ledger ok: \d+ entries/);
  });
});
