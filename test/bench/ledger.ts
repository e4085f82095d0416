/**
 * Ledger costs, each against a baseline in the same run:
 * - appends per second (hash chain + HMAC digests + keyed checkpoint, WAL) against a plain INSERT
 *   loop of the same rows, with the database's `synchronous = FULL` (the default: a commit
 *   survives a power loss) and with NORMAL (a commit survives a killed process only);
 * - the checkpoint's own cost: the time spent writing ledger.head, once per commit, measured in
 *   the serial run (right after a flushed commit, where it costs most);
 * - gateway call throughput with the ledger on (FULL, then NORMAL) and off (appends a no-op);
 * - the delay from a call's end (its ledger entry) to its event reaching an SSE client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pino from 'pino';
import { startHttpGateway } from '../../electron/gateway/http';
import { createHost, type Host } from '../../electron/host';
import { Ledger, LedgerHead, loadLedgerKey } from '../../electron/runtime/ledger';
import { openDatabase, type Database } from '../../electron/store/database';
import type { LedgerEntry } from '../../shared/ledger';

export type Synchronous = 'FULL' | 'NORMAL';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** The bench's way to measure what FULL costs: the product always opens with FULL. */
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
    const ledger = new Ledger(db, loadLedgerKey(dir));
    const entry = (i: number) => ({
      kind: 'call_finished' as const,
      taskId: `task-${i % 50}`,
      sessionId: 'bench',
      requestId: `r-${i}`,
      capability: 'builtin:time_now',
      details: { status: 'ok', durationMs: 1.2, resultDigest: ledger.digest({ i }) },
    });
    db.exec(`CREATE TABLE plain (seq INTEGER PRIMARY KEY, at TEXT, kind TEXT, task_id TEXT, session_id TEXT, request_id TEXT, capability TEXT, details TEXT);
      CREATE INDEX plain_by_task ON plain (task_id, seq); CREATE INDEX plain_by_request ON plain (request_id, seq);`);
    const insert = db.prepare('INSERT INTO plain VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
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
    db.exec('BEGIN');
    for (let i = 0; i < count; i++) plainInsert(serial + i);
    db.exec('COMMIT');
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

async function withGateway<T>(configure: (host: Host) => void, use: (url: string, token: string, host: Host) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-gw-'));
  const logger = pino({ level: 'silent' });
  const host = await createHost({ dataDir: dir, logger });
  configure(host);
  const gateway = await startHttpGateway({ handlers: host.handlers, events: host.events, ledger: host.ledger, logger, token: 'bench', host: '127.0.0.1', port: 0 });
  try {
    return await use(gateway.url, 'bench', host);
  } finally {
    await gateway.close();
    host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function throughput(url: string, token: string, seconds: number) {
  const result = await autocannon({
    url: `${url}/tools/call`,
    method: 'POST',
    connections: 10,
    duration: seconds,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'time_now', arguments: {} }),
  });
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99 };
}

export async function benchLedgerThroughput(seconds = 6) {
  const measure = async (url: string, token: string) => {
    await throughput(url, token, 1);
    return throughput(url, token, seconds);
  };
  const on = await withGateway(() => {}, measure);
  const normal = await withGateway((host) => useSynchronous(host.db, 'NORMAL'), measure);
  const off = await withGateway(
    (host) => {
      // The baseline: the same gateway and runtime with nothing written to the ledger.
      const fake = { seq: 0, hash: '' } as LedgerEntry;
      host.ledger.append = () => fake;
    },
    measure,
  );
  return { on, normal, off, ratio: on.requestsPerSecond / off.requestsPerSecond, fullOverNormal: on.requestsPerSecond / normal.requestsPerSecond };
}

/** From a call's ledger entry being written to its event arriving at an SSE client. */
export async function benchEventDelay(calls = 300) {
  return withGateway(
    () => {},
    async (url, token, host) => {
      const appendedAt = new Map<string, number>();
      host.ledger.onAppend((entry) => {
        if (entry.kind === 'call_finished' && entry.requestId) appendedAt.set(entry.requestId, performance.now());
      });
      const response = await fetch(`${url}/events`, { headers: { authorization: `Bearer ${token}` } });
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
      for (let i = 0; i < calls; i++) {
        await fetch(`${url}/tools/call`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tool: 'time_now', requestId: `delay-${i}` }),
        });
      }
      await reading;
      await reader.cancel();
      delays.sort((a, b) => a - b);
      return { calls, p50Ms: percentile(delays, 50), p99Ms: percentile(delays, 99), maxMs: delays.at(-1)! };
    },
  );
}
