/**
 * Tools that run as MCP tasks (server-everything's simulate-research-query requires it): called
 * as a task through the one call path, its status as the call's progress, its clarification
 * (an elicitation while the task waits, input_required) put to the operator, its cancellation
 * acknowledged by the server, and each recorded like any call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import type { TestGateway } from '../support/gateway';
import { connectHttp } from '../support/mcpClient';
import { send, startEverythingGateway, waitFor, type Json } from '../support/mcp';

let gateway: TestGateway;
let events: CapstanEvent[];
beforeAll(async () => void ({ gateway, events } = await startEverythingGateway()), 60_000);
afterAll(() => gateway?.stop());

const progressOf = (requestId: string) => events.flatMap((event) => (event.type === 'progress' && event.requestId === requestId ? [event.message ?? ''] : []));
const text = (body: Json) => ((body.result as Json).content as Json[]).map((block) => block.text as string).join('\n');

describe('a tool that runs only as an MCP task', () => {
  it('is listed as runnable, and runs as a task: its status as progress, its result, one recorded call', async () => {
    expect(gateway.host.catalog.live('everything:simulate-research-query')?.contract).not.toHaveProperty('runnable');
    const { status, body } = await gateway.call({ tool: 'everything:simulate-research-query', arguments: { topic: 'tides' }, requestId: 'task-1' });
    expect(status).toBe(200);
    expect(text(body)).toMatch(/tides/i);
    const seen = progressOf('task-1');
    expect(seen.some((message) => /^MCP task working: .+ \(\S+\)$/.test(message))).toBe(true);
    expect(seen.some((message) => message.startsWith('MCP task completed'))).toBe(true);
    const finished = gateway.host.ledger.query({ requestId: 'task-1', kind: 'call_finished' });
    expect(finished).toEqual([expect.objectContaining({ details: expect.objectContaining({ status: 'ok', resultDigest: expect.any(String) }) })]);
    // The wire: the task-augmented call, the status polls, the result.
    const methods = ((await send(gateway, 'GET', '/mcp-servers/everything/protocol?requestId=task-1')).body.messages as Json[]).map((message) => `${message.direction} ${message.kind} ${message.method}`);
    expect(methods).toContain('out request tools/call');
    const all = ((await send(gateway, 'GET', '/mcp-servers/everything/protocol?q=tasks/result')).body.messages as Json[]).map((message) => message.method);
    expect(all).toContain('tasks/result');
  }, 30_000);

  it("puts the task's clarification (input_required) to the operator, and the task goes on with the answer", async () => {
    const call = gateway.call({ tool: 'everything:simulate-research-query', arguments: { topic: 'python', ambiguous: true }, requestId: 'task-2' });
    const ask = await waitFor('the clarification', () => events.find((event): event is Extract<CapstanEvent, { type: 'ask' }> => event.type === 'ask' && event.ask.requestId === 'task-2' && event.ask.status === 'pending')?.ask, 20_000);
    await waitFor('the status input required', () => (progressOf('task-2').some((message) => message.startsWith('MCP task input required')) ? true : undefined));
    const choice = ((ask.requestedSchema!.properties as Json).interpretation.oneOf as Json[])[0]!.const as string;
    await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', content: { interpretation: choice } });
    const { body } = await call;
    expect(body.ok).toBe(true);
  }, 30_000);

  it('cancels the task with tasks/cancel when the call is cancelled; the server acknowledges, so the call ends cancelled', async () => {
    const task = (await send(gateway, 'POST', '/tasks', { action: 'start', sessionId: 'research', title: 'research' })).body;
    const call = gateway.call({ tool: 'everything:simulate-research-query', arguments: { topic: 'stars' }, requestId: 'task-3', sessionId: 'research' });
    await waitFor('the task to start', () => (progressOf('task-3').length > 0 ? true : undefined));
    await send(gateway, 'POST', `/tasks/${task.id}/cancel`);
    const { body } = await call;
    expect(body.error?.code).toBe('CALL_CANCELLED');
    expect(progressOf('task-3').at(-1)).toMatch(/^MCP task cancelled/);
    expect(gateway.host.ledger.query({ requestId: 'task-3', kind: 'call_finished' })[0]?.details).toMatchObject({ status: 'cancelled' });
  }, 30_000);

  it('runs for an agent over /mcp too, through capability_call', async () => {
    const token = (await send(gateway, 'POST', '/agents', { name: 'researcher' })).body.token as string;
    const mcp = await connectHttp(gateway.url, token);
    try {
      const found = await mcp.call('capabilities_search', { query: 'simulate research query' });
      const item = (found.structuredContent!.items as Json[]).find((candidate) => candidate.reference.id === 'everything:simulate-research-query')!;
      expect(item).not.toHaveProperty('runnable');
      expect((await mcp.call('tools_load', { reference: item.reference })).isError).toBeFalsy();
      const result = await mcp.call('capability_call', { reference: item.reference, arguments: { topic: 'comets' } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toMatch(/comets/i);
    } finally {
      await mcp.close();
    }
  }, 30_000);
});

describe('a taskSupport Capstan does not know', () => {
  it('makes the tool not runnable, with the reason, rather than called some way the server did not mean', async () => {
    const { notRunnableReason } = await import('../../electron/providers/mcp/policy');
    for (const known of [undefined, 'forbidden', 'optional', 'required']) expect(notRunnableReason(known === undefined ? undefined : { taskSupport: known })).toBeUndefined();
    expect(notRunnableReason({ taskSupport: 'sometimes' })).toMatch(/taskSupport: "sometimes"/);
  });
});
