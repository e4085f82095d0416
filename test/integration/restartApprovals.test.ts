/**
 * Issue 18 item 14: kill -9 while an agent's call waits for the operator's approval, then a
 * restart. The real `capstan serve` both times, on the same data dir: the approval the killed
 * process left without a decision is closed by the restart recovery as expired, "gateway
 * restarted", recorded by `system`, and nothing is left pending or runs. The same for a
 * server's question (server-everything's elicitation) waiting for the operator: withdrawn.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../shared/ledger';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { everythingStdio } from '../support/mcp';
import { killAll, startServe, type ServeProcess } from '../support/serveProcess';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-restart-approval-'));
const asksDir = mkdtempSync(join(tmpdir(), 'capstan-restart-ask-'));
const token = 'restart-approval-token-0123456789';
let target: LoopbackServer;
const started: ServeProcess[] = [];

beforeAll(async () => {
  target = await startLoopbackServer();
});
afterAll(async () => {
  await killAll(started);
  await target.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(asksDir, { recursive: true, force: true });
});

async function request(serve: ServeProcess, bearer: string, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${serve.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

describe('a restart after kill -9 during an approval wait', () => {
  it('closes the approval as expired ("gateway restarted"), recorded by system, with nothing left pending', async () => {
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['127.0.0.1/32'] }, approvals: { timeoutMs: 600_000 } }));
    const first = await startServe(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: token });
    started.push(first);
    const created = await request(first, token, '/agents', { name: 'waiter' });
    expect(created.status).toBe(200);
    const agentToken = created.body.token as string;

    void request(first, agentToken, '/tools/call', { tool: 'http_check', arguments: { url: `${target.url}/never`, method: 'GET' }, requestId: 'waits-at-crash' }).catch(() => undefined);
    await expect.poll(async () => (await request(first, token, '/approvals')).body.pending.length, { timeout: 10_000 }).toBe(1);
    // The request is on record (answers wait for durability); then the process dies without a word.
    await expect.poll(async () => (await request(first, token, '/ledger?requestId=waits-at-crash')).body.entries.length, { timeout: 10_000 }).toBe(1);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServe(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: token });
    started.push(second);
    const entries = (await request(second, token, '/ledger?requestId=waits-at-crash')).body.entries as LedgerEntry[];
    const [requested, decided] = entries;
    expect(entries.map((entry) => [entry.kind, entry.principal])).toEqual([
      ['approval_requested', 'agent:waiter'],
      ['approval_decided', 'system'],
    ]);
    expect(decided).toMatchObject({
      taskId: requested!.taskId,
      sessionId: requested!.sessionId,
      capability: 'builtin:http_check',
      details: { approvalId: requested!.details.approvalId, decision: 'expired', reason: 'gateway restarted', agent: 'agent:waiter' },
    });
    expect((await request(second, token, '/approvals')).body.pending).toEqual([]);
    expect(target.hits).toEqual([]);
    // Its task was closed by the same recovery, after the approval.
    const trail = (await request(second, token, `/ledger?taskId=${requested!.taskId}`)).body.entries as LedgerEntry[];
    expect(trail.at(-1)).toMatchObject({ kind: 'task_transition', principal: 'system', details: { to: 'failed', reason: 'gateway restarted' } });
    expect(trail.findIndex((entry) => entry.kind === 'approval_decided')).toBeLessThan(trail.length - 1);
    expect((await request(second, token, '/ledger/verify')).body).toMatchObject({ ok: true });

    // A second restart finds nothing more to close.
    second.child.kill('SIGTERM');
    await second.exited;
    const third = await startServe(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: token });
    started.push(third);
    expect(((await request(third, token, '/ledger?requestId=waits-at-crash')).body.entries as LedgerEntry[]).length).toBe(2);
  }, 60_000);
});

describe('a restart after kill -9 while a server asks the operator', () => {
  it('closes the question as withdrawn ("gateway restarted"), recorded by system, with nothing left pending', async () => {
    writeFileSync(join(asksDir, 'config.json'), JSON.stringify({ approvals: { timeoutMs: 600_000 }, mcpServers: { everything: everythingStdio() } }));
    const first = await startServe(['--port', '0', '--data-dir', asksDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: token });
    started.push(first);
    await expect.poll(async () => ((await request(first, token, '/catalog')).body.providers as Json[]).find((p) => p.name === 'everything')?.status?.state, { timeout: 30_000 }).toBe('ready');

    void request(first, token, '/tools/call', { tool: 'everything:trigger-elicitation-request', requestId: 'asks-at-crash' }).catch(() => undefined);
    await expect.poll(async () => (await request(first, token, '/asks')).body.pending.length, { timeout: 15_000 }).toBe(1);
    await expect.poll(async () => ((await request(first, token, '/ledger?requestId=asks-at-crash')).body.entries as LedgerEntry[]).some((entry) => entry.kind === 'server_asked'), { timeout: 10_000 }).toBe(true);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServe(['--port', '0', '--data-dir', asksDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: token });
    started.push(second);
    const entries = (await request(second, token, '/ledger?requestId=asks-at-crash')).body.entries as LedgerEntry[];
    const asked = entries.find((entry) => entry.kind === 'server_asked')!;
    const answered = entries.filter((entry) => entry.kind === 'server_answered');
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({
      principal: 'system',
      taskId: asked.taskId,
      capability: 'everything:trigger-elicitation-request',
      details: { askId: asked.details.askId, server: 'everything', ask: 'elicitation', answer: 'withdrawn', reason: 'gateway restarted' },
    });
    // The call it was asked during ends with it, its outcome unknown, and its task is closed.
    expect(entries.at(-1)).toMatchObject({ kind: 'call_finished', details: { status: 'outcome_unknown', reason: 'gateway restarted' } });
    expect((await request(second, token, '/asks')).body.pending).toEqual([]);
    expect((await request(second, token, '/ledger/verify')).body).toMatchObject({ ok: true });
  }, 90_000);
});
