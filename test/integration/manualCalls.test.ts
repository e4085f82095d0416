/**
 * Manual calls (no taskId) through the real gateway: a server added from the console runs its
 * tools from the next manual call, because the manual-calls task whose snapshot predates the
 * server is finished, on record, and a fresh one takes its place. A task started on purpose is
 * never replaced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../shared/ledger';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fixtureStdio, send, waitForProvider, type Json } from '../support/mcp';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
});

const transitions = (taskId: string): Json[] =>
  (gateway.host.ledger.tail(1000) as LedgerEntry[]).filter((entry) => entry.taskId === taskId && entry.kind === 'task_transition').map((entry) => entry.details as Json);

describe('manual calls', () => {
  it('a server added after the manual task began runs its tool from the next manual call, in a fresh manual task', async () => {
    const first = await gateway.call({ tool: 'builtin:time_now', arguments: {} });
    expect(first.body.ok).toBe(true);
    const oldTask = first.body.taskId as string;
    const started = gateway.host.tasks.get(oldTask).view();
    expect(started).toMatchObject({ title: 'Manual calls', state: 'running' });

    expect((await send(gateway, 'PUT', '/mcp-servers/late', { entry: fixtureStdio() })).status).toBe(200);
    await waitForProvider(gateway.host, 'late');
    expect(gateway.host.catalog.generation).toBeGreaterThan(started.catalogGeneration!);

    const late = await gateway.call({ tool: 'late:meta', arguments: {} });
    expect(late.body.error).toBeUndefined();
    expect(late.body.ok).toBe(true);
    const newTask = late.body.taskId as string;
    expect(newTask).not.toBe(oldTask);

    const old = gateway.host.tasks.get(oldTask).view();
    expect(old.state).toBe('succeeded');
    expect(old.finalMessage).toMatch(/the catalog changed .*manual calls continue in a new task/);
    const fresh = gateway.host.tasks.get(newTask).view();
    expect(fresh).toMatchObject({ title: 'Manual calls', state: 'running', catalogGeneration: gateway.host.catalog.generation });

    // The ledger: the old task finished saying why; the new one submitted and started as a manual-calls task in its place.
    expect(transitions(oldTask).map((details) => details.to)).toEqual(['queued', 'running', 'quiescing', 'succeeded']);
    expect(transitions(oldTask).at(-1)).toMatchObject({ manual: true, reason: expect.stringContaining('the catalog changed') });
    expect(transitions(newTask)).toEqual([
      expect.objectContaining({ to: 'queued', title: 'Manual calls', manual: true }),
      expect.objectContaining({ to: 'running', manual: true, reason: `started in place of ${oldTask}: the catalog changed since it began` }),
    ]);

    // With the catalog unchanged, the next manual call stays in the same task.
    expect((await gateway.call({ tool: 'builtin:time_now', arguments: {} })).body.taskId).toBe(newTask);
  }, 60_000);

  it('never replaces a task started on purpose', async () => {
    const manual = gateway.host.tasks.view().tasks.find((task) => task.sessionId === 'operator' && task.state === 'running')!;
    await gateway.host.tasks.finish('operator', manual.id, 'done', 'succeeded');
    const purpose = await send(gateway, 'POST', '/tasks', { action: 'start', title: 'On purpose' });
    expect(purpose.status).toBe(200);
    const taskId = purpose.body.id as string;
    expect((await send(gateway, 'PUT', '/mcp-servers/later', { entry: fixtureStdio() })).status).toBe(200);
    await waitForProvider(gateway.host, 'later');

    const call = await gateway.call({ tool: 'builtin:time_now', arguments: {} });
    expect(call.body.taskId).toBe(taskId);
    expect(gateway.host.tasks.get(taskId).view().state).toBe('running');
  }, 60_000);
});
