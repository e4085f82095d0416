/**
 * The CLI's HTTP client (electron/cli/client.ts) against a real gateway: every operation's route
 * is built from the contract's table with its parameters filled, a GET's input reaches the
 * gateway's parsing as the query string it reads, a failure comes back as the gateway's envelope
 * with the operator commands' exit codes, and the event stream reports what happens after it opens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type OperationName } from '../../shared/api';
import { createClient, type Client } from '../../electron/cli/client';
import { operationRequest } from '../../shared/routes';
import { EXIT, GatewayError, OperatorError } from '../../electron/cli/errors';
import { startTestGateway, type TestGateway } from '../support/gateway';

let gateway: TestGateway;
let client: Client;

beforeAll(async () => {
  gateway = await startTestGateway();
  client = createClient(gateway.url, gateway.token);
});
afterAll(() => gateway?.stop());

describe('operationRequest', () => {
  it("fills every route parameter of every operation from the input's field, encoded, and keeps it in the body", () => {
    const withParams = (Object.keys(operations) as OperationName[]).filter((name) => operations[name].path.includes(':'));
    expect(withParams.length).toBeGreaterThan(0);
    for (const name of withParams) {
      const { method, path } = operations[name];
      const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
      const input = Object.fromEntries(names.map((param) => [param, `a b/${param}?`]));
      const request = operationRequest(gateway.url, name, input as never);
      expect(request.method).toBe(method);
      expect(request.url.pathname, name).toBe(path.replace(/:(\w+)/g, (_, param: string) => encodeURIComponent(`a b/${param}?`)));
      expect(request.url.search, name).toBe('');
      // A GET's path parameters are its path alone (the gateway merges them into the query); any other method's stay in the body too.
      if (method === 'GET') expect(request.body, name).toBeNull();
      else expect(JSON.parse(request.body!), name).toEqual(input);
    }
  });

  it('sends a GET input as its query string, absent fields left out, and no body', () => {
    const request = operationRequest(gateway.url, 'searchCatalog', { query: 'a&b=c', kind: undefined, limit: 2 });
    expect(request).toMatchObject({ method: 'GET', body: null });
    expect(request.url.pathname).toBe(operations.searchCatalog.path);
    expect(Object.fromEntries(request.url.searchParams)).toEqual({ query: 'a&b=c', limit: '2' });
    expect(operationRequest(gateway.url, 'listTools', undefined).url.search).toBe('');
  });
});

describe('createClient', () => {
  it("calls an operation and returns its output as the contract reads it", async () => {
    const tools = await client.call('listTools', undefined);
    expect(tools.tools.map((tool) => tool.name)).toContain('time_now');
    const answer = await client.call('callTool', { tool: 'time_now', arguments: { timezone: 'UTC' }, requestId: 'cli-client-Round.Trip-1' });
    expect(answer).toMatchObject({ ok: true, requestId: 'cli-client-Round.Trip-1', result: { timezone: 'UTC' } });
  });

  it("gets a GET's query through the gateway's parsing: strings, an enum, numbers coerced", async () => {
    await client.call('callTool', { tool: 'time_now', requestId: 'cli-client-Query.Trip-2' });
    const contains = await client.call('getLedger', { requestId: 'query.trip', match: 'contains', limit: 50, taskId: undefined });
    expect(contains.entries.length).toBeGreaterThan(0);
    expect(new Set(contains.entries.map((entry) => entry.requestId))).toEqual(new Set(['cli-client-Query.Trip-2']));
    expect((await client.call('getLedger', { requestId: 'query.trip' })).entries).toEqual([]);
    const page = await client.call('searchCatalog', { query: 'time', limit: 1, offset: 0 });
    expect(page.hits.length).toBeLessThanOrEqual(1);
    const tasks = await client.call('listTasks', { finishedLimit: 1 });
    expect(tasks.tasks.filter((task) => task.endedAt !== null).length).toBeLessThanOrEqual(1);
  });

  it('fills a route parameter the gateway reads: cancels the task a call ran in, and names one that does not exist by its id', async () => {
    const { taskId } = await client.call('callTool', { tool: 'time_now', sessionId: 'cli-client-cancel' });
    expect(await client.call('cancelTask', { id: taskId })).toMatchObject({ id: taskId, sessionId: 'cli-client-cancel' });
    const missing = await client.call('cancelTask', { id: 'no-such-task' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(GatewayError);
    expect(missing).toMatchObject({ exitCode: EXIT.failed, code: 'TASK_NOT_FOUND', status: 404, envelope: { ok: false, error: { code: 'TASK_NOT_FOUND' } } });
    expect((missing as GatewayError).message).toContain('"no-such-task"');
  });

  it("throws the gateway's envelope as sent: a refused input names its field, a confirmation carries its challenge", async () => {
    const refused = await client.call('searchCatalog', { query: 'time', limit: 0 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).exitCode).toBe(EXIT.failed);
    expect((refused as GatewayError).message).toMatch(/^[A-Z_]+: /);
    const confirm = await client.call('callTool', { tool: 'http_check', arguments: { url: `${gateway.url}/` } }).catch((error: unknown) => error);
    expect(confirm).toMatchObject({ code: 'CONFIRMATION_REQUIRED', exitCode: EXIT.failed, envelope: { error: { challenge: { tool: 'http_check' } } } });
  });

  it('reports a gateway that does not answer as GATEWAY_UNREACHABLE, exit 3', async () => {
    const nowhere = await createClient('http://127.0.0.1:9', gateway.token)
      .call('listTools', undefined)
      .catch((error: unknown) => error);
    expect(nowhere).toBeInstanceOf(OperatorError);
    expect(nowhere).toMatchObject({ exitCode: EXIT.unreachable, code: 'GATEWAY_UNREACHABLE' });
    const wrongToken = await createClient(gateway.url, 'not-the-token-0123456789')
      .call('listTools', undefined)
      .catch((error: unknown) => error);
    expect(wrongToken).toMatchObject({ exitCode: EXIT.failed, code: 'UNAUTHORIZED', status: 401 });
  });

  it('reads the event stream: what happens after it opens arrives, parsed, until it is closed', async () => {
    const events = await client.events();
    try {
      const { taskId } = await client.call('callTool', { tool: 'time_now', sessionId: 'cli-client-events' });
      for await (const event of events) {
        if (event.type === 'task' && event.task.id === taskId) break;
      }
    } finally {
      events.close();
    }
    const refused = await createClient(gateway.url, 'not-the-token-0123456789')
      .events()
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'UNAUTHORIZED', exitCode: EXIT.failed });
  });
});
