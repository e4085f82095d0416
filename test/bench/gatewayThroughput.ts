/**
 * Gateway overhead: autocannon against `POST /tools/call` (time_now) on a real `capstan serve`,
 * and in the same run against a bare node:http server answering the same JSON. Each server runs
 * in its own process so the load generator does not share its event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const { requestId } = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    const now = new Date();
    const body = JSON.stringify({ requestId, ok: true, result: { iso: now.toISOString(), epochMs: now.getTime(), timezone: 'UTC', utcOffset: '+00:00', local: now.toISOString().slice(0, 19).replace('T', ' ') }, durationMs: 0.01 });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId ?? 'x' });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log('Capstan console: http://127.0.0.1:' + server.address().port + '/#token=bare'));
`;

interface Started {
  child: ChildProcess;
  url: string;
  token: string;
}

function startProcess(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Capstan console: (http:\/\/[^/]+)\/#token=(\S+)/.exec(out);
      if (match?.[1] && match[2]) resolve({ child, url: match[1], token: decodeURIComponent(match[2]) });
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
  });
}

async function load(target: Started, seconds: number) {
  const result = await autocannon({
    url: `${target.url}/tools/call`,
    method: 'POST',
    connections: 10,
    duration: seconds,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'time_now', arguments: {}, requestId: 'bench-1' }),
  });
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99 };
}

export async function benchGatewayThroughput(cli: string, seconds = 8) {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-'));
  const gateway = await startProcess([cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn']);
  const bare = await startProcess(['-e', BARE_SERVER]);
  try {
    await load(gateway, 1); // warm-up
    await load(bare, 1);
    const capstan = await load(gateway, seconds);
    const baseline = await load(bare, seconds);
    return {
      capstan,
      baseline,
      throughputRatio: capstan.requestsPerSecond / baseline.requestsPerSecond,
      p99Ratio: capstan.p99Ms / Math.max(baseline.p99Ms, 1),
    };
  } finally {
    gateway.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}
