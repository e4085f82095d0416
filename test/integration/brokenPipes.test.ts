/**
 * Issue 18 item 15: a reader that goes away. The built CLI, spawned as a shell pipeline would run
 * it, with its stdout (and stderr) going to a reader that closes early, as `| head -1` does, or
 * that never reads at all: `capstan serve` keeps serving and exits promptly on SIGTERM, and
 * `capstan ledger export` stops quietly, in each case without an EPIPE stack trace.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHost } from '../../electron/host';
import { CLI } from '../support/serveProcess';

const TOKEN = 'broken-pipes-token-0123456789';
const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-pipes-'));
  dirs.push(dir);
  return dir;
};

function capstan(args: string[]) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAPSTAN_')));
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...env, CAPSTAN_TOKEN: TOKEN } });
  children.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, exited };
}

/** Reads the stream up to its first line, then closes it: what `head -1` does to its pipe. */
function firstLineThenClose(stream: NodeJS.ReadableStream & { destroy(): void }): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end < 0) return;
      stream.off('data', onData);
      stream.destroy();
      resolve(text.slice(0, end));
    };
    stream.on('data', onData);
  });
}

/** The gateway's URL, from `<data dir>/gateway.json` (its console line may have nowhere to go). */
async function gatewayUrl(dir: string): Promise<string> {
  const file = join(dir, 'gateway.json');
  for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, 'utf8')) as { url: string }).url;
      } catch {
        // Being written.
      }
    }
  }
  throw new Error('the gateway never wrote gateway.json');
}

const get = async (url: string, path: string) => (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status;
const STACK = /EPIPE|\n\s+at .+:\d+:\d+/;

/** SIGTERM, then how long the process took to exit and how. */
async function terminate(run: ReturnType<typeof capstan>) {
  const sent = Date.now();
  run.child.kill('SIGTERM');
  const timeout = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 8_000).unref());
  const ended = await Promise.race([run.exited, timeout]);
  return ended === 'still running' ? ended : { code: ended.code, signal: ended.signal, ms: ended.at - sent };
}

describe('capstan serve with a reader that goes away', () => {
  it('serves with its stdout closed under it, and exits at once on SIGTERM without a stack trace', async () => {
    const dir = dataDir();
    const run = capstan(['serve', '--port', '0', '--data-dir', dir]);
    run.child.stdout.destroy();
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await gatewayUrl(dir);
    // The console line is written once the skills are loaded: wait past it.
    await expect.poll(() => stderr.includes('gateway listening'), { timeout: 20_000 }).toBe(true);
    expect(await get(url, '/tools')).toBe(200);
    expect(run.child.exitCode).toBeNull();
    const ended = await terminate(run);
    expect(ended).toMatchObject({ code: 0 });
    expect(stderr).not.toMatch(STACK);
  }, 40_000);

  it('exits promptly on SIGTERM with stdout and stderr piped to a reader that read one line and closed', async () => {
    const dir = dataDir();
    const run = capstan(['serve', '--port', '0', '--data-dir', dir, '--log-level', 'debug']);
    const [line] = await Promise.all([firstLineThenClose(run.child.stdout), firstLineThenClose(run.child.stderr)]);
    expect(line).toMatch(/Capstan console: http:|^\{/);
    const url = await gatewayUrl(dir);
    // Log lines with nowhere to go.
    for (let i = 0; i < 20; i++) expect(await get(url, '/tools')).toBe(200);
    expect(await terminate(run)).toMatchObject({ code: 0, ms: expect.any(Number) });
  }, 40_000);

  it('exits promptly on SIGTERM with stderr piped to a reader that never reads (the pipe full)', async () => {
    const dir = dataDir();
    const run = capstan(['serve', '--port', '0', '--data-dir', dir, '--log-level', 'trace']);
    run.child.stdout.resume();
    run.child.stderr.pause();
    const url = await gatewayUrl(dir);
    // Far more log than the pipe and this reader's buffer hold (64 KiB each), none of it read:
    // a request's log line is some 165 bytes.
    for (let i = 0; i < 2_000; i += 20) await Promise.all(Array.from({ length: 20 }, () => get(url, '/tools')));
    expect(await get(url, '/tools')).toBe(200);
    expect(await terminate(run)).toMatchObject({ code: 0 });
  }, 60_000);
});

describe('capstan ledger export | head -1', () => {
  it('stops quietly, exit 0, once the reader has its line', async () => {
    const dir = dataDir();
    const host = await createHost({ dataDir: dir });
    for (let i = 0; i < 6_000; i++) host.ledger.append({ kind: 'steer', taskId: `task-${i}`, details: { note: 'x'.repeat(200) } });
    await host.ledger.durable();
    await host.close();

    const run = capstan(['ledger', 'export', '--data-dir', dir]);
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = Date.now();
    const line = await firstLineThenClose(run.child.stdout);
    expect(JSON.parse(line)).toMatchObject({ seq: 1 });
    const ended = await Promise.race([run.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 8_000).unref())]);
    expect(ended).toMatchObject({ code: 0 });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(stderr).toBe('');
  }, 40_000);
});
