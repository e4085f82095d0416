/**
 * Gateway overhead: autocannon against `POST /tools/call` (time_now) on a real `capstan serve`
 * at its default log level, with its ledger durable (every answer waits for its entries to be
 * flushed to disk), and in the same run against a bare node:http server answering the same
 * JSON. Each server runs in a process of its own, apart from the load generator (this process).
 *
 * Each request carries its own requestId, as a client's calls do. The targets take turns in
 * interleaved rounds, so that a shared machine's load weighs on each alike, and besides the
 * requests per second each server's own CPU time per request is read from /proc: on a busy
 * machine that is the steadier figure of what a request costs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const CONNECTIONS = 10;

const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const { requestId } = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    const now = new Date();
    const body = JSON.stringify({ requestId, taskId: 'task-1', ok: true, result: { iso: now.toISOString(), epochMs: now.getTime(), timezone: 'UTC', utcOffset: '+00:00', local: now.toISOString().slice(0, 19).replace('T', ' ') }, durationMs: 0.01 });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId ?? 'x' });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log('Capstan console: http://127.0.0.1:' + server.address().port + '/#token=bare'));
`;

export interface Server {
  name: string;
  child: ChildProcess;
  url: string;
  token: string;
}

/** Starts a server process that prints the console line `capstan serve` prints; stderr (the logs) is discarded. */
export function startServer(name: string, args: string[]): Promise<Server> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Capstan console: (http:\/\/[^/]+)\/#token=(\S+)/.exec(out);
      if (match?.[1] && match[2]) resolve({ name, child, url: match[1], token: decodeURIComponent(match[2]) });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited early with ${code}`)));
  });
}

export async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** The process's CPU time in ms (Linux: /proc/<pid>/stat, in clock ticks of 10 ms); NaN elsewhere. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

let nextRequest = 0;

/** One round of autocannon against `server`: every request a time_now call with a requestId of its own. */
async function load(server: Server, seconds: number): Promise<{ count: number; p99Ms: number; cpuMs: number }> {
  const pid = server.child.pid!;
  const before = cpuMs(pid);
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/tools/call',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ tool: 'time_now', arguments: {}, requestId: `bench-${++nextRequest}` }) }),
      },
    ],
  });
  if (result.non2xx || result.errors) throw new Error(`${server.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { count: result.requests.total, p99Ms: result.latency.p99, cpuMs: cpuMs(pid) - before };
}

export interface Measured {
  name: string;
  requestsPerSecond: number;
  /** The worst round's p99. */
  p99Ms: number;
  /** The server process's CPU time per request. */
  cpuMsPerRequest: number;
}

/** Interleaved rounds over `servers` after a warm-up of each; one row per server. */
export async function measureRounds(servers: Server[], rounds: number, seconds: number): Promise<Measured[]> {
  for (const server of servers) await load(server, 1);
  const totals = servers.map(() => ({ count: 0, cpuMs: 0, p99: [] as number[] }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, server] of servers.entries()) {
      const measured = await load(server, seconds);
      totals[i]!.count += measured.count;
      totals[i]!.cpuMs += measured.cpuMs;
      totals[i]!.p99.push(measured.p99Ms);
    }
  }
  return servers.map((server, i) => ({
    name: server.name,
    requestsPerSecond: totals[i]!.count / (rounds * seconds),
    p99Ms: Math.max(...totals[i]!.p99),
    cpuMsPerRequest: totals[i]!.cpuMs / totals[i]!.count,
  }));
}

/**
 * `compareCli`: another build's cli.js (`CAPSTAN_BENCH_COMPARE`), measured in the same rounds,
 * to compare a change against the build before it.
 */
export async function benchGatewayThroughput(cli: string, { rounds = 4, seconds = 2, compareCli }: { rounds?: number; seconds?: number; compareCli?: string | undefined } = {}) {
  const dirs: string[] = [];
  const serve = (name: string, path: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-'));
    dirs.push(dataDir);
    return startServer(name, [path, 'serve', '--port', '0', '--data-dir', dataDir]);
  };
  const servers: Server[] = [];
  try {
    servers.push(await serve('capstan serve', cli));
    servers.push(await startServer('bare node:http', ['-e', BARE_SERVER]));
    if (compareCli) servers.push(await serve(`capstan serve (${compareCli})`, compareCli));
    const rows = await measureRounds(servers, rounds, seconds);
    const [capstan, baseline] = rows as [Measured, Measured];
    return {
      rows,
      rounds,
      seconds,
      connections: CONNECTIONS,
      throughputRatio: capstan.requestsPerSecond / baseline.requestsPerSecond,
      cpuRatio: baseline.cpuMsPerRequest / capstan.cpuMsPerRequest,
    };
  } finally {
    await Promise.all(servers.map(stopServer));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
