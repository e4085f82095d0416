/**
 * Ledger costs, each against a baseline in the same run:
 * - appends per second (hash chain + HMAC digests + keyed checkpoint, WAL) against a plain INSERT
 *   loop of the same rows, with the database's `synchronous = FULL` (the default: a commit
 *   survives a power loss) and with NORMAL (a commit survives a killed process only);
 * - the checkpoint's own cost: the time spent writing ledger.head, once per commit, measured in
 *   the serial run (right after a flushed commit, where it costs most);
 * - gateway call throughput with the ledger durable, unflushed and off, each host in a process
 *   of its own apart from the load generator;
 * - the delay from a call's end (its ledger entry appended) to its event reaching an SSE client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startHttpGateway } from '../../electron/transports/http';
import { createHost } from '../../electron/host';
import { Ledger, LedgerHead, loadLedgerKey } from '../../electron/runtime/ledger';
import { createLogger } from '../../electron/server';
import { DatabaseSync } from 'node:sqlite';
import { DATABASE_FILE, openDatabase, type Database } from '../../electron/store/database';
import { GroupCommit } from '../../electron/store/groupCommit';
import type { LedgerEntry } from '../../shared/ledger';
import { measureRounds, startServer, stopServer, type Measured, type Server } from './gatewayThroughput';

export type Synchronous = 'FULL' | 'NORMAL';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** The bench's way to measure what FULL costs: the product always opens with FULL, whose per-commit sync the group commit then does off the event loop. */
const useSynchronous = (db: Database, synchronous: Synchronous) => db.exec(`PRAGMA synchronous = ${synchronous}`);

/**
 * Two shapes of load. One client calling serially: each append is awaited until durable (one
 * commit and one checkpoint write each), against a plain INSERT that commits each row. Many calls
 * at once: a burst of appends sharing one group commit, against a plain INSERT loop in one
 * transaction.
 */
export async function benchLedgerAppends(synchronous: Synchronous, count = 20_000, serial = 500) {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-ledger-'));
  const db = openDatabase(dir);
  useSynchronous(db, synchronous);
  try {
    const ledger = new Ledger(db, loadLedgerKey(dir, db));
    const entry = (i: number) => ({
      kind: 'call_finished' as const,
      taskId: `task-${i % 50}`,
      sessionId: 'bench',
      requestId: `r-${i}`,
      capability: 'builtin:time_now',
      details: { status: 'ok', durationMs: 1.2, resultDigest: ledger.digest({ i }) },
    });
    // The baseline on a connection of its own, where SQLite itself syncs per the setting: the
    // ledger's group commit takes the syncing of its connection over (store/groupCommit.ts).
    const plainDb = new DatabaseSync(join(dir, DATABASE_FILE));
    plainDb.exec(`PRAGMA synchronous = ${synchronous}; PRAGMA busy_timeout = 5000;`);
    plainDb.exec(`CREATE TABLE plain (seq INTEGER PRIMARY KEY, at TEXT, kind TEXT, task_id TEXT, session_id TEXT, request_id TEXT, capability TEXT, details TEXT);
      CREATE INDEX plain_by_task ON plain (task_id, seq); CREATE INDEX plain_by_request ON plain (request_id, seq);`);
    const insert = plainDb.prepare('INSERT INTO plain VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    let plainSeq = 0;
    const plainInsert = (i: number) => {
      const e = entry(i);
      insert.run(++plainSeq, new Date().toISOString(), e.kind, e.taskId, e.sessionId, e.requestId, e.capability, JSON.stringify(e.details));
    };
    const rate = (ms: number, n: number) => n / (ms / 1000);

    // Time each checkpoint write where it happens, in the commit's listener.
    const checkpointMs: number[] = [];
    const write = LedgerHead.prototype.write;
    LedgerHead.prototype.write = function (this: LedgerHead, checkpoint) {
      const started = performance.now();
      write.call(this, checkpoint);
      checkpointMs.push(performance.now() - started);
    };
    let started = performance.now();
    try {
      for (let i = 0; i < serial; i++) {
        ledger.append(entry(i));
        await ledger.durable();
      }
    } finally {
      LedgerHead.prototype.write = write;
    }
    const serialMs = performance.now() - started;
    const ledgerSerial = rate(serialMs, serial);
    checkpointMs.sort((a, b) => a - b);
    const checkpoint = {
      writes: checkpointMs.length,
      p50Us: percentile(checkpointMs, 50) * 1000,
      meanUs: (checkpointMs.reduce((a, b) => a + b, 0) / checkpointMs.length) * 1000,
      /** Of the serial run's time: one commit and one checkpoint per append. */
      share: checkpointMs.reduce((a, b) => a + b, 0) / serialMs,
    };
    started = performance.now();
    for (let i = 0; i < serial; i++) plainInsert(i);
    const plainSerial = rate(performance.now() - started, serial);

    started = performance.now();
    for (let i = 0; i < count; i++) ledger.append(entry(serial + i));
    await ledger.durable();
    const ledgerBurst = rate(performance.now() - started, count);
    started = performance.now();
    plainDb.exec('BEGIN');
    for (let i = 0; i < count; i++) plainInsert(serial + i);
    plainDb.exec('COMMIT');
    plainDb.close();
    const plainBurst = rate(performance.now() - started, count);

    started = performance.now();
    const verified = ledger.verify();
    if (!verified.ok) throw new Error(`the bench's ledger does not verify: ${verified.reason}`);
    return {
      synchronous,
      serial: { count: serial, ledger: ledgerSerial, plain: plainSerial },
      checkpoint,
      burst: { count, ledger: ledgerBurst, plain: plainBurst },
      verifyMs: performance.now() - started,
      verifiedEntries: verified.entries,
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ways the gateway bench runs `capstan serve`'s host: see `serveVariant`. */
export type Variant = 'durable' | 'unflushed' | 'off';

/**
 * Run in a child process (`node dist/bench.js --serve <variant>`): the host `capstan serve`
 * builds, at its default log level (lines to stderr, which the bench discards), behind the HTTP
 * gateway, with the ledger
 * - `durable`: as shipped: every answer waits until its entries are flushed to disk;
 * - `unflushed`: the connection left at `synchronous = NORMAL`, so the group commit never
 *   flushes (what survives a killed process, not a power loss);
 * - `off`: appends and digests replaced by no-ops, so the call path does no ledger work at all
 *   (the task rows are still written, and answers do not wait for them).
 * Prints the console line the parent reads; stops on SIGTERM.
 */
export async function serveVariant(variant: Variant): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `capstan-bench-${variant}-`));
  if (variant === 'unflushed') {
    // Before the host's first use of the connection's group commit, which keeps what it finds.
    const of = GroupCommit.of.bind(GroupCommit);
    GroupCommit.of = (db) => {
      db.exec('PRAGMA synchronous = NORMAL');
      return of(db);
    };
  }
  const logger = createLogger('info');
  const host = await createHost({ dataDir: dir, logger });
  if (variant === 'off') {
    const none = { seq: 0, hash: '' } as LedgerEntry;
    host.ledger.append = () => none;
    host.ledger.digest = () => '';
    host.ledger.durable = () => Promise.resolve();
  }
  const gateway = await startHttpGateway({ handlers: host.handlers, events: host.events, ledger: host.ledger, logger, token: 'bench-token', host: '127.0.0.1', port: 0 });
  console.log(`Capstan console: ${gateway.url}/#token=bench-token`);
  process.once('SIGTERM', () => {
    void gateway
      .close()
      .then(() => host.close())
      .finally(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
  });
}

/** The gateway with the ledger durable, unflushed and off, each a `capstan serve` host in a child process, in interleaved rounds. */
export async function benchLedgerThroughput(bench: string, rounds = 4, seconds = 2) {
  const servers: Server[] = [];
  try {
    for (const variant of ['durable', 'unflushed', 'off'] as const) servers.push(await startServer(variant, [bench, '--serve', variant]));
    const [durable, unflushed, off] = (await measureRounds(servers, rounds, seconds)) as [Measured, Measured, Measured];
    return { durable, unflushed, off, rounds, seconds, overOff: durable.requestsPerSecond / off.requestsPerSecond, overUnflushed: durable.requestsPerSecond / unflushed.requestsPerSecond };
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

/**
 * From a call's `call_finished` entry being appended (the clock starts inside `append`, before the
 * group commit and its flush) to its event arriving at an SSE client; 10 calls in flight, as
 * under load, so the wait for a shared flush is in the figure.
 */
export async function benchEventDelay(calls = 300, inFlight = 10) {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-sse-'));
  const logger = pino({ level: 'silent' });
  const host = await createHost({ dataDir: dir, logger });
  const appendedAt = new Map<string, number>();
  const append = host.ledger.append.bind(host.ledger);
  host.ledger.append = (input) => {
    const entry = append(input);
    if (entry.kind === 'call_finished' && entry.requestId) appendedAt.set(entry.requestId, performance.now());
    return entry;
  };
  const gateway = await startHttpGateway({ handlers: host.handlers, events: host.events, ledger: host.ledger, logger, token: 'bench-token', host: '127.0.0.1', port: 0 });
  const headers = { authorization: 'Bearer bench-token' };
  try {
    const response = await fetch(`${gateway.url}/events`, { headers });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const delays: number[] = [];
    let buffer = '';
    const reading = (async () => {
      while (delays.length < calls) {
        const { value, done } = await reader.read();
        if (done) return;
        const receivedAt = performance.now();
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const match = /"kind":"call_finished"[^\n]*"requestId":"(delay-\d+)"/.exec(block);
          const at = match ? appendedAt.get(match[1]!) : undefined;
          if (at !== undefined) delays.push(receivedAt - at);
        }
      }
    })();
    let next = 0;
    const caller = async () => {
      while (next < calls) {
        const requestId = `delay-${next++}`;
        await fetch(`${gateway.url}/tools/call`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ tool: 'time_now', requestId }),
        });
      }
    };
    await Promise.all(Array.from({ length: inFlight }, caller));
    await reading;
    await reader.cancel();
    delays.sort((a, b) => a - b);
    return { calls, inFlight, p50Ms: percentile(delays, 50), p99Ms: percentile(delays, 99), maxMs: delays.at(-1)! };
  } finally {
    await gateway.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
