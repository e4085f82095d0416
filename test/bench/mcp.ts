/**
 * MCP providers. First, server-everything's `echo` called by eight SDK v2 clients (or
 * `CAPSTAN_BENCH_MCP_CLIENTS`; one shows a call's own latency, nothing queued) over Streamable
 * HTTP along three paths in interleaved rounds (benchMcpPaths): directly, through supergateway,
 * and through `capstan serve`'s `/mcp` as an agent, where the call takes the whole call path
 * (task, grants, schema, ledger entries made durable, requestId and traceparent). Then the time
 * from `capstan serve` starting to every configured stdio server's tools being listed, against
 * the SDK client connecting to and listing the same servers itself, and `POST /tools/call` with
 * echo under autocannon, load generator in its own process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const SUPERGATEWAY = resolve('supergateway/dist/index.js');
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
  calls: number;
}

/** A path's serving side, in CPU per call: what the machine pays whatever else shares it. */
interface MeasuredPath extends Measured {
  /** CPU of the path's server processes (the gateway or bridge and the server it runs) per call, from /proc; NaN where there is none. */
  serverCpuMsPerCall: number;
}

/** CPU time a process and its descendants have used, in ms (Linux /proc, 100 ticks a second); NaN elsewhere. */
function treeCpuMs(pid: number): number {
  try {
    const [utime, stime] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(11, 13).map(Number);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return (utime! + stime!) * 10 + children.reduce((sum, child) => sum + treeCpuMs(child), 0);
  } catch {
    return Number.NaN;
  }
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
  return { callsPerSecond: latencies.length / elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), calls: latencies.length };
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

/** The paths an agent's call to server-everything's echo can take, compared in one run. */
export const MCP_PATHS = ['direct', 'supergateway', 'capstan', 'capstan+telemetry'] as const;
export type McpPath = (typeof MCP_PATHS)[number];
/** MCP clients calling at once, each with one call in flight: agents, each on its own connection (eight, as the issue measured, unless told). */
const CLIENTS = Number(process.env.CAPSTAN_BENCH_MCP_CLIENTS ?? 8);

/** An OTLP/HTTP endpoint that accepts everything and decodes nothing: what telemetry costs Capstan, not a receiver. */
async function otlpSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((request, response) => {
    request.resume();
    request.once('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((done) => server.close(() => done())) };
}

/** `capstan serve` with server-everything over stdio as its provider (as supergateway bridges it), agents granted its tools. */
async function startCapstan(cli: string, telemetry: { endpoint: string } | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-mcp-'));
  writeFileSync(
    join(dataDir, 'config.json'),
    JSON.stringify({ grants: GRANTS, mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, ...(telemetry ? { telemetry } : {}) }),
  );
  const started = await startChild('capstan serve', [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: TOKEN }, /Capstan console: (http:\/\/[^/]+)\//);
  const url = started.found;
  await waitUntil(async () => {
    const catalog = (await (await fetch(`${url}/catalog`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { providers: { name: string; tools: number; status?: { state: string } }[] };
    return catalog.providers.some((p) => p.name === 'everything' && p.status?.state === 'ready' && p.tools > 0);
  });
  const created = (await (await fetch(`${url}/agents`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench-agent' }) })).json()) as { token: string };
  return { url, agentToken: created.token, child: started.child, dataDir };
}

/** Finds everything:echo, loads it in the client's session, and returns a call by reference, as an agent makes it. */
async function capabilityCall(client: Client): Promise<(n: number) => Promise<void>> {
  const found = (await client.callTool({ name: 'capabilities_search', arguments: { query: 'echo', limit: 20 } })) as Json;
  const item = (found.structuredContent?.items as Json[] | undefined)?.find((candidate) => candidate.reference.id === 'everything:echo');
  if (!item) throw new Error(`capabilities_search did not find everything:echo: ${JSON.stringify(found)}`);
  const loaded = (await client.callTool({ name: 'tools_load', arguments: { reference: item.reference } })) as Json;
  if (loaded.isError) throw new Error(`tools_load failed: ${JSON.stringify(loaded.structuredContent)}`);
  return async (n) => {
    const message = `bench ${n}`;
    const result = (await client.callTool({ name: 'capability_call', arguments: { reference: item.reference, arguments: { message } } })) as Json;
    if (result.isError || !JSON.stringify(result.structuredContent).includes(message)) throw new Error(`capability_call failed: ${JSON.stringify(result)}`);
  };
}

/** `CLIENTS` clients, each one call in flight, for `seconds`: calls per second and each call's latency. */
async function driveClients(calls: ((n: number) => Promise<void>)[], seconds: number): Promise<Measured> {
  let next = 0;
  return drive((_n) => calls[next++ % calls.length]!(next), seconds, calls.length);
}

/**
 * server-everything's echo, called by `CLIENTS` SDK v2 clients over Streamable HTTP along each
 * path: directly (its own Streamable HTTP endpoint), through supergateway (a bare stdio → HTTP
 * bridge: no policy, no ledger; `--stateful`, a server process per client session, since its
 * stateless mode starts a process per request), and through `capstan serve`'s `/mcp` as an agent (its token,
 * `capability_call` by reference, every call durable in the ledger before its answer), with
 * telemetry off and on (to an OTLP sink that accepts and discards). Capstan and supergateway
 * both speak to server-everything over stdio. Interleaved rounds, the order rotating each round.
 */
export async function benchMcpPaths(cli: string, rounds = 5, secondsPerRound = 2) {
  const children: ChildProcess[] = [];
  const clients: Client[] = [];
  const dataDirs: string[] = [];
  const sink = await otlpSink();
  try {
    const everything = await startChild('server-everything', ['--import', LOOPBACK_PRELOAD, EVERYTHING, 'streamableHttp'], { PORT: '0' }, /LISTENING (\d+)/);
    children.push(everything.child);
    const bridge = await startChild(
      'supergateway',
      ['--import', LOOPBACK_PRELOAD, SUPERGATEWAY, '--stdio', `${process.execPath} ${EVERYTHING} stdio`, '--outputTransport', 'streamableHttp', '--stateful', '--port', '0', '--logLevel', 'none'],
      {},
      /LISTENING (\d+)/,
    );
    children.push(bridge.child);
    const port = bridge.found;
    const capstan = await startCapstan(cli, undefined);
    const traced = await startCapstan(cli, { endpoint: sink.url });
    for (const started of [capstan, traced]) {
      children.push(started.child);
      dataDirs.push(started.dataDir);
    }

    const many = async (url: URL, headers: Record<string, string> = {}) => {
      const opened = await Promise.all(Array.from({ length: CLIENTS }, () => connect(url, headers)));
      clients.push(...opened);
      return opened;
    };
    const echo = (client: Client) => async (n: number) => {
      const message = `bench ${n}`;
      const result = (await client.callTool({ name: 'echo', arguments: { message } })) as Json;
      if (result.isError || !JSON.stringify(result.content).includes(message)) throw new Error(`echo failed: ${JSON.stringify(result)}`);
    };
    const targets: Record<McpPath, ((n: number) => Promise<void>)[]> = {
      direct: (await many(new URL(`http://127.0.0.1:${everything.found}/mcp`))).map(echo),
      supergateway: (await many(new URL(`http://127.0.0.1:${port}/mcp`))).map(echo),
      capstan: await Promise.all((await many(new URL('/mcp', capstan.url), { authorization: `Bearer ${capstan.agentToken}` })).map(capabilityCall)),
      'capstan+telemetry': await Promise.all((await many(new URL('/mcp', traced.url), { authorization: `Bearer ${traced.agentToken}` })).map(capabilityCall)),
    };

    const servers: Record<McpPath, number> = { direct: everything.child.pid!, supergateway: bridge.child.pid!, capstan: capstan.child.pid!, 'capstan+telemetry': traced.child.pid! };
    for (const path of MCP_PATHS) await driveClients(targets[path], 1); // warm every path
    const measured: Record<McpPath, MeasuredPath>[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const row = {} as Record<McpPath, MeasuredPath>;
      for (let i = 0; i < MCP_PATHS.length; i += 1) {
        const path = MCP_PATHS[(i + round) % MCP_PATHS.length]!;
        const before = treeCpuMs(servers[path]);
        const figures = await driveClients(targets[path], secondsPerRound);
        row[path] = { ...figures, serverCpuMsPerCall: (treeCpuMs(servers[path]) - before) / figures.calls };
      }
      measured.push(row);
    }
    return { rounds: measured, secondsPerRound, clients: CLIENTS };
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(children.map(stopChild));
    await sink.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
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
