/**
 * Capstan's own fixture server (SDK v2, speaking 2026-07-28) as a real child process, through
 * the real gateway: what server-everything and server-filesystem do not offer.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fixtureStdio, send, waitFor, waitForProvider, type Json } from '../support/mcp';

const GRACE_MS = 1000;
let gateway: TestGateway;
const events: CapstanEvent[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      cancellation: { graceMs: GRACE_MS },
      mcpServers: {
        fixture: { ...fixtureStdio({ FIXTURE_EXTRA_TOOLS: '12' }), timeoutMs: 1500, maxResultBytes: 4096 },
        probeshy: fixtureStdio({ FIXTURE_EXIT_ON_PROBE: '1' }),
      },
      toolPolicy: [
        { pattern: 'fixture:draft*', needConfirm: true, riskLevel: 'medium' },
        { pattern: 'fixture:plain', riskLevel: 'low' },
      ],
    },
  });
  gateway.host.events.subscribe((event) => events.push(event));
  await waitForProvider(gateway.host, 'fixture');
}, 60_000);
afterAll(() => gateway?.stop());

const contract = (name: string) => gateway.host.catalog.live(`fixture:${name}`)?.contract as Json;
const startTask = async (sessionId: string) => (await send(gateway, 'POST', '/tasks', { action: 'start', sessionId, title: sessionId })).body;
/** Resolves once the runtime has recorded the call as started (its work is under way). */
const started = (requestId: string) => waitFor(`${requestId} to start`, () => gateway.host.ledger.query({ requestId, kind: 'call_started' })[0]);

describe('the fixture server (2026-07-28)', () => {
  it('negotiates the 2026-07-28 revision and lists tools across every page', () => {
    const info = gateway.host.catalog.providers().find((provider) => provider.name === 'fixture')!;
    expect(info.status?.protocolVersion).toBe('2026-07-28');
    // 10 tools and 12 extras, handed out 5 per page.
    expect(info.tools).toBe(22);
    expect(contract('extra-12')).toBeDefined();
  });

  it('connects to a server that exits when probed for 2026-07-28: the next attempt speaks 2025 without probing', async () => {
    const status = await waitForProvider(gateway.host, 'probeshy');
    expect(status.protocolVersion).toBe('2025-11-25');
    expect(status.stderr.some((line) => line.startsWith('[capstan] could not connect'))).toBe(true);
    expect((await gateway.call({ tool: 'probeshy:meta' })).body.ok).toBe(true);
  });

  it('treats a tool without annotations as destructive, and toolPolicy never loosens it', async () => {
    expect(contract('plain')).toMatchObject({ declared: null, riskLevel: 'high', needConfirm: true, mutating: true, tightenedBy: [] });
    const { status, body } = await gateway.call({ tool: 'fixture:plain', arguments: { text: 'x' } });
    expect(status).toBe(428);
    expect(body.error?.code).toBe('CONFIRMATION_REQUIRED');
  });

  it('compiles a draft-07 schema with non-strict keywords and validates arguments at the gateway', async () => {
    expect(contract('draft07')).toMatchObject({ needConfirm: true, riskLevel: 'medium', tightenedBy: ['fixture:draft*'] });
    const missing = await gateway.call({ tool: 'fixture:draft07', arguments: {} });
    expect(missing.body.error).toMatchObject({ code: 'ARGUMENT_MISSING', field: 'count' });
    const invalid = await gateway.call({ tool: 'fixture:draft07', arguments: { count: 0 } });
    expect(invalid.body.error).toMatchObject({ code: 'ARGUMENT_INVALID', field: 'count' });
  });

  it('sends the requestId and a W3C traceparent in _meta', async () => {
    const { body } = await gateway.call({ tool: 'fixture:meta', requestId: 'trace-me-1' });
    const meta = (body.result as Json).structuredContent.meta as Json;
    expect(meta.requestId).toBe('trace-me-1');
    const traceId = createHash('sha256').update('trace-me-1').digest('hex').slice(0, 32);
    expect(meta.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });

  it('turns isError into TOOL_ERROR with the content, and a big result into RESULT_TOO_LARGE', async () => {
    const failed = await gateway.call({ tool: 'fixture:fail' });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ code: 'TOOL_ERROR', result: { content: [{ type: 'text', text: 'the fixture failed on purpose' }] } });
    const big = await gateway.call({ tool: 'fixture:big', arguments: { bytes: 10_000 } });
    expect(big.status).toBe(502);
    expect(big.body.error).toMatchObject({ code: 'RESULT_TOO_LARGE', limit: 4096 });
    expect((await gateway.call({ tool: 'fixture:big', arguments: { bytes: 100 } })).body.ok).toBe(true);
  });

  it('publishes progress live, each one moving the deadline, which progress keeps from passing', async () => {
    // 4 steps 600 ms apart: 2.4 s in all, longer than timeoutMs (1.5 s), but never 1.5 s silent.
    const { body } = await gateway.call({ tool: 'fixture:slow', arguments: { steps: 4, everyMs: 600 }, requestId: 'slow-progress' });
    expect(body.ok).toBe(true);
    const progress = events.filter((event) => event.type === 'progress' && event.requestId === 'slow-progress') as Extract<CapstanEvent, { type: 'progress' }>[];
    // The last one may arrive on the heels of the result, after the call has ended; the rest come live.
    expect(progress.map((event) => [event.progress, event.total]).slice(0, 3)).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
    expect(progress[0]!.taskId).toBe(body.taskId);
    const deadlines = progress.map((event) => Date.parse(event.deadlineAt));
    expect(deadlines[2]! - deadlines[0]!).toBeGreaterThan(1000);
    expect(Date.parse(progress[2]!.deadlineAt) - Date.parse(progress[2]!.startedAt)).toBeGreaterThan(1500);
  });

  it('names the task a call runs in, even when its requestId was used before', async () => {
    const first = await gateway.call({ tool: 'fixture:slow', arguments: { steps: 2, everyMs: 150 }, requestId: 'reused', sessionId: 'reuse-a' });
    const second = await gateway.call({ tool: 'fixture:slow', arguments: { steps: 2, everyMs: 150 }, requestId: 'reused', sessionId: 'reuse-b' });
    expect(first.body.taskId).not.toBe(second.body.taskId);
    const tasks = events.flatMap((event) => (event.type === 'progress' && event.requestId === 'reused' ? [event.taskId] : []));
    expect(tasks[0]).toBe(first.body.taskId);
    expect(tasks.at(-1)).toBe(second.body.taskId);
  });

  it('fails a call that goes timeoutMs without an answer or progress (the server, still answering, was told to stop)', async () => {
    const { status, body } = await gateway.call({ tool: 'fixture:slow', arguments: { steps: 1, everyMs: 2500 } });
    expect(status).toBe(500);
    expect(body.error?.code).toBe('TOOL_FAILED');
    expect(body.error?.message).toContain('1500 ms');
  });

  it('ends a cancelled call as cancelled when the server acknowledges (answers right after the cancellation)', async () => {
    const task = await startTask('cancel-slow');
    const call = gateway.call({ tool: 'fixture:slow', arguments: { steps: 20, everyMs: 200 }, sessionId: 'cancel-slow', requestId: 'slow-cancelled' });
    await waitFor('progress', () => events.find((event) => event.type === 'progress' && event.requestId === 'slow-cancelled'));
    await send(gateway, 'POST', `/tasks/${task.id}/cancel`);
    const { status, body } = await call;
    expect(status).toBe(409);
    expect(body.error?.code).toBe('CALL_CANCELLED');
  });

  it('leaves a call whose server ignores the cancellation outcome_unknown, arming the mutation gate until acknowledged', async () => {
    const task = await startTask('stubborn');
    const call = gateway.call({ tool: 'fixture:stubborn', arguments: { ms: 2500 }, sessionId: 'stubborn', requestId: 'stubborn-1' });
    await started('stubborn-1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cancelledAt = Date.now();
    await send(gateway, 'POST', `/tasks/${task.id}/cancel`);
    const { status, body } = await call;
    expect(status).toBe(504);
    expect(body.error?.code).toBe('OUTCOME_UNKNOWN');
    expect(Date.now() - cancelledAt).toBeLessThan(GRACE_MS + 1500);
    const session = (await send(gateway, 'GET', '/tasks')).body.sessions.find((s: Json) => s.id === 'stubborn');
    expect(session.unknownOutcomes.map((outcome: Json) => outcome.requestId)).toEqual(['stubborn-1']);

    // The next mutating call in that session waits for the operator; reads still run.
    await startTask('stubborn');
    expect((await gateway.call({ tool: 'fixture:reshape', sessionId: 'stubborn' })).body.error?.code).toBe('MUTATION_BLOCKED');
    expect((await gateway.call({ tool: 'builtin:time_now', sessionId: 'stubborn' })).body.ok).toBe(true);
    expect((await send(gateway, 'POST', `/tasks/${task.id}/acknowledge`, { requestId: 'stubborn-1' })).status).toBe(200);
    // The server comes back once its blocking work is over.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await gateway.call({ tool: 'fixture:shape', arguments: { size: 1 }, sessionId: 'stubborn' })).body.ok).toBe(true);
  });

  it('reloads on list_changed: new catalog and binding generations, and the old reference is stale', async () => {
    await startTask('reshape');
    const listed = await send(gateway, 'POST', '/discovery/capabilities_list', { sessionId: 'reshape', provider: 'fixture', limit: 100 });
    const old = (listed.body.items as Json[]).find((item) => item.name === 'shape')!.reference as Json;
    const generation = gateway.host.catalog.generation;
    expect((await gateway.call({ tool: 'fixture:reshape', sessionId: 'reshape' })).body.ok).toBe(true);
    await waitFor('the new shape', () => ((contract('shape').inputSchema as Json).required.includes('unit') ? true : undefined));
    expect(gateway.host.catalog.generation).toBeGreaterThan(generation);
    const live = gateway.host.catalog.live('fixture:shape')!;
    expect(live.bindingGeneration).toBeGreaterThan(old.bindingGeneration);

    // The changed tool is held until the operator accepts it (pinned contracts): the old
    // reference and a call by name are refused alike, and a new task does not see it.
    const loaded = await send(gateway, 'POST', '/discovery/tools_load', { sessionId: 'reshape', reference: old });
    expect(loaded.status).toBe(409);
    expect(loaded.body.error).toMatchObject({ code: 'CONTRACT_CHANGED', hold: 'changed', changed: ['inputSchema'] });
    expect((await gateway.call({ tool: 'fixture:shape', arguments: { size: 1 } })).body.error?.code).toBe('CONTRACT_CHANGED');
    const { hold } = (await send(gateway, 'GET', '/pins/diff?id=fixture%3Ashape')).body;
    expect((await send(gateway, 'POST', '/pins/accept', { id: 'fixture:shape', hash: hold.currentHash })).status).toBe(200);

    // Accepted, the old reference is still stale (the binding moved on); the tool runs with its new schema.
    const reloaded = await send(gateway, 'POST', '/discovery/tools_load', { sessionId: 'reshape', reference: old });
    expect(reloaded.body.error?.code).toBe('STALE_CAPABILITY');
    expect((await gateway.call({ tool: 'fixture:shape', arguments: { size: 1 } })).body.error).toMatchObject({ code: 'ARGUMENT_MISSING', field: 'unit' });
  });

  it('reports a server that exits mid-call: outcome unknown, failed with its stderr, then back by itself', async () => {
    const { status, body } = await gateway.call({ tool: 'fixture:exit' });
    expect(status).toBe(504);
    expect(body.error?.code).toBe('OUTCOME_UNKNOWN');
    const failed = await waitForProvider(gateway.host, 'fixture', 'failed');
    expect(failed.reason).toBe('the server process exited');
    expect(failed.retryAt).not.toBeNull();
    expect(failed.stderr).toContain('capstan fixture server ready');
    // Its tools stay listed, unavailable.
    expect(contract('meta')).toBeDefined();
    const meanwhile = await gateway.call({ tool: 'fixture:meta' });
    expect([503, 200]).toContain(meanwhile.status);
    if (meanwhile.status === 503) expect(meanwhile.body.error?.code).toBe('PROVIDER_UNAVAILABLE');
    await waitForProvider(gateway.host, 'fixture', 'ready');
    expect((await gateway.call({ tool: 'fixture:meta' })).body.ok).toBe(true);
  });
});
