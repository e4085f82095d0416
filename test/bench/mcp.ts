/**
 * MCP providers. First, calls per second of server-everything's `echo`, one server process
 * speaking Streamable HTTP, called by the same SDK client over the same transport either
 * directly or through Capstan: `capstan serve` with that server as its MCP provider (over
 * Streamable HTTP too), the client on its `/mcp` with the tool loaded, so the call takes the
 * whole call path (task, grants, schema, ledger entries made durable, requestId and
 * traceparent) and one more HTTP hop. Interleaved rounds, same calls in flight, each round
 * reported on its own. Then the time from `capstan serve` starting to every configured stdio
 * server's tools being listed, against the SDK client connecting to and listing the same
 * servers itself, and `POST /tools/call` with echo under autocannon, load generator in its own process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import autocannon from 'autocannon';

const resolve = createRequire(import.meta.url).resolve;
const EVERYTHING = resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
/** Binds a server that listens on every interface to loopback and prints its port (the bench runs from dist/). */
const LOOPBACK_PRELOAD = fileURLToPath(new URL('../test/support/listenOnLoopback.ts', import.meta.url));
const IN_FLIGHT = 10;
const TOKEN = 'bench-token-0123456789';
/** Execute on the MCP server's tools too (by default they get none), as test/e2e/mcpServers.ts grants. */
const GRANTS = [
  { pattern: 'builtin:*', authority: 'execute' },
  { pattern: 'skills:*', authority: 'activate' },
  { pattern: '*', authority: 'execute' },
];

interface Measured {
  callsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** Keeps `inFlight` calls going for `seconds`: calls per second and each call's latency. */
async function drive(call: (n: number) => Promise<void>, seconds: number, inFlight = IN_FLIGHT): Promise<Measured> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  const worker = async (lane: number) => {
    for (let n = lane; performance.now() < until; n += inFlight) {
      const started = performance.now();
      await call(n);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, (_, lane) => worker(lane)));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { callsPerSecond: latencies.length / elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

/** A child process that prints `pattern` (on stdout or stderr) once it is ready; its first capture. */
function startChild(name: string, args: string[], env: Record<string, string>, pattern: RegExp): Promise<{ child: ChildProcess; found: string }> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((found, fail) => {
    let out = '';
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match?.[1]) found({ child, found: match[1] });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => fail(new Error(`${name} exited early with ${code}: ${out.slice(-2000)}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** The SDK client both ways, 2025-era (initialize and a session): the one in which Capstan lists a loaded tool under its own name. */
async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Finds and loads `everything:echo` in the client's Capstan session; the name it is listed under. */
async function loadEcho(client: Client): Promise<string> {
  const found = (await client.callTool({ name: 'capabilities_search', arguments: { query: 'echo', limit: 20 } })) as Json;
  const item = (found.structuredContent?.items as Json[] | undefined)?.find((candidate) => candidate.reference.id === 'everything:echo');
  if (!item) throw new Error(`capabilities_search did not find everything:echo: ${JSON.stringify(found)}`);
  const loaded = (await client.callTool({ name: 'tools_load', arguments: { reference: item.reference } })) as Json;
  if (loaded.isError) throw new Error(`tools_load failed: ${JSON.stringify(loaded.structuredContent)}`);
  const { tools } = await client.listTools();
  // Capstan's own six tools are named for what they do; the one loaded is the only echo.
  const listed = tools.filter((tool) => tool.name.includes('echo'));
  if (listed.length !== 1) throw new Error(`everything:echo is not listed once in the session's tools: ${tools.map((tool) => tool.name).join(', ')}`);
  return listed[0]!.name;
}

/**
 * server-everything's echo, directly and through `capstan serve`, in `rounds` interleaved rounds
 * of `secondsPerRound` each (the order swapping every round, so neither always runs on a machine
 * the other just warmed or loaded).
 */
export async function benchMcpEcho(cli: string, rounds = 5, secondsPerRound = 1.5) {
  const everything = await startChild('server-everything', ['--import', LOOPBACK_PRELOAD, EVERYTHING, 'streamableHttp'], { PORT: '0' }, /LISTENING (\d+)/);
  const serverUrl = `http://127.0.0.1:${everything.found}/mcp`;
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-mcp-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ grants: GRANTS, mcpServers: { everything: { url: serverUrl } } }));
  let serve: ChildProcess | undefined;
  const clients: Client[] = [];
  try {
    const started = await startChild(
      'capstan serve',
      [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
      { CAPSTAN_TOKEN: TOKEN },
      /Capstan console: (http:\/\/[^/]+)\//,
    );
    serve = started.child;
    const capstanUrl = started.found;
    await waitUntil(async () => {
      const catalog = (await (await fetch(`${capstanUrl}/catalog`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
        providers: { name: string; tools: number; status?: { state: string } }[];
      };
      return catalog.providers.some((p) => p.name === 'everything' && p.status?.state === 'ready' && p.tools > 0);
    });

    const direct = await connect(new URL(serverUrl));
    clients.push(direct);
    const viaCapstan = await connect(new URL('/mcp', capstanUrl), { authorization: `Bearer ${TOKEN}` });
    clients.push(viaCapstan);
    const echoName = await loadEcho(viaCapstan);
    const echo = (client: Client, name: string) => async (n: number) => {
      const message = `bench ${n}`;
      const result = (await client.callTool({ name, arguments: { message } })) as Json;
      if (result.isError || !JSON.stringify(result.content).includes(message)) throw new Error(`echo through ${name} failed: ${JSON.stringify(result)}`);
    };
    const targets = { direct: echo(direct, 'echo'), capstan: echo(viaCapstan, echoName) };

    await drive(targets.direct, 1); // warm both
    await drive(targets.capstan, 1);
    const measured: { direct: Measured; capstan: Measured }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? (['direct', 'capstan'] as const) : (['capstan', 'direct'] as const);
      const row = {} as { direct: Measured; capstan: Measured };
      for (const name of order) row[name] = await drive(targets[name], secondsPerRound);
      measured.push(row);
    }
    return { rounds: measured, secondsPerRound, inFlight: IN_FLIGHT, listedAs: echoName };
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    if (serve) await stopChild(serve);
    await stopChild(everything.child);
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
