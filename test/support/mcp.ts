/** Real MCP servers for tests, run as child processes: server-everything, server-filesystem and Capstan's fixture. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProviderStatus } from '../../shared/capability';
import type { McpServerEntry } from '../../shared/mcp';
import type { Host } from '../../electron/host';
import type { CapstanEvent } from '../../shared/events';
import { startTestGateway, type TestGateway } from './gateway';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
export const EVERYTHING = path('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const FIXTURE = path('./mcpFixtureServer.ts');
const LOOPBACK_PRELOAD = path('./listenOnLoopback.ts');

export const everythingStdio = (): McpServerEntry => ({ command: process.execPath, args: [EVERYTHING, 'stdio'] });
export const filesystemStdio = (folder: string): McpServerEntry => ({ command: process.execPath, args: [FILESYSTEM, folder] });
export const fixtureStdio = (env: Record<string, string> = {}): McpServerEntry => ({ command: process.execPath, args: [FIXTURE], env });

/** server-everything in its Streamable HTTP mode, on a loopback port (a free one unless given). */
export async function startEverythingHttp(port = '0'): Promise<{ url: string; process: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', LOOPBACK_PRELOAD, EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: port },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const bound = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const found = /LISTENING (\d+)/.exec(seen);
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Polls until `check` returns something other than undefined. */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until a provider reaches a state; for `ready`, until its tools (or, for a server without tools, its resources or prompts) are in the catalog too. */
export function waitForProvider(host: Host, name: string, state: ProviderStatus['state'] = 'ready', timeoutMs?: number): Promise<ProviderStatus> {
  return waitFor(
    `provider ${name} to be ${state}`,
    () => {
      const info = host.catalog.providers().find((provider) => provider.name === name);
      if (info?.status?.state !== state) return undefined;
      if (state === 'ready' && info.tools === 0 && !info.resources && !info.prompts) return undefined;
      return info.status;
    },
    timeoutMs,
  );
}

/** The pid of a stdio server's process, while connected. */
export const serverPid = (host: Host, name: string): number => {
  const pid = host.mcp.pid(name);
  if (pid === null) throw new Error(`${name} has no process`);
  return pid;
};

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** JSON in, JSON out, status kept: for routes besides /tools/call. */
export async function send(gateway: { request: (path: string, init?: { method?: string; body?: unknown }) => Promise<Response> }, method: string, path: string, body?: unknown) {
  const response = await gateway.request(path, { method, ...(body === undefined ? {} : { body }) });
  return { status: response.status, body: (await response.json()) as Json };
}

/** A test gateway with server-everything over stdio as its provider, ready, and every event it publishes from the start. */
export async function startEverythingGateway(): Promise<{ gateway: TestGateway; events: CapstanEvent[] }> {
  const gateway = await startTestGateway({ config: { mcpServers: { everything: everythingStdio() } } });
  const events: CapstanEvent[] = [];
  gateway.host.events.subscribe((event) => events.push(event));
  await waitForProvider(gateway.host, 'everything');
  return { gateway, events };
}
