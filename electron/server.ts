/**
 * One way to start serving, shared by the Electron app, `capstan serve` and the tests: the serve
 * options (each flag, else its one environment variable, else a default) and the HTTP gateway
 * started from them for a host.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, type Stats } from 'node:fs';
import { delimiter } from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { HttpGateway } from './transports/http';
import { writeGatewayFile } from './gatewayFile';
import type { Host } from './host';
import { defaultDataDir } from './paths';

export const DEFAULT_PORT = 7077;
const DEFAULT_ADDRESS = '127.0.0.1';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Each flag's one environment variable, read only when the flag is absent. The README documents both. */
export const SERVE_ENV = {
  port: 'CAPSTAN_PORT',
  host: 'CAPSTAN_HOST',
  token: 'CAPSTAN_TOKEN',
  'token-file': 'CAPSTAN_TOKEN_FILE',
  'data-dir': 'CAPSTAN_DATA_DIR',
  'skills-dir': 'CAPSTAN_SKILLS_DIRS',
  'log-level': 'CAPSTAN_LOG_LEVEL',
} as const;

/** A bad flag or environment variable: `capstan` prints it and exits with 2, Electron shows it in its error dialog. */
export class UsageError extends Error {}

/**
 * The shortest token accepted from any source: 16 characters of even a short alphabet put
 * guessing it over loopback far out of reach. The random default has 32.
 */
export const MIN_TOKEN_LENGTH = 16;
/** Characters that reach the gateway unchanged in an `Authorization` header: printable ASCII, no spaces. */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

export interface ServeOptions {
  port: number;
  /** The address to bind (`--host`). */
  address: string;
  token: string;
  dataDir: string;
  skillsDirs: string[];
  logLevel: LogLevel;
}

export interface ParseOptions {
  /** Refuse unknown flags and arguments; false for Electron, whose command line carries Chromium's flags too. */
  strict?: boolean;
  /** Where a warning about a risky but accepted option goes; stderr unless a test listens. */
  warn?: (message: string) => void;
}

/**
 * Flags first, then the environment, then defaults. Strict (the CLI) refuses unknown flags and
 * arguments; Electron passes `strict: false` because Chromium's own flags share its command line.
 * An empty value counts as not given, so `CAPSTAN_TOKEN=` still means a random token.
 */
export function parseServeOptions(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  { strict = true, warn = (message) => void process.stderr.write(`capstan: warning: ${message}\n`) }: ParseOptions = {},
): ServeOptions {
  const flags = readFlags(args, strict);
  type Name = Exclude<keyof typeof SERVE_ENV, 'skills-dir'>;
  const fromFlag = (flag: Name): Given | undefined => {
    const value = flags[flag];
    // Only a lenient parse lets a string flag through without its value.
    if (value === true) throw new UsageError(`--${flag} needs a value`);
    return typeof value === 'string' && value !== '' ? { value, from: `--${flag}` } : undefined;
  };
  const fromEnv = (flag: Name): Given | undefined => {
    const value = env[SERVE_ENV[flag]];
    return value ? { value, from: SERVE_ENV[flag] } : undefined;
  };
  /** The flag's value, else its environment variable's, with its source for error messages. */
  const given = (flag: Name): Given | undefined => fromFlag(flag) ?? fromEnv(flag);
  // The token has two flags and two variables; either flag wins over both variables.
  const tokenFlags = [fromFlag('token'), fromFlag('token-file')] as const;
  const [token, tokenFile] = tokenFlags.some(Boolean) ? tokenFlags : [fromEnv('token'), fromEnv('token-file')];
  return {
    port: parsePort(given('port')),
    address: given('host')?.value ?? DEFAULT_ADDRESS,
    token: parseToken(token, tokenFile, warn),
    dataDir: given('data-dir')?.value ?? defaultDataDir(env),
    skillsDirs: parseSkillsDirs(flags['skills-dir'], env[SERVE_ENV['skills-dir']]),
    logLevel: parseLogLevel(given('log-level')),
  };
}

interface Given {
  value: string;
  /** `--port` or `CAPSTAN_PORT`: what the operator has to fix. */
  from: string;
}

type FlagValue = string | boolean | (string | boolean)[] | undefined;

function readFlags(args: readonly string[], strict: boolean): Record<string, FlagValue> {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        'data-dir': { type: 'string' },
        'skills-dir': { type: 'string', multiple: true },
        'log-level': { type: 'string' },
      },
      strict,
      allowPositionals: !strict,
    });
    return values;
  } catch (error) {
    // parseArgs says what is wrong ("Unknown option '--bogus'"); it is a usage error like ours.
    throw new UsageError((error as Error).message);
  }
}

function parsePort(given: Given | undefined): number {
  if (!given) return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(given.value) ? Number(given.value) : Number.NaN;
  if (!(port <= 65535)) throw new UsageError(`${given.from} must be an integer from 0 to 65535, got "${given.value}"`);
  return port;
}

/**
 * The API token, from exactly one place, else a random one. A token on the command line works but
 * is visible to every local user in the process list, hence the warning; a file or the
 * environment is not. The token itself never appears in a message.
 */
function parseToken(token: Given | undefined, file: Given | undefined, warn: (message: string) => void): string {
  if (token && file) throw new UsageError(`${token.from} and ${file.from} both give the token; keep one`);
  if (token?.from === '--token') {
    warn(`--token is visible to other local users in the process list; prefer --token-file FILE or ${SERVE_ENV.token}`);
  }
  const source = file ?? token;
  if (!source) return randomBytes(24).toString('base64url');
  const value = file ? readTokenFile(file, warn) : source.value;
  if (value.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(`${source.from}: the token must be at least ${MIN_TOKEN_LENGTH} characters, got ${value.length}`);
  }
  if (!TOKEN_PATTERN.test(value)) throw new UsageError(`${source.from}: the token may hold only printable ASCII characters, without spaces`);
  return value;
}

/**
 * Reads the token file once, at start, without its line ending (`echo`, editors). A regular file
 * that others may read or write is still used, but the operator hears about it (POSIX modes only:
 * Windows has ACLs instead).
 */
export function readTokenFile({ value: path, from }: Given, warn: (message: string) => void): string {
  let stats: Stats;
  let text: string;
  try {
    stats = statSync(path);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${from}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (process.platform !== 'win32' && stats.isFile() && (stats.mode & 0o077) !== 0) {
    warn(`${path} can be read or written by other users (mode ${(stats.mode & 0o777).toString(8)}); chmod 600 it`);
  }
  const token = text.replace(/\r?\n$/, '');
  if (token === '') throw new UsageError(`${from}: ${path} is empty`);
  return token;
}

/** Repeated flags replace the variable; the variable lists folders as PATH does (`:`, or `;` on Windows). */
function parseSkillsDirs(flags: FlagValue, fromEnv: string | undefined): string[] {
  const values = Array.isArray(flags) ? flags : [];
  if (values.includes(true)) throw new UsageError('--skills-dir needs a value');
  const dirs = (values as string[]).filter((dir) => dir !== '');
  return dirs.length > 0 ? dirs : (fromEnv ?? '').split(delimiter).filter((dir) => dir !== '');
}

function parseLogLevel(given: Given | undefined): LogLevel {
  if (!given) return 'info';
  const level = LOG_LEVELS.find((candidate) => candidate === given.value);
  if (!level) throw new UsageError(`${given.from} must be one of ${LOG_LEVELS.join(', ')}, got "${given.value}"`);
  return level;
}

/** JSON lines on stderr: stdout carries only the console line. */
export function createLogger(level: LogLevel): pino.Logger {
  return pino({ level, base: undefined }, pino.destination(2));
}

/** How long `closeLogger` waits for log lines still queued for stderr. */
export const LOG_FLUSH_MS = 1_000;

/**
 * Before the process exits: gives the log lines still queued for stderr up to `timeoutMs` to be
 * written, then lets them go. pino's destination otherwise flushes them synchronously as the
 * process exits, retrying for as long as the write fails; with stderr a pipe nobody reads any
 * more (`capstan serve 2>&1 | head`: EPIPE) or reads too slowly (full), that retry never ended,
 * and the process stopped listening but never exited.
 */
export async function closeLogger(logger: pino.Logger, timeoutMs = LOG_FLUSH_MS): Promise<void> {
  // The destination pino.destination made (sonic-boom): `_writing` while a write is in flight, 'drain' once all is written.
  const destination = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    | { _writing?: boolean; once?(event: 'drain', listener: () => void): void; flushSync?(): void }
    | undefined;
  if (!destination) return;
  if (destination._writing === true && destination.once) {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      destination.once!('drain', resolve);
    });
    clearTimeout(timer);
  }
  destination.flushSync = () => {};
}

export interface ServerOptions extends Pick<ServeOptions, 'address' | 'port' | 'token'> {
  logger: FastifyBaseLogger;
  /** The built console; without it only the API answers. */
  rendererDir?: string | undefined;
  /**
   * Listen on any free port when the chosen one is taken, instead of failing. The desktop app
   * wants this: its window talks IPC and its menu copies wherever the gateway ended up, whereas
   * whoever runs `capstan serve` relies on the port they asked for.
   */
  anyPortIfTaken?: boolean;
}

/** The HTTP gateway in front of a host: its API, its live events and the console bundle. */
export async function startServer(host: Host, options: ServerOptions): Promise<HttpGateway> {
  // Loaded here, not at the top: the commands that import this module for its options and
  // UsageError (token, harn, mcp) need neither Fastify nor the routes.
  const [{ startHttpGateway }, { isLoopbackHost }] = await Promise.all([import('./transports/http'), import('./transports/origin')]);
  const listen = (port: number) =>
    startHttpGateway({
      handlers: host.handlers,
      events: host.events,
      ledger: host.ledger,
      entityTags: { getCatalog: () => host.catalogViews.tag() },
      logger: options.logger,
      token: options.token,
      agents: host.agents,
      host: options.address,
      port,
      rendererDir: options.rendererDir,
      mcpSessionIdleMs: host.config.mcp.sessionIdleMs,
      quotas: host.config.quotas,
    });
  let gateway: HttpGateway;
  try {
    gateway = await listen(options.port);
  } catch (error) {
    if (!options.anyPortIfTaken || options.port === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    options.logger.warn({ port: options.port }, 'port in use; the HTTP gateway takes any free port instead');
    gateway = await listen(0);
  }
  if (!isLoopbackHost(options.address)) {
    const reason = `the gateway listens on ${options.address}, not on loopback: anyone who can reach this address and holds a token can use it, over plain HTTP; prefer 127.0.0.1 with an SSH tunnel`;
    options.logger.warn({ host: options.address }, reason);
    host.catalog.addGatewayDiagnostic(reason);
  }
  // <data dir>/gateway.json: how `capstan mcp` finds this gateway (cli/localGateway.ts).
  const withdraw = writeGatewayFile(host.dataDir, gateway.url);
  const close = gateway.close;
  return {
    ...gateway,
    close: async () => {
      withdraw();
      await close();
    },
  };
}

/**
 * The line an operator (or a test) reads to open the console. `capstan serve` puts the token in
 * its fragment: that line is how its operator gets in. The desktop app prints the address alone
 * (`withToken: false`): its window needs no token, Help → Copy Browser Console URL gives the full
 * URL on request, and so the token stays out of terminals and launchers' logs.
 */
export function announce(gateway: HttpGateway, host: Host, { withToken = true } = {}): void {
  process.stdout.write(`Capstan console: ${withToken ? gateway.consoleUrl : `${gateway.url}/`}\n`);
  host.logger.info({ url: gateway.url, dataDir: host.dataDir }, 'gateway listening');
}
