/**
 * MCP providers: calls per second of server-everything's `echo` through Capstan (the whole call
 * path: task, grants, schema, ledger entries made durable, requestId and traceparent) against
 * the same SDK client calling the same server directly, in the same run and with the same calls
 * in flight; the time from `capstan serve` starting to every configured server's tools being
 * listed, against the SDK client connecting to and listing the same servers itself; and that
 * `capstan serve`'s `POST /tools/call` with echo under autocannon, load generator in its own process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import autocannon from 'autocannon';
import pino from 'pino';
import { dispatch } from '../../electron/services/api';
import { createHost } from '../../electron/host';

const resolve = createRequire(import.meta.url).resolve;
const EVERYTHING = resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const IN_FLIGHT = 10;

/** Keeps `inFlight` calls going for `seconds`; calls per second. */
async function drive(call: (n: number) => Promise<unknown>, seconds: number, inFlight = IN_FLIGHT): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const worker = async (lane: number) => {
    for (let n = lane; performance.now() < until; n += inFlight) {
      await call(n);
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, (_, lane) => worker(lane)));
  return done / ((performance.now() - started) / 1000);
}

/**
 * The machine's load moves from second to second, so the runs are interleaved: rounds of the SDK
 * client directly, then Capstan with the database's `synchronous = FULL` (the default: each
 * commit is flushed to disk, so an answered call survives a power loss), then with NORMAL (a
 * killed process only), each figure the total over its rounds.
 */
export async function benchMcpEcho(rounds = 5, secondsPerRound = 1.5) {
  // The baseline: the SDK client on its own, calling its own server-everything over stdio.
  const direct = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const echoDirect = (n: number) => direct.callTool({ name: 'echo', arguments: { message: `bench ${n}` } });

  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-mcp-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
  const logger = pino({ level: 'silent' });
  const host = await createHost({ dataDir, logger });
  try {
    await waitUntil(() => host.catalog.live('everything:echo') !== undefined && host.catalog.providers().find((p) => p.name === 'everything')?.status?.state === 'ready');
    let next = 0;
    const viaCapstan = (tool: string, args: (requestId: string) => Record<string, unknown>) => async () => {
      const requestId = `bench-${(next += 1)}`;
      // The operator's own call, as the console makes it (a context without `principal` where the gateway has none yet).
      const context = { requestId, log: logger, principal: 'operator' as const };
      const reply = await dispatch(host.handlers, 'callTool', { tool, arguments: args(requestId), requestId }, context);
      if (!reply.ok) throw new Error(reply.envelope.error.message);
    };
    const echoCapstan = viaCapstan('everything:echo', (message) => ({ message }));
    // The same call path without the MCP hop: what the policy path and the ledger cost on their own.
    const timeNow = viaCapstan('builtin:time_now', () => ({}));
    const synchronous = (mode: 'FULL' | 'NORMAL') => host.db.exec(`PRAGMA synchronous = ${mode}`);
    await drive(echoDirect, 1); // warm both
    await drive(echoCapstan, 1);
    const totals = { direct: 0, full: 0, normal: 0, builtinFull: 0, builtinNormal: 0 };
    for (let round = 0; round < rounds; round += 1) {
      totals.direct += await drive(echoDirect, secondsPerRound);
      synchronous('FULL');
      totals.full += await drive(echoCapstan, secondsPerRound);
      totals.builtinFull += await drive(timeNow, secondsPerRound);
      synchronous('NORMAL');
      totals.normal += await drive(echoCapstan, secondsPerRound);
      totals.builtinNormal += await drive(timeNow, secondsPerRound);
    }
    synchronous('FULL');
    const rate = (total: number) => total / rounds;
    return {
      direct: rate(totals.direct),
      full: rate(totals.full),
      normal: rate(totals.normal),
      builtinFull: rate(totals.builtinFull),
      builtinNormal: rate(totals.builtinNormal),
    };
  } finally {
    await direct.close();
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * From `capstan serve` starting to every configured server's tools in its catalog (three
 * servers, one of them twice); then echo through its HTTP API.
 */
export async function benchMcpServe(cli: string, seconds = 7.5) {
  const folder = mkdtempSync(join(tmpdir(), 'capstan-bench-fs-'));
  const servers = {
    everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
    everything2: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
    files: { command: process.execPath, args: [FILESYSTEM, folder] },
  };

  // The baseline: the SDK client connecting to the same servers, all at once, and listing their tools.
  let started = performance.now();
  const clients = await Promise.all(
    Object.values(servers).map(async ({ command, args }) => {
      const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
      await client.listTools();
      return client;
    }),
  );
  const directMs = performance.now() - started;
  await Promise.all(clients.map((client) => client.close()));

  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-start-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ mcpServers: servers }));
  started = performance.now();
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, CAPSTAN_TOKEN: 'bench-token-0123456789' },
  });
  try {
    const url = await new Promise<string>((found, fail) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /Capstan console: (http:\/\/[^/]+)\//.exec(out);
        if (match?.[1]) found(match[1]);
      });
      child.once('exit', (code) => fail(new Error(`capstan serve exited with ${code}`)));
    });
    const listeningMs = performance.now() - started;
    await waitUntil(async () => {
      const catalog = (await (await fetch(`${url}/catalog`, { headers: { authorization: 'Bearer bench-token-0123456789' } })).json()) as {
        providers: { name: string; tools: number; status?: { state: string } }[];
      };
      return Object.keys(servers).every((name) => catalog.providers.some((p) => p.name === name && p.status?.state === 'ready' && p.tools > 0));
    });
    const allListedMs = performance.now() - started;
    const http = await autocannon({
      url: `${url}/tools/call`,
      method: 'POST',
      connections: IN_FLIGHT,
      duration: seconds,
      headers: { authorization: 'Bearer bench-token-0123456789', 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'everything:echo', arguments: { message: 'bench' } }),
    });
    if (http.non2xx || http.errors) throw new Error(`${http.non2xx} non-2xx, ${http.errors} errors`);
    return { servers: Object.keys(servers).length, listeningMs, allListedMs, directMs, http: { callsPerSecond: http.requests.average, p99Ms: http.latency.p99 } };
  } finally {
    await new Promise((done) => {
      child.once('exit', done);
      child.kill('SIGTERM');
    });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((done) => setTimeout(done, 10));
  }
}
