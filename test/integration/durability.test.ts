import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, startServe } from '../support/serveProcess';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-durability-'));
const TOKEN = 'durability-token-0123';
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Export prints every entry: allow more than spawnSync's 1 MiB default.
const capstan = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });

describe('durability', () => {
  it('keeps every answered call in a verifying ledger when the server is killed with SIGKILL mid-traffic', async () => {
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--token', TOKEN, '--log-level', 'warn']);
    const answered: string[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const requestId = `kill-${w}-${i}`;
        try {
          const response = await fetch(`${serve.url}/tools/call`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ tool: i % 2 ? 'note_add' : 'todo_list', arguments: i % 2 ? { body: `note ${i}` } : {}, requestId }),
          });
          if (((await response.json()) as { ok: boolean }).ok) answered.push(requestId);
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    // Killed mid-traffic once enough calls were answered, however slow the machine is today.
    await expect.poll(() => answered.length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(30);
    serve.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    expect((await serve.exited).signal).toBe('SIGKILL');
    expect(answered.length).toBeGreaterThan(20);

    const verify = capstan('ledger', 'verify');
    expect(verify.stdout).toMatch(/^ledger ok: \d+ entries/);
    expect(verify.status).toBe(0);
    const entries = capstan('ledger', 'export')
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; requestId: string | null; seq: number });
    const finished = new Set(entries.filter((e) => e.kind === 'call_finished').map((e) => e.requestId));
    expect(answered.filter((id) => !finished.has(id))).toEqual([]);

    // A restart carries the chain on.
    const again = await startServe(['--port', '0', '--data-dir', dataDir, '--token', TOKEN, '--log-level', 'warn']);
    await fetch(`${again.url}/tools/call`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{"tool":"time_now"}' });
    again.child.kill('SIGTERM');
    await again.exited;
    expect(capstan('ledger', 'verify').status).toBe(0);
    // Two server starts, traffic and four CLI runs: more than the default 20 s on a loaded machine.
  }, 90_000);
});

describe('capstan ledger', () => {
  it('tails the last entries and exports from a sequence number as JSON lines', () => {
    const tail = capstan('ledger', 'tail', '-n', '3', '--json').stdout.trim().split('\n');
    expect(tail).toHaveLength(3);
    const seqs = tail.map((line) => (JSON.parse(line) as { seq: number }).seq);
    expect(seqs).toEqual([seqs[0]!, seqs[0]! + 1, seqs[0]! + 2]);
    const later = capstan('ledger', 'export', '--after', String(seqs[0])).stdout.trim().split('\n');
    expect(later.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(seqs.slice(1));
  });

  it('reports a broken chain with exit code 1', () => {
    const db = new DatabaseSync(join(dataDir, 'capstan.sqlite'));
    db.exec('DROP TRIGGER ledger_no_update');
    db.exec("UPDATE ledger SET capability = 'builtin:forged' WHERE seq = 5");
    db.close();
    const verify = capstan('ledger', 'verify');
    expect(verify.status).toBe(1);
    expect(verify.stdout).toMatch(/^ledger BROKEN at seq 5, edited entry: its content does not match its hash/);
    expect(capstan('ledger', 'rewind').status).toBe(2);
  });
});
