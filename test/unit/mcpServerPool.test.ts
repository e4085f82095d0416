/**
 * Which server a 2025-era `POST /mcp` exchange borrows, and whether it goes back to the pool:
 * the SDK's own `Server` behind a real Fastify route on loopback, served by `serveLegacyPost` as
 * the gateway serves `/mcp`, after `readLegacyPost` (http.ts adds its hooks, sessions and the caller, not exercised here).
 */
import { Server, type JSONRPCMessage } from '@modelcontextprotocol/server';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readLegacyPost, refuseLegacyPost, serveLegacyPost } from '../../electron/transports/mcp/legacyExchange';
import { KEEP_IDLE, McpServerPool } from '../../electron/transports/mcp/serverPool';
import { waitFor } from '../support/mcp';

let app: FastifyInstance;
let url: string;
let pool: McpServerPool;
let built: Server[];
/** `tools/call` answers once the test lets it: each waiting call's release. */
let held: (() => void)[];

function build(): Server {
  const server = new Server({ name: 'pooled', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: [] }));
  server.setRequestHandler('tools/call', async () => {
    await new Promise<void>((resolve) => held.push(resolve));
    return { content: [{ type: 'text', text: 'done' }] };
  });
  built.push(server);
  return server;
}

const post = (body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(body),
    signal,
  });
const list = async (id: number) => (await post({ jsonrpc: '2.0', id, method: 'tools/list' })).json();
const call = (id: number, signal?: AbortSignal) => post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } }, signal);
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

beforeAll(async () => {
  app = Fastify();
  app.post('/mcp', (request, reply) => {
    const post = readLegacyPost(request);
    return 'refused' in post ? refuseLegacyPost(reply, post.refused) : serveLegacyPost(post, request, reply, { servers: pool, dynamic: false, authInfo: { token: '', clientId: 'test', scopes: [] }, retryMs: 1000 });
  });
  url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/mcp`;
});
afterAll(() => app.close());
beforeEach(() => {
  pool = new McpServerPool(build);
  built = [];
  held = [];
});

describe('the servers behind 2025-era /mcp exchanges', () => {
  it('lends one server to request after request once each has answered', async () => {
    for (let id = 1; id <= 5; id += 1) {
      expect(await list(id)).toEqual({ jsonrpc: '2.0', id, result: { tools: [] } });
      await waitFor('the server back in the pool', () => (pool.idle === 1 ? true : undefined), 5_000);
    }
    expect(built).toHaveLength(1);
  });

  it('lends none that is busy: requests in flight together each have a server of their own', async () => {
    const answers = [call(1), call(2), call(3)];
    await waitFor('three calls to wait', () => (held.length === 3 ? true : undefined), 5_000);
    expect(built).toHaveLength(3);
    for (const release of held) release();
    expect(await Promise.all(answers.map(async (answer) => (await answer).status))).toEqual([200, 200, 200]);
    await waitFor('all three back in the pool', () => (pool.idle === 3 ? true : undefined), 5_000);
  });

  it('does not lend on the server that answered an initialize, which keeps what the client negotiated', async () => {
    const answered = await post(initialize);
    expect(((await answered.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
    await waitFor('the initialized server to close', () => (built[0]!.transport === undefined ? true : undefined), 5_000);
    await list(2);
    expect(built).toHaveLength(2);
    await waitFor('the second server back in the pool', () => (pool.idle === 1 ? true : undefined), 5_000);
  });

  it('does not lend on a server whose client went away before its answer', async () => {
    const gone = new AbortController();
    // Aborted before its answer, or (on a slow machine, after a second) while its stream is open.
    const abandoned = call(1, gone.signal).then((answer) => answer.text()).catch(() => undefined);
    await waitFor('the call to wait', () => (held.length === 1 ? true : undefined), 5_000);
    gone.abort();
    await abandoned;
    await waitFor('the abandoned server to close', () => (built[0]!.transport === undefined ? true : undefined), 5_000);
    // Its handler finishes after its exchange closed: nothing of it reaches the next request's,
    // which has the same id.
    held[0]!();
    expect(await list(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    expect(built).toHaveLength(2);
    await waitFor('only the second server back in the pool', () => (pool.idle === 1 ? true : undefined), 5_000);
  });

  it('lends one server to a batch, and takes it back once every request of it is answered, as JSON or as a stream', async () => {
    const batch = await post([
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
    ]);
    expect(((await batch.json()) as { id: string }[]).map((answer) => answer.id)).toEqual(['a', 'b']);
    await waitFor('the batch server back in the pool', () => (pool.idle === 1 ? true : undefined), 5_000);
    // Not ready within a second: the answer becomes a stream, and the server still goes back once it is sent.
    const streamed = call(2);
    await waitFor('the call to wait', () => (held.length === 1 ? true : undefined), 5_000);
    const answer = await streamed;
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    held[0]!();
    expect(await answer.text()).toContain('"id":2');
    await waitFor('the streaming server back in the pool', () => (pool.idle === 1 ? true : undefined), 5_000);
    expect(built).toHaveLength(1);
  });

  it("streams a batch's answers that came before its stream opened, then the rest", async () => {
    const batch = post([
      { jsonrpc: '2.0', id: 'quick', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: {} } },
    ]);
    await waitFor('the call to wait', () => (held.length === 1 ? true : undefined), 5_000);
    // The headers come when the stream opens, a second in; the quick answer came long before.
    const answer = await batch;
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    held[0]!();
    const events = (await answer.text()).split('\n').filter((line) => line.startsWith('data: {'));
    expect(events.map((line) => (JSON.parse(line.slice('data: '.length)) as { id: string }).id)).toEqual(['quick', 'slow']);
  });

  it('runs no request that a message of its own batch cancels, and answers the rest', async () => {
    const cancel = (requestId: string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'changed my mind' } });
    const slow = (id: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    // Nothing left to answer, whether the cancellation comes after its request or before it: accepted at once, and no server is made.
    for (const batch of [[slow('a'), cancel('a')], [cancel('b'), slow('b')]]) expect((await post(batch)).status).toBe(202);
    expect(built).toHaveLength(0);
    // The rest is answered, without the cancelled request, which never started.
    const answered = await post([slow('c'), { jsonrpc: '2.0', id: 'd', method: 'tools/list' }, cancel('c')]);
    expect(await answered.json()).toEqual([{ jsonrpc: '2.0', id: 'd', result: { tools: [] } }]);
    expect(held).toHaveLength(0);
    await waitFor('the server back in the pool', () => (pool.idle === 1 ? true : undefined), 5_000);
  });

  it('refuses a batch whose requests share an id, before any server is lent', async () => {
    const refused = await post([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {} } },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    ]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('id of its own') } });
    expect(built).toHaveLength(0);
  });
});

describe('McpServerPool', () => {
  const make = () => new McpServerPool((dynamic) => new Server({ name: dynamic ? 'dynamic' : 'fixed', version: '1' }, { capabilities: { tools: { listChanged: dynamic } } }));
  /** An exchange that records what reaches it. */
  const exchange = () => {
    const seen: JSONRPCMessage[] = [];
    return { seen, closed: false, send: async (message: JSONRPCMessage) => void seen.push(message), async close() { this.closed = true; } };
  };

  it('keeps servers that list loaded tools apart from those that do not; lends on only what ended reusable', async () => {
    const servers = make();
    const fixed = await servers.lend(false, exchange());
    const dynamic = await servers.lend(true, exchange());
    await fixed.end(true);
    await dynamic.end(true);
    expect((await servers.lend(true, exchange())).server).toBe(dynamic.server);
    const again = await servers.lend(false, exchange());
    expect(again.server).toBe(fixed.server);

    // Not reusable: closed, with its exchange, and let go.
    const mine = exchange();
    const last = await servers.lend(false, mine);
    await last.end(false);
    expect(mine.closed).toBe(true);
    expect(last.server.transport).toBeUndefined();
    expect(servers.idle).toBe(0);
  });

  it('hands the server the request, and the exchange the answer, without connecting anything per request', async () => {
    const servers = make();
    const first = exchange();
    const lease = await servers.lend(false, first);
    const link = lease.server.transport;
    lease.deliver({ jsonrpc: '2.0', id: 7, method: 'ping' }, {});
    await waitFor('the answer', () => (first.seen.length === 1 ? true : undefined), 5_000);
    expect(first.seen).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
    await lease.end(true);
    const second = exchange();
    const next = await servers.lend(false, second);
    expect(next.server.transport).toBe(link);
    next.deliver({ jsonrpc: '2.0', id: 8, method: 'ping' }, {});
    await waitFor('the second answer', () => (second.seen.length === 1 ? true : undefined), 5_000);
    expect(first.seen).toHaveLength(1);
  });

  it('refuses to lend a server that would keep per-client state of its own', async () => {
    const logging = new McpServerPool(() => new Server({ name: 'logs', version: '1' }, { capabilities: { tools: {}, logging: {} } }));
    await expect(logging.lend(false, exchange())).rejects.toThrow(/per-client state/);
    const subscribing = new McpServerPool(() => new Server({ name: 'subscribes', version: '1' }, { capabilities: { resources: { subscribe: true } } }));
    await expect(subscribing.lend(false, exchange())).rejects.toThrow(/per-client state/);
  });

  it(`keeps at most ${KEEP_IDLE} idle servers of a kind; the rest are closed and let go`, async () => {
    const servers = make();
    const many = await Promise.all(Array.from({ length: KEEP_IDLE + 8 }, () => servers.lend(false, exchange())));
    for (const lease of many) await lease.end(true);
    expect(servers.idle).toBe(KEEP_IDLE);
    expect(many.filter((lease) => lease.server.transport === undefined)).toHaveLength(8);
  });
});
