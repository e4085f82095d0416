/**
 * `capstan serve` start-up as an operator meets it: the built CLI spawned on a fresh data dir
 * with 0 and with 10,000 skills, timed from spawn to the first `GET /tools` that answers 200, to
 * the console line, and to a catalog that holds every skill; then the server's RSS after the
 * console's first full catalog read. Also `capstan --help`, the CLI's own start.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { syntheticCatalog } from './syntheticCatalog';

export interface StartupRun {
  /** Which build: `capstan`, or `compared` (CAPSTAN_BENCH_COMPARE, another build's dist/cli.js). */
  cli: string;
  skills: number;
  /** Spawn → the first `GET /tools` 200. */
  firstToolsMs: number;
  /** Spawn → the `Capstan console:` line. */
  consoleLineMs: number;
  /** Spawn → `GET /catalog` holding every skill, nothing loading. */
  catalogCompleteMs: number;
  /** The server's resident set after that catalog read, from /proc. */
  rssMB: number;
}

export interface StartupResult {
  runs: StartupRun[];
  /** `node dist/cli.js --help`, median of 5, by build. */
  helpMs: Record<string, number>;
  /** The machine's load average when the runs ended: other work on it slows every figure. */
  loadAverage: number[];
}

/** SKILL.md files shaped like real ones: a manifest, then a page of instructions. */
function writeSkills(dir: string, count: number): void {
  const docs = syntheticCatalog(count, 11);
  docs.forEach((doc, i) => {
    const name = `skill-${i}-${doc.name.replace(/[^A-Za-z0-9_.-]/g, '-')}`.slice(0, 120);
    mkdirSync(join(dir, name));
    const body = Array.from({ length: 12 }, (_, line) => `${line + 1}. ${doc.description}`).join('\n');
    writeFileSync(
      join(dir, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${doc.description}\ntags: [${doc.tags.join(', ')}]\n---\n# ${name}\n\n${body}\n`,
    );
  });
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });

const rssMB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function startOnce(name: string, cli: string, skills: number, skillsDir: string | undefined): Promise<StartupRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-start-'));
  const port = await freePort();
  const token = 'bench-token-0123456789abcdef';
  const origin = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}` };
  const args = [cli, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn', ...(skillsDir ? ['--skills-dir', skillsDir] : [])];
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, CAPSTAN_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let consoleLineMs = Number.NaN;
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      if (Number.isNaN(consoleLineMs) && text.includes('Capstan console:')) consoleLineMs = performance.now() - started;
    });
    const get = (path: string) => fetch(`${origin}${path}`, { headers }).catch(() => undefined);
    let firstToolsMs = Number.NaN;
    while (Number.isNaN(firstToolsMs)) {
      if (child.exitCode !== null) throw new Error(`capstan serve exited with ${child.exitCode}`);
      const answer = await get('/tools');
      if (answer?.status === 200) firstToolsMs = performance.now() - started;
      else await sleep(5);
    }
    let catalogCompleteMs = Number.NaN;
    while (Number.isNaN(catalogCompleteMs)) {
      const catalog = (await (await get('/catalog'))?.json()) as { capabilities: { contract: { kind: string } }[]; loading?: string[] } | undefined;
      const loaded = catalog?.capabilities.filter((entry) => entry.contract.kind === 'skill').length ?? 0;
      if (loaded >= skills && (catalog?.loading ?? []).length === 0) catalogCompleteMs = performance.now() - started;
      else await sleep(20);
    }
    // The console line may trail the catalog by a tick.
    while (Number.isNaN(consoleLineMs)) await sleep(5);
    return { cli: name, skills, firstToolsMs, consoleLineMs, catalogCompleteMs, rssMB: rssMB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Each build started `rounds` times per catalog size, the builds taking turns, so a machine
 * shared with other work weighs on both alike; the median of each.
 */
export async function benchStartup(cli: string, { rounds = 3, compareCli }: { rounds?: number; compareCli?: string | undefined } = {}): Promise<StartupResult> {
  const clis = Object.entries({ capstan: cli, ...(compareCli ? { compared: compareCli } : {}) });
  const skillsDir = mkdtempSync(join(tmpdir(), 'capstan-bench-skills-'));
  try {
    writeSkills(skillsDir, 10_000);
    const runs: StartupRun[] = [];
    for (const [skills, dir] of [[0, undefined], [10_000, skillsDir]] as const) {
      const samples = new Map<string, StartupRun[]>(clis.map(([name]) => [name, []]));
      for (let round = 0; round < rounds; round++) for (const [name, path] of clis) samples.get(name)!.push(await startOnce(name, path, skills, dir));
      for (const [name, list] of samples) {
        const pick = (key: 'firstToolsMs' | 'consoleLineMs' | 'catalogCompleteMs' | 'rssMB') => median(list.map((sample) => sample[key]));
        runs.push({ cli: name, skills, firstToolsMs: pick('firstToolsMs'), consoleLineMs: pick('consoleLineMs'), catalogCompleteMs: pick('catalogCompleteMs'), rssMB: pick('rssMB') });
      }
    }
    const help = new Map<string, number[]>(clis.map(([name]) => [name, []]));
    for (let round = 0; round < 5; round++) {
      for (const [name, path] of clis) {
        const started = performance.now();
        await new Promise((resolve) => spawn(process.execPath, [path, '--help'], { stdio: 'ignore' }).once('exit', resolve));
        help.get(name)!.push(performance.now() - started);
      }
    }
    return { runs, helpMs: Object.fromEntries([...help].map(([name, list]) => [name, median(list)])), loadAverage: loadavg() };
  } finally {
    rmSync(skillsDir, { recursive: true, force: true });
  }
}
