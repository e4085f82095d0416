import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { politeRead, stubbornWrite } from '../support/runtime';

let gw: TestGateway;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const post = async (path: string, body: Json = {}) => {
  const response = await gw.request(path, { method: 'POST', body });
  return { status: response.status, body: (await response.json()) as Json };
};
const get = async (path: string) => (await (await gw.request(path)).json()) as Json;

beforeAll(async () => {
  gw = await startTestGateway({
    config: {
      cancellation: { graceMs: 300 },
      grants: [
        { pattern: 'builtin:*', authority: 'execute' },
        { pattern: 'test:*', authority: 'execute' },
      ],
    },
  });
  await gw.host.catalog.addProvider({ name: 'test', kind: 'builtin', load: () => ({ tools: [stubbornWrite, politeRead], skills: [], diagnostics: [] }) });
});
afterAll(() => gw.stop());

describe('tasks over HTTP', () => {
  it('starts a titled task, steers it, queues a follow-up, finishes, and hands off', async () => {
    const started = await post('/tasks', { action: 'start', sessionId: 'floor3', title: 'printer offline on floor 3', input: 'The printer is offline' });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ title: 'printer offline on floor 3', state: 'running', sessionId: 'floor3' });
    const again = await post('/tasks', { action: 'start', sessionId: 'floor3', title: 'another' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('TASK_ACTIVE');

    await post('/tasks', { action: 'steer', sessionId: 'floor3', text: 'It shows E-41' });
    const call = await gw.call({ tool: 'time_now', sessionId: 'floor3', requestId: 'floor3-time' });
    expect(call.body).toMatchObject({ ok: true, taskId: started.body.id });
    const followUp = await post('/tasks', { action: 'follow_up', sessionId: 'floor3', title: 'order toner', requiresSuccess: true });
    expect(followUp.body.state).toBe('queued');
    const finished = await post('/tasks', { action: 'finish', sessionId: 'floor3', message: 'Fuser replaced.', outcome: 'succeeded' });
    expect(finished.body.state).toBe('succeeded');

    const view = await get('/tasks');
    const successor = view.tasks.find((t: Json) => t.id === followUp.body.id);
    expect(successor.state).toBe('running');
    expect(successor.handoff).toMatchObject({
      predecessorId: started.body.id,
      terminalStatus: 'succeeded',
      finalMessage: 'Fuser replaced.',
      callCounts: { ok: 1 },
      discoverable: expect.arrayContaining(['builtin:time_now', 'test:stubborn_write']),
    });
    expect(JSON.stringify(successor.handoff)).not.toContain('floor3-time');

    const transitions = await get(`/ledger?taskId=${started.body.id}&kind=task_transition`);
    expect(transitions.entries.map((e: Json) => e.details.to)).toEqual(['queued', 'running', 'quiescing', 'succeeded']);
  });

  it('cancels a stubborn mutating call to an unknown outcome, blocks mutations, not reads, until acknowledged', async () => {
    const task = await post('/tasks', { action: 'start', sessionId: 'stuck', title: 'write then cancel' });
    const write = gw.call({ tool: 'stubborn_write', sessionId: 'stuck', requestId: 'stuck-write' });
    await expect.poll(async () => (await get('/tasks')).tasks.find((t: Json) => t.id === task.body.id).callsInFlight).toBe(1);
    const cancelled = await post(`/tasks/${task.body.id}/cancel`);
    expect(cancelled.body.state).toBe('cancelled');
    const answered = await write;
    expect(answered.status).toBe(504);
    expect(answered.body.error?.code).toBe('OUTCOME_UNKNOWN');

    const blocked = await gw.call({ tool: 'note_add', sessionId: 'stuck', arguments: { body: 'should wait' } });
    expect(blocked.status).toBe(423);
    expect(blocked.body.error).toMatchObject({ code: 'MUTATION_BLOCKED', blockedBy: 'stuck-write' });
    expect((await gw.call({ tool: 'todo_list', sessionId: 'stuck' })).status).toBe(200);

    const successorTask = (await get('/tasks')).sessions.find((s: Json) => s.id === 'stuck').activeTaskId;
    const ack = await post(`/tasks/${successorTask}/acknowledge`, { requestId: 'stuck-write' });
    expect(ack.status).toBe(200);
    expect(ack.body.unknownOutcomes).toEqual([]);
    expect((await gw.call({ tool: 'note_add', sessionId: 'stuck', arguments: { body: 'now it may' } })).status).toBe(200);

    const trail = await get('/ledger?requestId=stuck-write');
    expect(trail.entries[0].details).toMatchObject({
      mutating: true,
      argumentsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      reference: { id: 'test:stubborn_write', contractHash: expect.stringMatching(/^[0-9a-f]{64}$/), bindingGeneration: 1 },
    });
    expect(trail.entries.map((e: Json) => [e.kind, e.details.status])).toEqual([
      ['call_started', undefined],
      ['call_finished', 'outcome_unknown'],
      ['acknowledgement', undefined],
    ]);
  });

  it('refuses calls into a task that is not running', async () => {
    const task = await post('/tasks', { action: 'start', sessionId: 'done', title: 'short' });
    await post('/tasks', { action: 'finish', sessionId: 'done', message: 'ok' });
    const late = await gw.call({ tool: 'time_now', taskId: task.body.id });
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe('TASK_NOT_ACTIVE');
    expect((await post('/tasks/task-nope/cancel')).body.error.code).toBe('TASK_NOT_FOUND');
    expect((await post('/tasks', { action: 'dance' })).status).toBe(400);
  });
});

describe('cancelling one call: POST /calls/<requestId>/cancel', () => {
  const runningCalls = async (taskId: string) => (await get('/tasks')).tasks.find((t: Json) => t.id === taskId).calls as Json[];

  it('stops that call alone, on record, and its task runs on; a second try and an unknown requestId get their codes', async () => {
    const task = await post('/tasks', { action: 'start', sessionId: 'one-call', title: 'slow reads' });
    const read = gw.call({ tool: 'polite_read', sessionId: 'one-call', requestId: 'slow-1' });
    await expect.poll(() => runningCalls(task.body.id)).toHaveLength(1);
    // The task view shows the call with its deadline: the tool's timeout after its start.
    const [running] = await runningCalls(task.body.id);
    expect(running).toMatchObject({ requestId: 'slow-1', capability: 'test:polite_read', mutating: false, principal: 'operator' });
    expect(Date.parse(running!.deadlineAt) - Date.parse(running!.startedAt)).toBe(60_000);

    const cancelled = await post('/calls/slow-1/cancel');
    expect(cancelled).toMatchObject({ status: 200, body: { requestId: 'slow-1', taskId: task.body.id, capability: 'test:polite_read', status: 'cancelled' } });
    const answered = await read;
    expect(answered.status).toBe(409);
    expect(answered.body.error).toMatchObject({ code: 'CALL_CANCELLED', message: expect.stringContaining('the call was cancelled') });
    expect((await get('/tasks')).tasks.find((t: Json) => t.id === task.body.id)).toMatchObject({ state: 'running', calls: [], callCounts: { cancelled: 1 } });
    expect((await gw.call({ tool: 'time_now', sessionId: 'one-call' })).body.ok).toBe(true);
    const trail = await get('/ledger?requestId=slow-1');
    expect(trail.entries.map((e: Json) => [e.kind, e.details.status ?? e.details.scope])).toEqual([
      ['call_started', undefined],
      ['cancellation', 'call'],
      ['call_finished', 'cancelled'],
    ]);

    expect(await post('/calls/slow-1/cancel')).toMatchObject({ status: 409, body: { error: { code: 'CALL_NOT_RUNNING', callStatus: 'cancelled' } } });
    expect(await post('/calls/never-made/cancel')).toMatchObject({ status: 404, body: { error: { code: 'CALL_NOT_FOUND' } } });
  });

  it('leaves a mutating call that does not stop unknown after the grace period, blocking mutations as a task cancellation would', async () => {
    const task = await post('/tasks', { action: 'start', sessionId: 'one-stuck', title: 'a stubborn write' });
    const write = gw.call({ tool: 'stubborn_write', sessionId: 'one-stuck', requestId: 'stuck-alone' });
    await expect.poll(() => runningCalls(task.body.id)).toHaveLength(1);
    expect((await post('/calls/stuck-alone/cancel')).body).toMatchObject({ status: 'outcome_unknown' });
    expect((await write).body.error?.code).toBe('OUTCOME_UNKNOWN');
    expect((await get('/tasks')).sessions.find((s: Json) => s.id === 'one-stuck').unknownOutcomes).toMatchObject([{ requestId: 'stuck-alone' }]);
    expect((await gw.call({ tool: 'note_add', sessionId: 'one-stuck', arguments: { body: 'waits' } })).body.error?.code).toBe('MUTATION_BLOCKED');
  });

  it('lets an agent cancel only the calls it made itself', async () => {
    const { token } = (await post('/agents', { name: 'canceller' })).body as { token: string };
    const asAgent = async (path: string, body: Json) => {
      const response = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Json };
    };
    const own = asAgent('/tools/call', { tool: 'polite_read', requestId: 'agent-read' });
    const operators = gw.call({ tool: 'polite_read', sessionId: 'agent:canceller', requestId: 'operator-read' });
    await expect.poll(async () => (await get('/tasks')).tasks.flatMap((t: Json) => t.calls).length).toBeGreaterThanOrEqual(2);
    // The operator's call in the agent's own session is still not the agent's to cancel, nor to know of (issue 18 item 11).
    expect(await asAgent('/calls/operator-read/cancel', {})).toMatchObject({ status: 404, body: { error: { code: 'CALL_NOT_FOUND' } } });
    expect(await asAgent('/calls/agent-read/cancel', {})).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect((await own).body.error?.code).toBe('CALL_CANCELLED');
    expect((await get('/ledger?requestId=agent-read&kind=cancellation')).entries).toMatchObject([{ principal: 'agent:canceller' }]);
    expect((await post('/calls/operator-read/cancel')).body).toMatchObject({ status: 'cancelled' });
    expect((await operators).body.error?.code).toBe('CALL_CANCELLED');
  });
});

describe('the ledger over HTTP', () => {
  it('verifies, filters, and checks a result against its evidence digest', async () => {
    const call = await gw.call({ tool: 'local_status', requestId: 'evidence-1' });
    const check = await post('/ledger/evidence', { requestId: 'evidence-1', result: call.body.result });
    expect(check.body).toMatchObject({ matches: true, seq: expect.any(Number) });
    const tampered = await post('/ledger/evidence', { requestId: 'evidence-1', result: { ...(call.body.result as Json), hostname: 'elsewhere' } });
    expect(tampered.body.matches).toBe(false);
    expect((await post('/ledger/evidence', { requestId: 'never-ran', result: {} })).body.seq).toBeNull();
    expect(await get('/ledger/verify')).toMatchObject({ ok: true });
    const byCapability = await get('/ledger?capability=builtin:local_status&kind=call_finished');
    expect(byCapability.entries.every((e: Json) => e.capability === 'builtin:local_status' && e.kind === 'call_finished')).toBe(true);
    const page = await get('/ledger?limit=2');
    expect(page.entries).toHaveLength(2);
    expect((await gw.request('/ledger?limit=5000')).status).toBe(400);
  });

  it('writes no raw argument or result anywhere on disk or in the logs', async () => {
    const secret = 'hunter2-correct-horse';
    await gw.call({ tool: 'note_search', arguments: { query: secret }, requestId: 'secret-search' });
    await gw.call({ tool: 'time_now', arguments: { timezone: 'Pacific/Chatham' }, requestId: 'secret-zone' });
    gw.host.db.exec('PRAGMA wal_checkpoint(FULL)');
    for (const file of readdirSync(gw.dataDir)) {
      if (file === 'skills') continue;
      const bytes = readFileSync(join(gw.dataDir, file));
      expect(bytes.includes(secret), file).toBe(false);
      expect(bytes.includes('Pacific/Chatham'), file).toBe(false);
    }
    expect(JSON.stringify(gw.logs)).not.toContain(secret);
  });

  it('streams ledger entries with their sequence as event id, and replays after Last-Event-ID', async () => {
    const before = (await get('/ledger?limit=1000')).lastSeq;
    await gw.call({ tool: 'time_now', requestId: 'sse-1' });
    await gw.call({ tool: 'time_now', requestId: 'sse-2' });
    const response = await fetch(`${gw.url}/events`, { headers: { authorization: `Bearer ${gw.token}`, 'last-event-id': String(before) } });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while ((text.match(/^id: /gm) ?? []).length < 4) text += (await reader.read()).value ?? '';
    await reader.cancel();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.slice(0, 4)).toEqual([before + 1, before + 2, before + 3, before + 4]);
    expect(text).toContain('"requestId":"sse-1"');
    expect(text).toContain('"requestId":"sse-2"');
  });
});

describe('values the ledger cannot hold', () => {
  it('refuses a lone surrogate or a number beyond JSON with BAD_REQUEST, and leaves no half-made task behind', async () => {
    const tasksBefore = (await get('/tasks')).tasks.length;
    const lastSeq = (await get('/ledger?limit=1')).lastSeq as number;
    // JSON.stringify writes a lone surrogate as the escape \ud800, which JSON.parse turns back into one.
    const surrogate = await post('/tasks', { action: 'start', sessionId: 'bad-values', title: 'printer \ud800' });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'title' });

    const huge = await gw.request('/tools/call', { method: 'POST', body: '{"tool":"time_now","sessionId":"bad-values","arguments":{"n":1e400}}' });
    expect(huge.status).toBe(400);
    expect(((await huge.json()) as Json).error).toMatchObject({ code: 'BAD_REQUEST', field: 'arguments.n' });

    const view = await get('/tasks');
    expect(view.tasks).toHaveLength(tasksBefore);
    expect(view.sessions.find((s: Json) => s.id === 'bad-values')).toBeUndefined();
    expect((await get('/ledger?limit=1')).lastSeq).toBe(lastSeq);
    expect(await get('/ledger/verify')).toMatchObject({ ok: true });
  });
});
