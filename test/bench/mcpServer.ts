/**
 * Capstan's MCP server against its own REST API, in the same run: `capability_call` of time_now
 * over POST /mcp (a 2025-era session presenting its Mcp-Session-Id, and the 2026-07-28 revision)
 * against POST /tools/call of the same tool, on one `capstan serve` in a process of its own,
 * each driven by autocannon with the same connections, in interleaved rounds so that a busy
 * machine weighs on all three alike. Every body is checked to answer a successful call first: an
 * MCP tool error is still HTTP 200, so autocannon alone would count it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const CONNECTIONS = 10;
const MODERN = '2026-07-28';
const CLIENT_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Target {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

function startServe(cli: string, dataDir: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Capstan console: (http:\/\/[^/]+)\/#token=(\S+)/.exec(out);
      if (match?.[1] && match[2]) resolve({ child, url: match[1], token: decodeURIComponent(match[2]) });
    });
    child.once('exit', (code) => reject(new Error(`capstan serve exited early with ${code}`)));
  });
}

/** One JSON-RPC request to /mcp; the result, read from a JSON body or the SSE event that carries it. */
async function rpc(url: string, headers: Record<string, string>, message: object): Promise<{ result: Record<string, any>; session: string | null }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify(message) });
  const text = await response.text();
  const messages = text.startsWith('{') ? [text] : [...text.matchAll(/^data: (.+)$/gm)].map((match) => match[1]!);
  const answer = messages.map((json) => JSON.parse(json) as { id?: unknown; result?: Record<string, unknown> }).find((message) => message.id !== undefined) ?? {};
  if (!answer.result) throw new Error(`${response.status} ${text}`);
  return { result: answer.result, session: response.headers.get('mcp-session-id') };
}

/** A session (or, in 2026-07-28, the principal's) with time_now loaded; the capability_call request to repeat. */
async function mcpTarget(url: string, token: string, era: 'legacy' | 'modern'): Promise<Target> {
  const base = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let headers: Record<string, string> = { ...base, 'mcp-protocol-version': '2025-11-25' };
  if (era === 'legacy') {
    const { session } = await rpc(url, base, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
    headers = { ...headers, 'mcp-session-id': session! };
  }
  const call = (name: string, args: object) => {
    const modern: Record<string, string> = era === 'modern' ? { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name } : {};
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, ...(era === 'modern' ? { _meta: CLIENT_META } : {}) } };
    return { headers: { ...headers, ...modern }, message };
  };
  const search = call('capabilities_search', { query: 'time_now', limit: 1 });
  const found = await rpc(url, search.headers, search.message);
  const reference = (found.result.structuredContent as { items: { reference: object }[] }).items[0]!.reference;
  const load = call('tools_load', { reference });
  await rpc(url, load.headers, load.message);
  const repeated = call('capability_call', { reference, arguments: {} });
  const check = await rpc(url, repeated.headers, repeated.message);
  if (check.result.isError) throw new Error(`capability_call failed: ${JSON.stringify(check.result.structuredContent)}`);
  return { name: `MCP ${era === 'legacy' ? '2025-11-25 (session)' : MODERN}`, path: '/mcp', headers: repeated.headers, body: JSON.stringify(repeated.message) };
}

/**
 * The server process's CPU time in ms (Linux: /proc/<pid>/stat, in clock ticks of 10 ms), so a
 * call's cost can be told apart from what other processes on a shared machine take from it.
 */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function load(url: string, pid: number, target: Target, seconds: number): Promise<{ count: number; p99Ms: number; cpuMs: number }> {
  const before = cpuMs(pid);
  const result = await autocannon({ url: `${url}${target.path}`, method: 'POST', connections: CONNECTIONS, duration: seconds, headers: target.headers, body: target.body });
  if (result.non2xx || result.errors) throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { count: result.requests.total, p99Ms: result.latency.p99, cpuMs: cpuMs(pid) - before };
}

export async function benchMcpServer(cli: string, rounds = 5, seconds = 2) {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-bench-mcp-server-'));
  const serve = await startServe(cli, dataDir);
  try {
    const rest: Target = {
      name: 'POST /tools/call',
      path: '/tools/call',
      headers: { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'time_now', arguments: {} }),
    };
    const targets = [rest, await mcpTarget(serve.url, serve.token, 'legacy'), await mcpTarget(serve.url, serve.token, 'modern')];
    const pid = serve.child.pid!;
    for (const target of targets) await load(serve.url, pid, target, 1); // warm-up
    const totals = new Map(targets.map((target) => [target.name, { count: 0, cpuMs: 0, p99: [] as number[] }]));
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) {
        const measured = await load(serve.url, pid, target, seconds);
        const total = totals.get(target.name)!;
        total.count += measured.count;
        total.cpuMs += measured.cpuMs;
        total.p99.push(measured.p99Ms);
      }
    }
    const rows = targets.map((target) => {
      const { count, cpuMs: cpu, p99 } = totals.get(target.name)!;
      return { name: target.name, perSecond: count / (rounds * seconds), cpuMsPerCall: cpu / count, p99Ms: Math.max(...p99) };
    });
    return { rows, rounds, seconds, connections: CONNECTIONS };
  } finally {
    const exited = new Promise((resolve) => serve.child.once('exit', resolve));
    serve.child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
