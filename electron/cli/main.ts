#!/usr/bin/env node
/**
 * `capstan <command>`: the headless face of Capstan. `serve` runs the same host as the
 * Electron app and serves the console to a browser on loopback.
 *
 * Each command's modules are imported when that command runs (esbuild splits them into chunks,
 * build/build.mjs): `capstan --help` or `capstan tools` need neither Fastify nor the host, and
 * loading every module up front was most of the CLI's start.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { LedgerEntry } from '../../shared/ledger';
import { err, out, printJsonLine } from './terminal';
import { commandUsage, USAGE } from './usage';
import { ensureYoungGenerationCap } from './youngGeneration';

async function serve(args: string[]): Promise<void> {
  // The gateway's modules load with the host's, not after it: once the host exists its skills
  // are being read, and the gateway should listen without waiting behind them.
  const [{ announce, closeLogger, createLogger, parseServeOptions, startServer }, { createHost }] = await Promise.all([import('../server'), import('../host'), import('../transports/http')]);
  const options = parseServeOptions(args, process.env);
  const logger = createLogger(options.logLevel);
  // The gateway answers as soon as it listens, with the builtins; skills follow (catalog.loading()).
  // A sign-in started from the console or `capstan mcp-servers login`: its address, for whoever reads this terminal.
  const presentSignIn = (server: string, url: string) => out(`Sign in to ${server} in a browser: ${url}\n`);
  const host = await createHost({ dataDir: options.dataDir, skillsDirs: options.skillsDirs, logger, skillsInBackground: true, presentSignIn });
  const rendererDir = fileURLToPath(new URL('./renderer/', import.meta.url));
  const gateway = await startServer(host, { ...options, logger, rendererDir }).catch(async (error: unknown) => {
    await host.close();
    throw error;
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await gateway.close();
    // Waits for the MCP servers Capstan started to exit (each is killed if it ignores SIGTERM).
    await host.close();
    // The last log lines get a moment; a stderr nobody reads does not hold the exit.
    await closeLogger(logger);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // The console line waits for the skills, so whoever opens it (or a test reading the line)
  // finds the whole catalog; the API has been answering since it listened.
  await host.catalog.whenLoaded();
  // Only now: whoever reads this line may signal us at once.
  announce(gateway, host);
}

/**
 * The ledger commands open the database directly, so they work with or without a running serve;
 * a data dir with no database is refused, not created (openExistingDatabase).
 */
async function ledgerCommand(args: string[]): Promise<void> {
  const [{ defaultDataDir }, { Ledger, loadLedgerKey }, { UsageError }, { openExistingDatabase }, { LEDGER_PROBLEM_NAMES }, { ledgerLine }] = await Promise.all([
    import('../paths'),
    import('../runtime/ledger'),
    import('../server'),
    import('./database'),
    import('../../shared/ledger'),
    import('./ledgerLines'),
  ]);
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      'data-dir': { type: 'string' },
      n: { type: 'string', short: 'n', default: '20' },
      follow: { type: 'boolean', short: 'f', default: false },
      after: { type: 'string', default: '0' },
      json: { type: 'boolean', default: false },
      against: { type: 'string' },
    },
    strict: true,
  });
  if (sub !== 'verify' && sub !== 'reseal' && sub !== 'tail' && sub !== 'export') throw new UsageError(`ledger needs verify, reseal, tail or export${sub ? `, not "${sub}"` : ''}`);
  const dataDir = values['data-dir'] ?? defaultDataDir();
  const db = openExistingDatabase(dataDir, { readOnly: sub !== 'reseal' });
  // A running gateway seals the head it holds in memory after each commit: reseal waits for it to stop.
  let unlock = () => {};
  try {
    if (sub === 'reseal') unlock = (await import('../store/dataDirLock')).lockDataDir(dataDir, 'reseal the ledger');
  } catch (error) {
    db.close();
    throw error;
  }
  const ledger = new Ledger(db, loadLedgerKey(dataDir, db, { create: sub === 'reseal' }));
  const printJson = (entry: LedgerEntry) => printJsonLine(entry);
  // `tail` reads as lines for a person unless --json; `export` is for scripts, always JSON lines.
  const print = sub === 'tail' && !values.json ? (entry: LedgerEntry) => out(`${ledgerLine(entry)}\n`) : printJson;
  try {
    if (sub === 'verify' || sub === 'reseal') {
      const result = sub === 'verify' ? ledger.verify() : ledger.reseal();
      if (result.ok && sub === 'verify' && values.against !== undefined) {
        process.exitCode = (await import('./ledgerAgainst')).verifyAgainst(ledger, values.against);
        return;
      }
      if (result.ok) {
        const sealed = sub === 'verify' ? `sealed at seq ${result.sealedSeq}` : 'ledger.head resealed at this head';
        process.stdout.write(`ledger ok: ${result.entries} entries, chain verified up to seq ${result.lastSeq}, ${sealed}\n`);
        if (result.chainOnlyThrough > 0) {
          const before = result.chainOnlyThrough === 1 ? 'entry #1 was' : `entries #1 to #${result.chainOnlyThrough} were`;
          const after = result.chainOnlyThrough < result.lastSeq ? `; the entries after it carry one, verified` : '';
          process.stdout.write(`note: ${before} written before entries carried a keyed MAC, and verified by the hash chain alone${after}\n`);
        }
        return;
      }
      process.stdout.write(
        `ledger BROKEN at seq ${result.brokenAt}, ${LEDGER_PROBLEM_NAMES[result.problem]}: ${result.reason} (${result.entries} entries verified before it)\n`,
      );
      if (sub === 'reseal') process.stdout.write('not resealed: only a ledger whose chain holds can be\n');
      else if (result.problem === 'checkpoint_missing') process.stdout.write('if this ledger was written before ledger.head existed, `capstan ledger reseal` accepts it as it is\n');
      else if (result.problem === 'forged' && result.reason.startsWith('it carries no MAC')) {
        process.stdout.write('if it was written by a version before entry MACs and left unsealed by a crash, `capstan ledger reseal` accepts it; an entry after one with a MAC never is\n');
      }
      process.exitCode = 1;
    } else if (sub === 'tail') {
      const count = Number(values.n);
      if (!Number.isInteger(count) || count < 1) throw new UsageError(`-n must be a positive integer, got "${values.n}"`);
      let last = 0;
      for (const entry of ledger.tail(count)) {
        print(entry);
        last = entry.seq;
      }
      if (!values.follow) return;
      // Another process appends; poll the file, which WAL makes cheap and safe.
      await new Promise<never>(() => {
        setInterval(() => {
          for (const entry of ledger.query({ after: last, limit: 1000 })) {
            print(entry);
            last = entry.seq;
          }
        }, 500);
      });
    } else {
      let after = Number(values.after);
      if (!Number.isInteger(after) || after < 0) throw new UsageError(`--after must be a sequence number, got "${values.after}"`);
      for (let page = ledger.query({ after, limit: 1000 }); page.length > 0 && !output.gone; page = ledger.query({ after, limit: 1000 })) {
        for (const entry of page) print(entry);
        after = page.at(-1)!.seq;
        // A turn of the event loop between pages, so a reader that went away (`| head -1`) is heard of.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } finally {
    if (!values.follow) db.close();
    unlock();
  }
}

const commands: Record<string, (args: string[]) => Promise<void>> = {
  serve,
  ledger: ledgerCommand,
  token: async (args) => (await import('./token')).tokenCommand(args),
  harn: async (args) => (await import('./harn')).harnCommand(args),
  // It starts `capstan serve` from this same file when no gateway runs.
  mcp: async (args) => (await import('./mcp')).mcpCommand(args, fileURLToPath(import.meta.url)),
  tools: async (args) => (await import('./operator')).toolsCommand(args),
  call: async (args) => (await import('./operator')).callCommand(args),
  tasks: async (args) => (await import('./operator')).tasksCommand(args),
  pins: async (args) => (await import('./pins')).pinsCommand(args),
  logs: async (args) => (await import('./logs')).logsCommand(args),
  resources: async (args) => (await import('./resources')).resourcesCommand(args),
  read: async (args) => (await import('./resources')).readCommand(args),
  prompts: async (args) => (await import('./resources')).promptsCommand(args),
  prompt: async (args) => (await import('./resources')).promptCommand(args),
  'mcp-servers': async (args) => (await import('./mcpServers')).mcpServersCommand(args),
};

/** Set once stdout's reader has gone away (EPIPE): nothing more is written to it. */
const output = { gone: false };

/**
 * A reader that goes away is not a failure: `capstan ledger export | head -1`, `capstan serve |
 * head -1`, a terminal closed under the process. Once stdout answers EPIPE nothing more is written
 * to it, and a command that only prints is done: it ends there, quietly, with 0. `serve` keeps
 * serving (its console line had nowhere to go; the API does not need it). A broken stderr is
 * ignored likewise. `capstan mcp` is left out: its stdout is the MCP connection, its transport's.
 */
function quietOnBrokenPipes(command: string): void {
  if (command === 'mcp') return;
  const broken = (error: NodeJS.ErrnoException) => error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED';
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!broken(error)) throw error;
    if (output.gone) return;
    output.gone = true;
    process.stdout.write = () => true;
    if (command !== 'serve') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (!broken(error)) throw error;
    process.stderr.write = () => true;
  });
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `capstan <command> [sub] --help` (or -h) anywhere before a `--`: that command's usage, nothing run.
  const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  const wantsHelp = options.includes('--help') || options.includes('-h');
  // Before process.stdout or stderr exists: this may replace the process (youngGeneration.ts).
  if (command === 'serve' && !wantsHelp) ensureYoungGenerationCap();
  if (command) quietOnBrokenPipes(command);
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) {
    process.stderr.write(`capstan: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  if (wantsHelp) {
    process.stdout.write(commandUsage(command, rest[0]) ?? USAGE);
    return 0;
  }
  try {
    await run(rest);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    const [{ UsageError }, { ConfigError }, { OperatorError }] = await Promise.all([import('../server'), import('../config'), import('./errors')]);
    const misuse = error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    err(`capstan ${command}: ${(error as Error).message}\n`);
    if (error instanceof OperatorError) return error.exitCode;
    return misuse ? 2 : 1;
  }
}

const exitCode = await main(process.argv.slice(2));
if (exitCode !== 0) process.exit(exitCode);
