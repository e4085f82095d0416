/**
 * How a local client finds the gateway of a data dir (gatewayFile.ts), or starts one. `capstan
 * mcp` uses it, so every agent of a data dir reaches the same gateway, hence one runtime and one
 * ledger.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readGatewayFile, type GatewayFile } from '../gatewayFile';

/**
 * The gateway's MCP endpoint, `capstan mcp`'s upstream; the one route here outside the contract's
 * operations. It is transports/mcp/http.ts's MCP_PATH, not imported from there so that the CLI
 * loads none of the gateway's own modules.
 */
export const MCP_PATH = '/mcp';
/** Where a gateway `capstan mcp` started writes its output, the console URL line included (owner-only). */
export const GATEWAY_LOG = 'gateway.log';
const LOCK_FILE = 'gateway.json.lock';
/** How long to wait for a started gateway to listen (a first start migrates the database). */
const START_TIMEOUT_MS = 30_000;
/** A start lock older than this was left by a process that died while starting one. */
const STALE_LOCK_MS = 60_000;

/** The announced gateway if it answers; a file left by a gateway that was killed answers nothing. */
export async function liveGateway(dataDir: string): Promise<GatewayFile | undefined> {
  const announced = readGatewayFile(dataDir);
  if (!announced || !processExists(announced.pid)) return undefined;
  try {
    await fetch(new URL(MCP_PATH, announced.url), { method: 'GET', signal: AbortSignal.timeout(2000) });
    return announced;
  } catch {
    return undefined;
  }
}

/**
 * The running gateway of `dataDir`, or a `capstan serve` started for it on a free loopback port,
 * detached so it outlives this client (its operator token is its own, random: the console URL is
 * in gateway.log). A lock file keeps two clients starting at once from starting two gateways.
 */
export async function findOrStartGateway(dataDir: string, cli: string, log: (message: string) => void): Promise<GatewayFile> {
  const until = Date.now() + START_TIMEOUT_MS * 2;
  while (Date.now() < until) {
    const running = await liveGateway(dataDir);
    if (running) return running;
    const lock = takeLock(dataDir);
    if (!lock) {
      await sleep(200);
      continue;
    }
    try {
      const raced = await liveGateway(dataDir);
      if (raced) return raced;
      return await startGateway(dataDir, cli, log);
    } finally {
      lock();
    }
  }
  throw new Error(`no gateway for ${dataDir} came up within ${(START_TIMEOUT_MS * 2) / 1000} s`);
}

async function startGateway(dataDir: string, cli: string, log: (message: string) => void): Promise<GatewayFile> {
  const output = openSync(join(dataDir, GATEWAY_LOG), 'a', 0o600);
  // Only what selects the data dir and the logs passes on: a token in this environment is the
  // agent's, and must never become the new gateway's operator token.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAPSTAN_') || name === 'CAPSTAN_SKILLS_DIRS'));
  const child = spawn(process.execPath, [cli, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn'], {
    detached: true,
    stdio: ['ignore', output, output],
    env,
  });
  closeSync(output);
  child.unref();
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? 1));
  const until = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < until && exited === null) {
    const announced = readGatewayFile(dataDir);
    if (announced && announced.pid === child.pid) {
      log(`started a gateway for ${dataDir} at ${announced.url} (pid ${announced.pid}); its console URL is in ${join(dataDir, GATEWAY_LOG)}`);
      return announced;
    }
    await sleep(100);
  }
  if (exited === null) child.kill();
  throw new Error(`the gateway started for ${dataDir} ${exited === null ? 'did not listen in time' : `exited with ${exited}`}; see ${join(dataDir, GATEWAY_LOG)}`);
}

/** The start lock, or undefined when another process holds it; the function releases it. */
function takeLock(dataDir: string): (() => void) | undefined {
  const path = join(dataDir, LOCK_FILE);
  try {
    closeSync(openSync(path, 'wx', 0o600));
    return () => rmSync(path, { force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_LOCK_MS) rmSync(path, { force: true });
    } catch {
      // Released meanwhile.
    }
    return undefined;
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
