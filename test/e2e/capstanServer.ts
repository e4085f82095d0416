/** Starts `capstan serve` as an operator would and reads the console URL it prints. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** A clean shutdown takes tens of milliseconds; past this the gateway is stuck. */
const SHUTDOWN_GRACE_MS = 3_000;
const CONSOLE_LINE = /^Capstan console: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/;

export interface CapstanServer {
  /** The URL `capstan serve` printed, token in the fragment. */
  consoleUrl: string;
  /** The gateway's origin, without a token. */
  origin: string;
  token: string;
  dataDir: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** More `capstan serve` arguments, e.g. `['--skills-dir', dir]`. */
  args?: readonly string[];
  /** 0 (any free port) unless a test restarts a gateway where the page expects it. */
  port?: number;
  /** A fresh random one unless given. */
  token?: string;
  /** Written to `<dataDir>/config.json` before the start (e.g. `{ mcpServers: {...} }`); none unless given. */
  config?: Record<string, unknown>;
}

export async function startCapstan(dataDir: string, { args: extraArgs = [], port = 0, token = randomToken(), config }: StartOptions = {}): Promise<CapstanServer> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the end-to-end tests`);
  if (config) writeFileSync(join(dataDir, 'config.json'), JSON.stringify(config, null, 2));
  const args = [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn', ...extraArgs];
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    // The token goes where an operator should put it, out of the process list; no other CAPSTAN_*
    // variable of the runner's environment may add to the flags.
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAPSTAN_'))), CAPSTAN_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A gateway that never came up must not outlive the test, nor the MCP servers it started.
      child.kill('SIGTERM');
      reject(new Error(`capstan serve printed no console URL within 15 s\n${stderr}`));
    }, 15_000);
    createInterface({ input: child.stdout }).once('line', (text) => {
      clearTimeout(timer);
      resolve(text);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`capstan serve exited early (code ${child.exitCode})\n${stderr}`));
    });
  });
  const match = CONSOLE_LINE.exec(line);
  if (!match?.[1] || !match[2]) throw new Error(`unexpected first line from capstan serve: ${line}`);
  if (decodeURIComponent(match[2]) !== token) throw new Error('capstan serve printed a different token than it was given');

  return {
    consoleUrl: `${match[1]}/#token=${match[2]}`,
    origin: match[1],
    token,
    dataDir,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        // Known gateway issue: a browser's idle pre-connected socket keeps app.close() waiting.
        // Do not let it hang the suite; say so, then kill.
        process.emitWarning(`capstan serve ignored SIGTERM for ${SHUTDOWN_GRACE_MS} ms; killing it`);
        child.kill('SIGKILL');
      }, SHUTDOWN_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Hex, so the token never starts with "-" (which parseArgs would read as an option). */
const randomToken = () => randomBytes(16).toString('hex');
