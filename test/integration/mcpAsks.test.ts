/**
 * What a real server (server-everything) asks of the operator during a call: elicitation in form
 * and URL mode, and sampling answered by hand, through the gateway's HTTP routes and, for an
 * agent's call, over /mcp, where the question waits in Approvals beside the call. Nothing is ever
 * answered by Capstan itself; the ledger keeps digests, never the values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import type { ServerAskView } from '../../shared/serverAsks';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectHttp } from '../support/mcpClient';
import { everythingStdio, send, waitFor, waitForProvider, type Json } from '../support/mcp';

let gateway: TestGateway;
const events: CapstanEvent[] = [];
/** Pages the gateway opened in the person's browser, as the desktop app's shell would (its `openPage`). */
const opened: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({ config: { mcpServers: { everything: everythingStdio() }, approvals: { timeoutMs: 20_000 } }, host: { openPage: (url) => void opened.push(url) } });
  gateway.host.events.subscribe((event) => events.push(event));
  await waitForProvider(gateway.host, 'everything');
}, 60_000);
afterAll(() => gateway?.stop());

const text = (body: Json) => ((body.result as Json).content as Json[]).map((block) => block.text as string).join('\n');
/** The ask the server made during this call, once it waits for the operator. */
const pendingAsk = (requestId: string) =>
  waitFor(`a question during ${requestId}`, () => {
    const asked = events.find((event): event is Extract<CapstanEvent, { type: 'ask' }> => event.type === 'ask' && event.ask.requestId === requestId && event.ask.status === 'pending');
    return asked?.ask;
  });
const ledgerOf = (requestId: string) => gateway.host.ledger.query({ requestId });

describe('the client capabilities Capstan declares', () => {
  it('are the ones it honours, so the server offers its tools for roots, elicitation (form and URL) and sampling', () => {
    for (const tool of ['get-roots-list', 'trigger-elicitation-request', 'trigger-url-elicitation', 'trigger-sampling-request', 'trigger-elicitation-request-async', 'trigger-sampling-request-async']) {
      expect(gateway.host.catalog.live(`everything:${tool}`), tool).toBeDefined();
    }
    // All of them, as MCP Inspector is shown: 19, not the 13 a client declaring nothing gets.
    expect(gateway.host.catalog.providers().find((provider) => provider.name === 'everything')?.tools).toBe(19);
  });
});

describe('elicitation during the operator\'s call', () => {
  it('waits for the operator, who accepts: the content reaches the server with its defaults applied, the ledger keeps a digest', async () => {
    const call = gateway.call({ tool: 'everything:trigger-elicitation-request', requestId: 'elicit-accept' });
    const ask = await pendingAsk('elicit-accept');
    expect(ask).toMatchObject({ server: 'everything', kind: 'elicitation', mode: 'form', principal: 'operator', capability: 'everything:trigger-elicitation-request', message: expect.any(String) });
    expect(ask.requestedSchema).toMatchObject({ type: 'object', required: ['name'] });
    expect((await send(gateway, 'GET', '/asks')).body.pending).toEqual([expect.objectContaining({ id: ask.id, status: 'pending' })]);

    // A required field left out is refused, and the question still waits.
    const refused = await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', content: { check: true } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'content.name' });

    const answered = await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', content: { name: 'Ada Lovelace', check: true } });
    expect(answered.body).toMatchObject({ id: ask.id, status: 'accepted' });
    const { body } = await call;
    expect(body.ok).toBe(true);
    expect(text(body)).toContain('- Name: Ada Lovelace');
    // SEP-1034: what the operator left out went with its default.
    expect(text(body)).toContain('- Favorite Integer: 42');
    expect(text(body)).toContain('"firstLine": "It was a dark and stormy night."');

    const entries = ledgerOf('elicit-accept');
    const asked = entries.find((entry) => entry.kind === 'server_asked')!;
    const ended = entries.find((entry) => entry.kind === 'server_answered')!;
    expect(asked.details).toMatchObject({ askId: ask.id, server: 'everything', ask: 'elicitation', mode: 'form', caller: 'operator', messageDigest: expect.any(String) });
    expect(ended).toMatchObject({ principal: 'operator', details: { askId: ask.id, answer: 'accepted', contentDigest: expect.any(String) } });
    expect(JSON.stringify(entries)).not.toContain('Ada');
    expect((await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'decline' })).body.error).toMatchObject({ code: 'ASK_NOT_PENDING' });
  });

  it('tells the server a decline, and a cancel, as the operator chose', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const call = gateway.call({ tool: 'everything:trigger-elicitation-request', requestId: `elicit-${action}` });
      const ask = await pendingAsk(`elicit-${action}`);
      await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action });
      const { body } = await call;
      expect(text(body)).toContain(action === 'decline' ? 'User declined' : 'User cancelled');
      expect(ledgerOf(`elicit-${action}`).find((entry) => entry.kind === 'server_answered')!.details).toMatchObject({ answer: action === 'decline' ? 'declined' : 'cancelled' });
    }
  });

  it('withdraws the question when its call is cancelled', async () => {
    const task = (await send(gateway, 'POST', '/tasks', { action: 'start', sessionId: 'asking', title: 'asks' })).body;
    const call = gateway.call({ tool: 'everything:trigger-elicitation-request', requestId: 'elicit-withdrawn', sessionId: 'asking' });
    const ask = await pendingAsk('elicit-withdrawn');
    await send(gateway, 'POST', `/tasks/${task.id}/cancel`);
    await call;
    const ended = await waitFor('the withdrawal', () => events.find((event) => event.type === 'ask' && event.ask.id === ask.id && event.ask.status !== 'pending'));
    expect((ended as { ask: ServerAskView }).ask).toMatchObject({ status: 'withdrawn', reason: expect.any(String) });
    expect(ledgerOf('elicit-withdrawn').find((entry) => entry.kind === 'server_answered')).toMatchObject({ principal: 'system', details: { answer: 'withdrawn' } });
  });

  it('shows a URL elicitation with its URL, and tells the server the operator accepted', async () => {
    const call = gateway.call({ tool: 'everything:trigger-url-elicitation', arguments: { url: 'https://example.com/consent', message: 'Open the consent page' }, requestId: 'elicit-url' });
    const ask = await pendingAsk('elicit-url');
    expect(ask).toMatchObject({ mode: 'url', url: 'https://example.com/consent', message: 'Open the consent page', requestedSchema: null });
    await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept' });
    const { body } = await call;
    expect(body.ok).toBe(true);
    expect(text(body)).toMatch(/accept/i);
    // A browser console opens the page itself: the gateway opened nothing.
    expect(opened).toEqual([]);
  });

  it('in the desktop app, opens the ask’s own page in the system browser when the operator accepts with open', async () => {
    const call = gateway.call({ tool: 'everything:trigger-url-elicitation', arguments: { url: 'https://example.com/approve?x=1', message: 'Approve the change' }, requestId: 'elicit-url-open' });
    const ask = await pendingAsk('elicit-url-open');
    // Declining opens nothing, whatever the flag says; accepting opens the URL the server sent, once.
    const { body: answered } = await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', open: true });
    expect(answered).toMatchObject({ status: 'accepted' });
    expect((await call).body.ok).toBe(true);
    expect(opened).toEqual(['https://example.com/approve?x=1']);

    const declined = gateway.call({ tool: 'everything:trigger-url-elicitation', arguments: { url: 'https://example.com/other', message: 'Another' }, requestId: 'elicit-url-declined' });
    const second = await pendingAsk('elicit-url-declined');
    await send(gateway, 'POST', `/asks/${second.id}`, { id: second.id, action: 'decline', open: true });
    await declined;
    expect(opened).toEqual(['https://example.com/approve?x=1']);
  });
});

describe('questions asked as tasks of Capstan\'s (the server polls them)', () => {
  it('puts a task-augmented elicitation to the operator like any other, and the server polls it to its answer', async () => {
    const call = gateway.call({ tool: 'everything:trigger-elicitation-request-async', requestId: 'elicit-task' });
    const ask = await pendingAsk('elicit-task');
    expect(ask).toMatchObject({ kind: 'elicitation', mode: 'form', principal: 'operator' });
    const field = Object.keys((ask.requestedSchema!.properties as Json) ?? {})[0]!;
    const required = (ask.requestedSchema!.required as string[] | undefined) ?? [];
    const content = Object.fromEntries(required.map((name) => [name, 'Ada']));
    await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', content });
    const { body } = await call;
    expect(body.ok).toBe(true);
    expect(field).toBeTruthy();
    // The server asked for the answer as a task of Capstan's: Capstan answered with the task at once.
    const methods = ((await send(gateway, 'GET', '/mcp-servers/everything/protocol?requestId=elicit-task')).body.messages as Json[]).map((message) => `${message.direction} ${message.kind} ${message.method}`);
    expect(methods).toContain('in request elicitation/create');
    expect(methods).toContain('out response elicitation/create');
  }, 30_000);

  it('answers a task-augmented sampling request with the reply the operator wrote', async () => {
    const call = gateway.call({ tool: 'everything:trigger-sampling-request-async', arguments: { prompt: 'tides', maxTokens: 20 }, requestId: 'sample-task' });
    const ask = await pendingAsk('sample-task');
    await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', reply: 'Moon-pulled water' });
    const { body } = await call;
    expect(body.ok).toBe(true);
    expect(text(body)).toContain('Moon-pulled water');
  }, 30_000);
});

describe('sampling, answered by hand', () => {
  it("gives the server the operator's reply as the model's message; no model is called", async () => {
    const call = gateway.call({ tool: 'everything:trigger-sampling-request', arguments: { prompt: 'a haiku about tides', maxTokens: 50 }, requestId: 'sample-1' });
    const ask = await pendingAsk('sample-1');
    expect(ask).toMatchObject({ kind: 'sampling', sampling: { systemPrompt: 'You are a helpful test server.', maxTokens: 50, messages: [{ role: 'user', content: { type: 'text', text: expect.stringContaining('a haiku about tides') } }] } });
    expect((await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept' })).body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'reply' });
    await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', reply: 'Tides breathe in and out' });
    const { body } = await call;
    expect(text(body)).toContain('Tides breathe in and out');
    expect(text(body)).toContain('capstan-operator');
  });

  it('refuses the request when the operator declines', async () => {
    const call = gateway.call({ tool: 'everything:trigger-sampling-request', arguments: { prompt: 'anything', maxTokens: 10 }, requestId: 'sample-2' });
    const ask = await pendingAsk('sample-2');
    await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'decline' });
    const { body } = await call;
    expect(body.ok).toBe(false);
    expect(JSON.stringify(body)).toMatch(/refused/);
  });
});

describe("elicitation during an agent's call, over /mcp", () => {
  it('waits in Approvals beside the call, named for the agent, until the operator answers', async () => {
    const token = (await send(gateway, 'POST', '/agents', { name: 'asker' })).body.token as string;
    const mcp = await connectHttp(gateway.url, token);
    try {
      const found = await mcp.call('capabilities_search', { query: 'trigger elicitation request' });
      const item = (found.structuredContent!.items as Json[]).find((candidate) => candidate.reference.id === 'everything:trigger-elicitation-request')!;
      await mcp.call('tools_load', { reference: item.reference });
      const call = mcp.call('capability_call', { reference: item.reference, arguments: {} });
      const ask = await waitFor('the agent call\'s question', () => events.find((event): event is Extract<CapstanEvent, { type: 'ask' }> => event.type === 'ask' && event.ask.principal === 'agent:asker')?.ask);
      expect(ask).toMatchObject({ status: 'pending', requestId: expect.any(String), taskId: expect.any(String), capability: 'everything:trigger-elicitation-request' });
      // The agent cannot answer it: only the operator can.
      const byAgent = await fetch(`${gateway.url}/asks/${ask.id}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: ask.id, action: 'accept', content: { name: 'me' } }) });
      expect(byAgent.status).toBe(403);
      await send(gateway, 'POST', `/asks/${ask.id}`, { id: ask.id, action: 'accept', content: { name: 'Grace Hopper' } });
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('Grace Hopper');
      expect(gateway.host.ledger.query({ requestId: ask.requestId!, kind: 'server_asked' })[0]!.details).toMatchObject({ caller: 'agent:asker' });
    } finally {
      await mcp.close();
    }
  }, 30_000);
});
