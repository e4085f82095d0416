/**
 * The ledger's log stream over a process's whole life, through the real `capstan serve` and an
 * OTLP/HTTP receiver on loopback (test/support/otlpReceiver.ts): a process killed with -9 while
 * an agent's call waited for approval, then a restart whose stream begins with what its recovery
 * wrote (written before anything else could run) and, stopped with SIGTERM while another call
 * waited, ends with what its stop wrote. In between nothing is missing: the restart's stream is
 * every seq from its first entry to the ledger's last, and `ledger verify --against` accepts it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../shared/ledger';
import { runCli } from '../support/cliProcess';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlpReceiver';
import { killAll, startServe, type ServeProcess } from '../support/serveProcess';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-telemetry-life-'));
const token = 'telemetry-lifetime-token-0123456789';
let target: LoopbackServer;
let receiver: OtlpReceiver;
const started: ServeProcess[] = [];

beforeAll(async () => {
  target = await startLoopbackServer();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await killAll(started);
  await target.close();
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function request(serve: ServeProcess, bearer: string, path: string, body?: unknown): Promise<Json> {
  const response = await fetch(`${serve.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return (await response.json()) as Json;
}

/** Starts `capstan serve` and has an agent's call wait for the operator's approval. */
async function serveWithWaitingCall(requestId: string): Promise<ServeProcess> {
  const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: token });
  started.push(serve);
  const { token: agentToken } = await request(serve, token, '/agents', { name: `agent-${requestId}` });
  void fetch(`${serve.url}/tools/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'http_check', arguments: { url: `${target.url}/never`, method: 'GET' }, requestId }),
  }).catch(() => undefined);
  await expect.poll(async () => (await request(serve, token, `/ledger?requestId=${requestId}`)).entries.length, { timeout: 10_000 }).toBe(1);
  return serve;
}

const streamed = (): LedgerEntry[] =>
  receiver.logs.map((log) => ({ seq: log.attributes['capstan.ledger.seq'], kind: log.attributes['capstan.ledger.kind'], principal: log.attributes['capstan.principal'], requestId: log.attributes['capstan.request_id'], details: JSON.parse(log.attributes['capstan.ledger.details'] as string) }) as LedgerEntry);

describe('the ledger stream across a kill -9, a restart and a stop', () => {
  it('begins with restart recovery, ends with what the stop wrote, and misses nothing in between', async () => {
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['127.0.0.1/32'] }, approvals: { timeoutMs: 600_000 } }));
    const first = await serveWithWaitingCall('waits-at-kill');
    const before = (await request(first, token, '/ledger?limit=1000')).entries as LedgerEntry[];
    first.child.kill('SIGKILL');
    await first.exited;

    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['127.0.0.1/32'] }, approvals: { timeoutMs: 600_000 }, telemetry: { endpoint: receiver.url } }));
    const second = await serveWithWaitingCall('waits-at-stop');
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);

    const entries = streamed();
    const firstSeq = before.at(-1)!.seq + 1;
    expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: entries.length }, (_, index) => firstSeq + index));
    // The restart's first entries are its recovery of the killed call, in the gateway's name.
    expect(entries[0]).toMatchObject({ kind: 'approval_decided', principal: 'system', requestId: 'waits-at-kill', details: { decision: 'expired', reason: 'gateway restarted' } });
    // The stop's withdrawal of the waiting approval went out before the process exited.
    expect(entries.find((entry) => entry.kind === 'approval_decided' && entry.requestId === 'waits-at-stop')).toMatchObject({ principal: 'system', details: { reason: 'the gateway stopped' } });

    // The ledger holds nothing after the stream's last entry, and the stream is the ledger's.
    const stream = join(dataDir, 'stream.jsonl');
    writeFileSync(stream, `${receiver.logLines.join('\n')}\n`);
    const checked = await runCli(['ledger', 'verify', '--against', stream, '--data-dir', dataDir]);
    expect(checked.stdout).toContain(`stream ok: ${entries.length} entries match the ledger (entries #${firstSeq} to #${entries.at(-1)!.seq})`);
    const whole = await runCli(['ledger', 'verify', '--data-dir', dataDir]);
    expect(whole.stdout).toContain(`ledger ok: ${entries.at(-1)!.seq} entries, chain verified up to seq ${entries.at(-1)!.seq}`);
  }, 60_000);
});
