#!/usr/bin/env node
/**
 * `capstan <command>`: the headless face of Capstan. `serve` runs the same host as the
 * Electron app and serves the console to a browser on loopback.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startHttpGateway } from './gateway/http';
import { ConfigError } from './config';
import { createHost } from './host';
import { defaultDataDir } from './paths';
import { Ledger, loadLedgerKey } from './runtime/ledger';
import { openDatabase } from './store/database';
import type { LedgerEntry } from '../shared/ledger';

const USAGE = `Usage: capstan <command> [options]

Commands:
  serve    Run the gateway and serve the console on loopback
           --port N        port to listen on (default 7077; 0 = any free port)
           --host H        address to bind (default 127.0.0.1)
           --token T       API bearer token (default: $CAPSTAN_TOKEN, else random)
           --data-dir DIR  where the database, config.json and skills/ live
                           (default: the per-user app-data folder)
           --skills-dir D  another folder of <name>/SKILL.md skills (repeatable)
           --log-level L   fatal, error, warn, info, debug or silent (default info; logs go to stderr)
  ledger verify    Check the ledger's hash chain; exit 1 and name the first broken entry
  ledger tail      Print the last entries (-n N, default 20; --follow to keep printing new ones)
  ledger export    Print every entry as JSON lines (--after SEQ to start later)
           --data-dir DIR  as for serve
`;

export class UsageError extends Error {}

export const DEFAULT_PORT = 7077;

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string' },
      'data-dir': { type: 'string' },
      'skills-dir': { type: 'string', multiple: true, default: [] },
      'log-level': { type: 'string', default: 'info' },
    },
    strict: true,
  });
  const port = parsePort(values.port);
  const token = values.token || process.env.CAPSTAN_TOKEN || randomBytes(24).toString('base64url');
  const logger = pino({ level: values['log-level'], base: undefined }, pino.destination(2));
  const host = await createHost({ dataDir: values['data-dir'] ?? defaultDataDir(), skillsDirs: values['skills-dir'], logger });
  const gateway = await startHttpGateway({
    handlers: host.handlers,
    events: host.events,
    ledger: host.ledger,
    logger,
    token,
    host: values.host,
    port,
    rendererDir: fileURLToPath(new URL('./renderer/', import.meta.url)),
  }).catch((error: unknown) => {
    host.close();
    throw error;
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await gateway.close();
    host.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // Only now: whoever reads this line may signal us at once.
  process.stdout.write(`Capstan console: ${gateway.consoleUrl}\n`);
  logger.info({ url: gateway.url, dataDir: host.dataDir }, 'gateway listening');
}

/** The ledger commands open the database directly, so they work with or without a running serve. */
async function ledgerCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      'data-dir': { type: 'string' },
      n: { type: 'string', short: 'n', default: '20' },
      follow: { type: 'boolean', short: 'f', default: false },
      after: { type: 'string', default: '0' },
    },
    strict: true,
  });
  const dataDir = values['data-dir'] ?? defaultDataDir();
  const db = openDatabase(dataDir);
  const ledger = new Ledger(db, loadLedgerKey(dataDir));
  const print = (entry: LedgerEntry) => process.stdout.write(`${JSON.stringify(entry)}\n`);
  try {
    if (sub === 'verify') {
      const result = ledger.verify();
      if (result.ok) {
        process.stdout.write(`ledger ok: ${result.entries} entries, chain verified up to seq ${result.lastSeq}\n`);
        return;
      }
      process.stdout.write(`ledger BROKEN at seq ${result.brokenAt}: ${result.reason} (${result.entries} entries verified before it)\n`);
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
    } else if (sub === 'export') {
      let after = Number(values.after);
      if (!Number.isInteger(after) || after < 0) throw new UsageError(`--after must be a sequence number, got "${values.after}"`);
      for (let page = ledger.query({ after, limit: 1000 }); page.length > 0; page = ledger.query({ after, limit: 1000 })) {
        for (const entry of page) print(entry);
        after = page.at(-1)!.seq;
      }
    } else {
      throw new UsageError(`ledger needs verify, tail or export${sub ? `, not "${sub}"` : ''}`);
    }
  } finally {
    if (!values.follow) db.close();
  }
}

const commands: Record<string, (args: string[]) => Promise<void>> = { serve, ledger: ledgerCommand };

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const run = commands[command];
  if (!run) {
    process.stderr.write(`capstan: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  try {
    await run(rest);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    const usage = error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`capstan ${command}: ${(error as Error).message}\n`);
    return usage ? 2 : 1;
  }
}

const exitCode = await main(process.argv.slice(2));
if (exitCode !== 0) process.exit(exitCode);
