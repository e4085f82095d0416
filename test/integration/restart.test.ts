/**
 * kill -9 in the middle of a mutating call, then a restart: the ledger is the truth. The first
 * process is a real host and gateway with a test tool that never ends (hostWithTestTools.ts);
 * the second is the real `capstan serve` on the same data dir.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHostWithTestTools, startServe, type ServeProcess } from '../support/serveProcess';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-restart-'));
const token = 'restart-test-token-0123456789';
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function client(server: ServeProcess) {
  const request = async (path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  return { request, call: (body: Json) => request('/tools/call', body) };
}

describe('a restart after kill -9', () => {
  it('closes the interrupted task, lists the unknown outcome, blocks mutations until acknowledged, and keeps revocations and switches', async () => {
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ grants: [{ pattern: 'builtin:*', authority: 'execute' }, { pattern: 'skills:*', authority: 'activate' }, { pattern: 'test:*', authority: 'execute' }] }),
    );
    const first = await startHostWithTestTools(dataDir, token);
    const before = client(first);
    expect((await before.request('/catalog/revoked', { id: 'builtin:todo_list', revoked: true })).status).toBe(200);
    expect((await before.request('/providers/enabled', { provider: 'skills', enabled: false })).status).toBe(200);
    expect((await before.call({ tool: 'note_add', sessionId: 'ops', arguments: { title: 'before', body: 'written before the crash' } })).status).toBe(200);

    // A mutating call that never ends; once its start is on record, the process is killed.
    void before.call({ tool: 'stubborn_write', sessionId: 'ops', requestId: 'lost-write' }).catch(() => undefined);
    await expect.poll(async () => (await before.request('/ledger?requestId=lost-write')).body.entries.length, { timeout: 10_000 }).toBe(1);
    first.child.kill('SIGKILL');
    await first.exited;

    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--token', token]);
    try {
      const after = client(serve);
      const { body: view } = await after.request('/tasks');
      const interrupted = view.tasks.find((task: Json) => task.sessionId === 'ops');
      expect(interrupted).toMatchObject({ title: 'Manual calls', state: 'failed', callCounts: { ok: 1, outcome_unknown: 1 }, callsInFlight: 0 });
      const { body: trail } = await after.request(`/ledger?taskId=${interrupted.id}`);
      expect(trail.entries.at(-1)).toMatchObject({ kind: 'task_transition', details: { from: 'running', to: 'failed', reason: 'gateway restarted' } });
      expect(trail.entries.find((e: Json) => e.kind === 'call_finished' && e.requestId === 'lost-write').details).toMatchObject({ status: 'outcome_unknown' });
      expect(view.sessions.find((s: Json) => s.id === 'ops').unknownOutcomes).toMatchObject([{ requestId: 'lost-write', capability: 'test:stubborn_write' }]);

      // The mutation gate holds across the restart: writes wait for the acknowledgement, reads run.
      const blocked = await after.call({ tool: 'note_add', sessionId: 'ops', arguments: { title: 'after', body: 'x' } });
      expect(blocked.status).toBe(423);
      expect(blocked.body.error).toMatchObject({ code: 'MUTATION_BLOCKED', blockedBy: 'lost-write' });
      expect((await after.call({ tool: 'time_now', sessionId: 'ops' })).status).toBe(200);
      expect((await after.request(`/tasks/${interrupted.id}/acknowledge`, { requestId: 'lost-write' })).status).toBe(200);
      expect((await after.call({ tool: 'note_add', sessionId: 'ops', arguments: { title: 'after', body: 'x' } })).status).toBe(200);

      // The operator's revocation and provider switch were kept.
      expect((await after.call({ tool: 'todo_list' })).body.error).toMatchObject({ code: 'CAPABILITY_REVOKED' });
      const { body: catalog } = await after.request('/catalog');
      expect(catalog.providers.find((p: Json) => p.name === 'skills')).toMatchObject({ enabled: false });
      expect((await after.request('/ledger/verify')).body).toMatchObject({ ok: true });
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
});

describe('a stop with calls running', () => {
  it('ends each call it cuts off on record before the database closes: no fault in its log, nothing left for the next start to guess', async () => {
    const stopDir = mkdtempSync(join(tmpdir(), 'capstan-stop-'));
    writeFileSync(join(stopDir, 'config.json'), JSON.stringify({ grants: [{ pattern: 'test:*', authority: 'execute' }], cancellation: { graceMs: 300 } }));
    const first = await startHostWithTestTools(stopDir, token);
    try {
      const before = client(first);
      void before.call({ tool: 'polite_read', sessionId: 'cut', requestId: 'cut-polite' }).catch(() => undefined);
      void before.call({ tool: 'stubborn_write', sessionId: 'cut', requestId: 'cut-stubborn' }).catch(() => undefined);
      await expect.poll(async () => (await before.request('/ledger?kind=call_started')).body.entries.length, { timeout: 10_000 }).toBe(2);
      first.child.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });
      expect(first.stderr()).not.toContain('"level":50');

      const serve = await startServe(['--port', '0', '--data-dir', stopDir, '--token', token]);
      try {
        const after = client(serve);
        const ended = async (requestId: string) => (await after.request(`/ledger?requestId=${requestId}&kind=call_finished`)).body.entries;
        // The polite read stopped when told; the stubborn write was given its grace, and is on record as unknown.
        expect(await ended('cut-polite')).toMatchObject([{ details: { status: 'cancelled' } }]);
        expect(await ended('cut-stubborn')).toMatchObject([{ details: { status: 'outcome_unknown' } }]);
        expect((await after.request('/ledger?requestId=cut-stubborn&kind=cancellation')).body.entries).toHaveLength(1);
      } finally {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
    } finally {
      first.child.kill('SIGKILL');
      rmSync(stopDir, { recursive: true, force: true });
    }
  });
});
