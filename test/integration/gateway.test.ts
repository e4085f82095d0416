import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { asCapstanError, errorEnvelope } from '../../electron/services/api';
import { BODY_LIMIT_BYTES } from '../../electron/transports/http';
import { errorCodes } from '../../shared/errors';
import { MAX_REQUEST_ID } from '../../shared/api';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { BUILTIN } from '../support/builtins';
import { testTool } from '../support/runtime';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { rawBytes, rawExchange, rawRequest, type RawResponse } from '../support/rawHttp';

let gw: TestGateway;
let target: LoopbackServer;

beforeAll(async () => {
  gw = await startTestGateway({
    config: {
      cancellation: { graceMs: 200 },
      // http_check's target is a loopback server, which its destination policy refuses unless allowed.
      httpCheck: { allow: ['127.0.0.1/32'] },
      grants: [
        { pattern: 'builtin:*', authority: 'execute' },
        { pattern: 'test:*', authority: 'execute' },
      ],
    },
  });
  target = await startLoopbackServer();
  // Tools that misbehave, to show a failing tool never takes the gateway down.
  const misbehaving = [
    testTool({
      name: 'always_throws',
      description: 'Throws on every call',
      run: () => {
        throw new Error('disk on fire');
      },
    }),
    testTool({ name: 'never_returns', description: 'Ignores its abort signal and never settles', timeoutMs: 100, run: () => new Promise(() => {}) }),
    testTool({
      name: 'slow_but_polite',
      description: 'Runs past its deadline but stops when aborted',
      timeoutMs: 100,
      run: (_args, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    }),
  ];
  await gw.host.catalog.addProvider({ name: 'test', kind: 'builtin', load: () => ({ tools: misbehaving, skills: [], diagnostics: [] }) });
});
afterAll(async () => {
  await gw.stop();
  await target.close();
});

const bearer = () => ({ authorization: `Bearer ${gw.token}` });
const hostHeader = () => new URL(gw.url).host;

describe('GET /tools', () => {
  it('lists every tool with its contract, risk and return example', async () => {
    const response = await gw.request('/tools');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { generation: number; tools: Record<string, unknown>[] };
    expect(body.generation).toBeGreaterThan(0);
    const builtins = body.tools.filter((tool) => tool.provider === 'builtin');
    expect(builtins.map((tool) => tool.name)).toEqual(expect.arrayContaining(BUILTIN.names));
    expect(builtins).toHaveLength(BUILTIN.total);
    expect(builtins.filter((tool) => !tool.needConfirm)).toHaveLength(BUILTIN.direct);
    for (const tool of builtins) {
      expect(Object.keys(tool).sort()).toEqual(
        ['id', 'description', 'inputSchema', 'mutating', 'name', 'needConfirm', 'provider', 'returnExample', 'riskLevel', 'tags', 'title'].sort(),
      );
    }
    expect(builtins.find((tool) => tool.name === 'http_check')).toMatchObject({
      riskLevel: 'medium',
      needConfirm: true,
      inputSchema: { required: ['url'] },
    });
  });
});

describe('POST /tools/call', () => {
  it('runs a tool and echoes the client requestId in the body and the x-request-id header', async () => {
    const { status, body, headers } = await gw.call({ tool: 'time_now', arguments: {}, requestId: 'tool-registry-abc.1:2' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ requestId: 'tool-registry-abc.1:2', ok: true, result: { timezone: expect.any(String) } });
    expect(body.durationMs).toBeGreaterThanOrEqual(0);
    expect(headers.get('x-request-id')).toBe('tool-registry-abc.1:2');
  });

  it('generates a requestId when none is sent or the one sent is malformed', async () => {
    for (const requestId of [undefined, '', 'has space', 'x'.repeat(129), 'semi;colon']) {
      const { body, headers } = await gw.call({ tool: 'time_now', ...(requestId === undefined ? {} : { requestId }) });
      expect(body.requestId).toMatch(/^req-[0-9a-f-]{36}$/);
      expect(headers.get('x-request-id')).toBe(body.requestId);
    }
    const longest = 'a'.repeat(128);
    expect((await gw.call({ tool: 'time_now', requestId: longest })).body.requestId).toBe(longest);
  });

  it('puts the requestId on every log line of the call and never logs the arguments', async () => {
    const requestId = 'trace-me-42';
    await gw.call({ tool: 'note_add', arguments: { body: 'secret printer password hunter2' }, requestId });
    const lines = gw.logs.filter((line) => JSON.stringify(line).includes('note_add') || line.requestId === requestId);
    expect(lines.map((line) => line.msg)).toEqual(['tool call started', 'tool call finished', 'request completed']);
    expect(lines.every((line) => line.requestId === requestId)).toBe(true);
    // At the default level (info, 30) a call that succeeds writes one line, with its tool and task.
    expect(lines.filter((line) => (line.level as number) >= 30)).toEqual([expect.objectContaining({ msg: 'tool call finished', tool: 'builtin:note_add', taskId: expect.any(String) })]);
    expect(JSON.stringify(gw.logs)).not.toContain('hunter2');
  });

  it('answers TOOL_NOT_FOUND for an unregistered tool, with no fuzzy matching', async () => {
    for (const tool of ['delete_everything', 'time_nwo', 'TIME_NOW', 'time_now ', 'time']) {
      const { status, body } = await gw.call({ tool, arguments: {} });
      expect(status).toBe(404);
      expect(body.error).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    }
  });

  it('answers ARGUMENT_MISSING: <field> for a missing required argument', async () => {
    const { status, body } = await gw.call({ tool: 'note_search', arguments: {} });
    expect(status).toBe(400);
    expect(body.error).toEqual({ code: 'ARGUMENT_MISSING', message: 'ARGUMENT_MISSING: query', field: 'query' });
  });

  it('answers ARGUMENT_INVALID naming the field for a wrong type, an unknown argument or an unusable value', async () => {
    const wrongType = await gw.call({ tool: 'note_search', arguments: { query: 5 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ code: 'ARGUMENT_INVALID', field: 'query' });
    const unknown = await gw.call({ tool: 'time_now', arguments: { zone: 'UTC' } });
    expect(unknown.body.error).toMatchObject({ code: 'ARGUMENT_INVALID', field: 'zone' });
    const badZone = await gw.call({ tool: 'time_now', arguments: { timezone: 'Mars/Base' } });
    expect(badZone.status).toBe(400);
    expect(badZone.body.error).toMatchObject({ code: 'ARGUMENT_INVALID', field: 'timezone' });
    const badUrl = await gw.call({ tool: 'http_check', arguments: { url: 'file:///etc/passwd' } });
    expect(badUrl.body.error).toMatchObject({ code: 'ARGUMENT_INVALID', field: 'url' });
  });

  it('answers TOOL_FAILED when a tool throws or runs past its deadline, and keeps serving', async () => {
    const thrown = await gw.call({ tool: 'always_throws' });
    expect(thrown.status).toBe(500);
    expect(thrown.body.error).toEqual({ code: 'TOOL_FAILED', message: 'TOOL_FAILED: test:always_throws: disk on fire' });
    const late = await gw.call({ tool: 'slow_but_polite' });
    expect(late.status).toBe(500);
    expect(late.body.error).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringContaining('did not finish within its deadline') });
    expect((await gw.call({ tool: 'time_now' })).status).toBe(200);
  });

  it('answers OUTCOME_UNKNOWN when a tool ignores its deadline past the grace period', async () => {
    const started = Date.now();
    const stuck = await gw.call({ tool: 'never_returns' });
    expect(stuck.status).toBe(504);
    expect(stuck.body.error).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await gw.call({ tool: 'time_now' })).status).toBe(200);
  });
});

describe('confirmation', () => {
  const args = () => ({ url: `${target.url}/release-check`, method: 'GET' });

  it('answers 428 with a challenge bound to the tool and arguments, and runs nothing', async () => {
    const { status, body } = await gw.call({ tool: 'http_check', arguments: args() });
    expect(status).toBe(428);
    expect(body.error).toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      challenge: { id: expect.any(String), tool: 'http_check', argumentsDigest: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const expiresIn = Date.parse((body.error?.challenge as { expiresAt: string }).expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(55_000);
    expect(expiresIn).toBeLessThanOrEqual(60_000);
    expect(target.hits).toEqual([]);
  });

  it('runs the same call re-sent with the challenge id, once', async () => {
    const first = await gw.call({ tool: 'http_check', arguments: args(), requestId: 'confirm-1' });
    const { id } = first.body.error?.challenge as { id: string };
    const confirmed = await gw.call({ tool: 'http_check', arguments: args(), requestId: 'confirm-1', confirmation: id });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ ok: true, requestId: 'confirm-1', result: { reachable: true, status: 200 } });
    expect(target.hits).toEqual([{ method: 'GET', url: '/release-check' }]);

    const replay = await gw.call({ tool: 'http_check', arguments: args(), confirmation: id });
    expect(replay.status).toBe(428);
    expect(replay.body.error?.message).toContain('already used');
    expect(target.hits).toHaveLength(1);
  });

  it('refuses a challenge presented with other arguments or an unknown id', async () => {
    const first = await gw.call({ tool: 'http_check', arguments: args() });
    const { id } = first.body.error?.challenge as { id: string };
    const changed = await gw.call({ tool: 'http_check', arguments: { url: `${target.url}/elsewhere` }, confirmation: id });
    expect(changed.status).toBe(428);
    expect(changed.body.error?.message).toContain('arguments changed');
    const forged = await gw.call({ tool: 'http_check', arguments: args(), confirmation: 'made-up' });
    expect(forged.status).toBe(428);
    expect(target.hits.filter((hit) => hit.url === '/elsewhere')).toEqual([]);
  });
});

describe('request hygiene', () => {
  it('requires the bearer token on every API route', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: gw.token }, { authorization: `Basic ${gw.token}` }]) {
      const response = await fetch(`${gw.url}/tools`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
    const settings = await fetch(`${gw.url}/settings`, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(settings.status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin with FORBIDDEN_ORIGIN', async () => {
    const port = new URL(gw.url).port;
    // A Host header is a name and a port: with user info, a path, a query or a fragment it names no one.
    const notAHost = [`a@127.0.0.1:${port}`, `127.0.0.1:${port}/x`, `127.0.0.1:${port}?y`, `127.0.0.1:${port}#z`, `127.0.0.1:${port}\\x`];
    for (const host of ['evil.example:' + port, `127.0.0.1:${Number(port) + 1}`, 'localhost.evil.example:' + port, ...notAHost]) {
      const response = await rawRequest(`${gw.url}/tools`, { headers: { ...bearer(), host } });
      expect(response.status, host).toBe(403);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
    }
    for (const origin of ['http://evil.example', 'null', `https://${hostHeader()}`]) {
      const response = await rawRequest(`${gw.url}/tools`, { headers: { ...bearer(), origin } });
      expect(response.status, origin).toBe(403);
    }
    for (const host of [hostHeader(), `localhost:${port}`]) {
      const response = await rawRequest(`${gw.url}/tools`, { headers: { ...bearer(), host, origin: `http://${host}` } });
      expect(response.status, host).toBe(200);
    }
  });

  it('refuses a body over 1 MiB with PAYLOAD_TOO_LARGE and keeps serving', async () => {
    const big = JSON.stringify({ tool: 'note_add', arguments: { body: 'x'.repeat(BODY_LIMIT_BYTES) } });
    const response = await gw.request('/tools/call', { method: 'POST', body: big });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect((await gw.call({ tool: 'time_now' })).status).toBe(200);
  });

  it('refuses malformed JSON and wrong body shapes with BAD_REQUEST', async () => {
    const bodies = [
      '{"tool":',
      '[]',
      '"time_now"',
      JSON.stringify({ arguments: {} }),
      JSON.stringify({ tool: 'time_now', arguments: [] }),
      JSON.stringify({ tool: 'time_now', arguments: 'x' }),
      JSON.stringify({ tool: 'time_now', extra: true }),
      JSON.stringify({ tool: 7 }),
    ];
    for (const body of bodies) {
      const response = await gw.request('/tools/call', { method: 'POST', body });
      expect(response.status, body).toBe(400);
      const parsed = (await response.json()) as { requestId: string; error: { code: string } };
      expect(parsed.error.code, body).toBe('BAD_REQUEST');
      expect(parsed.requestId).toBeTruthy();
    }
    const text = await gw.request('/tools/call', { method: 'POST', body: 'tool=time_now', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
  });

  it('refuses JSON nested deeper than 100 levels at once, whatever the route (fuzz finding: 600 KB of nesting held the event loop for 70 s)', async () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    for (const [path, body] of [
      ['/providers/enabled', `{"provider":"builtin","enabled":true,"x":${nested(100_000)}}`],
      ['/tools/call', `{"tool":"time_now","arguments":${nested(100)}}`],
      ['/ledger/evidence', `{"requestId":"x","result":${nested(50_000)}}`],
    ] as const) {
      const started = performance.now();
      const response = await gw.request(path, { method: 'POST', body });
      expect(response.status, path).toBe(400);
      expect(await response.json(), path).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringContaining('nested deeper than 100 levels') } });
      expect(performance.now() - started, path).toBeLessThan(3000);
    }
    // Up to the limit a value is judged on its merits: here by the tool's schema.
    const atLimit = await gw.request('/tools/call', { method: 'POST', body: `{"tool":"time_now","arguments":{"timezone":${nested(98)}}}` });
    expect(((await atLimit.json()) as { error: { code: string } }).error.code).toBe('ARGUMENT_INVALID');
  });

  it('answers NOT_FOUND for unknown routes', async () => {
    const response = await gw.request('/nope');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('survives a burst of concurrent mixed requests', async () => {
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0 ? gw.call({ tool: 'note_add', arguments: { body: `burst ${i}` } }) : gw.call({ tool: i % 3 === 1 ? 'todo_list' : 'nope' }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(20).fill(200), ...Array(20).fill(200), ...Array(20).fill(404)].sort());
  });
});

describe('framework errors come back in the envelope', () => {
  /** A request written byte for byte, with this gateway's Host and token unless told otherwise. */
  const raw = (requestLine: string, headers: string[] = [], body = '') =>
    rawExchange(gw.url, [requestLine, `host: ${hostHeader()}`, `authorization: Bearer ${gw.token}`, 'connection: close', ...headers, '', body].join('\r\n'));

  const expectEnvelope = (response: RawResponse, status: number, code: string) => {
    expect(response.status, response.body).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(response.body) as { requestId: string };
    expect(body).toEqual({ ok: false, requestId: expect.any(String), error: { code, message: expect.stringMatching(new RegExp(`^${code}: `)) } });
    expect(response.headers['x-request-id']).toBe(body.requestId);
    expect(errorCodes[code as keyof typeof errorCodes].status).toBe(status);
  };

  it('a URL that does not decode is BAD_REQUEST', async () => {
    for (const target of ['GET /%', 'GET /%E0%A4%A', 'POST /tasks/%E0%A4%A/cancel', 'GET /tools?x=%']) {
      const response = await raw(`${target} HTTP/1.1`, ['content-type: application/json', 'content-length: 2'], '{}');
      if (target.includes('?')) expect(response.status, target).toBe(200); // a query that does not decode is kept as is
      else expectEnvelope(response, 400, 'BAD_REQUEST');
    }
  });

  it('a path parameter over 384 characters as sent is URI_TOO_LONG; the longest requestId, percent-encoded whole, is routed', async () => {
    expectEnvelope(await raw(`POST /tasks/${'t'.repeat(385)}/cancel HTTP/1.1`, ['content-type: application/json', 'content-length: 2'], '{}'), 414, 'URI_TOO_LONG');
    const longest = `%${'e'.repeat(MAX_REQUEST_ID - 1)}`;
    expectEnvelope(await raw(`POST /calls/${encodeURIComponent(longest).replace(/e/g, '%65')}/cancel HTTP/1.1`, ['content-type: application/json', 'content-length: 2'], '{}'), 404, 'CALL_NOT_FOUND');
    // At the limit it is an ordinary unknown task.
    expectEnvelope(await raw(`POST /tasks/${'t'.repeat(100)}/cancel HTTP/1.1`, ['content-type: application/json', 'content-length: 2'], '{}'), 404, 'TASK_NOT_FOUND');
  });

  it("headers over Node's 16 KiB, or a URL that long, are HEADERS_TOO_LARGE", async () => {
    expectEnvelope(await raw('GET /tools HTTP/1.1', [`x-padding: ${'a'.repeat(20_000)}`]), 431, 'HEADERS_TOO_LARGE');
    expectEnvelope(await raw(`GET /tools?q=${'a'.repeat(20_000)} HTTP/1.1`), 431, 'HEADERS_TOO_LARGE');
    expect((await gw.request('/tools')).status).toBe(200);
  });

  it('bytes that are not HTTP are BAD_REQUEST', async () => {
    expectEnvelope(await rawExchange(gw.url, 'HELLO\r\n\r\n'), 400, 'BAD_REQUEST');
    expectEnvelope(await raw('BREW /tools HTTP/1.1'), 400, 'BAD_REQUEST');
    expectEnvelope(await raw('GET /tools HTTP/1.1', ['no colon in this header']), 400, 'BAD_REQUEST');
    // Both framings at once is how request smuggling starts.
    expectEnvelope(await raw('POST /tools/call HTTP/1.1', ['content-length: 2', 'transfer-encoding: chunked'], '{}'), 400, 'BAD_REQUEST');
  });

  it('answers a pipelined call before the bytes after it that are not HTTP, in order on the same connection', async () => {
    const body = JSON.stringify({ tool: 'time_now', arguments: {}, requestId: 'pipelined-before-garbage' });
    const call = [`POST /tools/call HTTP/1.1`, `host: ${hostHeader()}`, `authorization: Bearer ${gw.token}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`, '', body].join('\r\n');
    const received = await rawBytes(gw.url, `${call}GARBAGE\r\n\r\n`);
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('"requestId":"pipelined-before-garbage"');
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    expect(second).toContain('"code":"BAD_REQUEST"');
  });

  it('a request that does not arrive in time is REQUEST_TIMEOUT', async () => {
    // Node's own timer (60 s) is too slow for a test: raise its error on a real half-sent request.
    const sockets: import('node:net').Socket[] = [];
    const track = (socket: import('node:net').Socket) => sockets.push(socket);
    gw.gateway.app.server.on('connection', track);
    const answer = rawExchange(gw.url, `GET /tools HTTP/1.1\r\nhost: ${hostHeader()}\r\n`);
    await vi.waitFor(() => expect(sockets).toHaveLength(1));
    gw.gateway.app.server.off('connection', track);
    gw.gateway.app.server.emit('clientError', Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), sockets[0]);
    expectEnvelope(await answer, 408, 'REQUEST_TIMEOUT');
  });

  it('an empty or non-JSON body is BAD_REQUEST', async () => {
    const cases: [string, Record<string, string>][] = [
      ['', { 'content-type': 'application/json' }],
      ['{"tool":"time_now"}', { 'content-type': 'application/xml' }],
      ['tool=time_now', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['{"tool":"time_now"}', { 'content-type': 'text/plain' }],
    ];
    for (const [body, headers] of cases) {
      const response = await gw.request('/tools/call', { method: 'POST', body, headers });
      expect(response.status, JSON.stringify(headers)).toBe(400);
      expect(await response.json()).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    }
    const noType = await raw('POST /tools/call HTTP/1.1', ['content-length: 19'], '{"tool":"time_now"}');
    expectEnvelope(noType, 400, 'BAD_REQUEST');
    expect(JSON.parse(noType.body).error.message).toContain('content-type: application/json');
  });

  it('a known route asked with another method is METHOD_NOT_ALLOWED, with Allow', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/tools', 'GET, HEAD'],
      ['GET', '/tools/call', 'POST'],
      ['PATCH', '/settings', 'GET, HEAD, PUT'],
      ['GET', '/tasks/some-task/cancel', 'POST'],
      ['POST', '/events', 'GET'],
      ['HEAD', '/events', 'GET'],
      ['OPTIONS', '/ledger/verify', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await raw(`${method} ${path} HTTP/1.1`);
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.allow, `${method} ${path}`).toBe(allow);
      if (method !== 'HEAD') expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED');
    }
    expectEnvelope(await raw('GET /tools/calls HTTP/1.1'), 404, 'NOT_FOUND');
    expectEnvelope(await raw('CONNECT 127.0.0.1:80 HTTP/1.1'), 404, 'NOT_FOUND');
  });

  it('the console page of a copy without a built console is CONSOLE_NOT_BUILT, in the envelope, and the API still answers', async () => {
    // The test gateway is started without the renderer's files, as a copy that was never built is.
    const page = await raw('GET / HTTP/1.1');
    expectEnvelope(page, 503, 'CONSOLE_NOT_BUILT');
    expect(JSON.parse(page.body).error.message).toContain('npm run build');
    expect((await gw.request('/tools')).status).toBe(200);
  });

  it("a request without Host gets FORBIDDEN_ORIGIN, not Node's bare 400", async () => {
    expectEnvelope(await rawExchange(gw.url, `GET /tools HTTP/1.1\r\nauthorization: Bearer ${gw.token}\r\n\r\n`), 403, 'FORBIDDEN_ORIGIN');
  });

  it('an Expect other than 100-continue is ignored rather than answered with a bodiless 417', async () => {
    expect((await raw('GET /tools HTTP/1.1', ['expect: something-else'])).status).toBe(200);
    expectEnvelope(await rawExchange(gw.url, `GET /tools HTTP/1.1\r\nhost: ${hostHeader()}\r\nexpect: x\r\n\r\n`), 401, 'UNAUTHORIZED');
  });
});

describe('settings', () => {
  it('keeps the console whitelist across a restart on the same data dir', async () => {
    const own = await startTestGateway();
    expect(await (await own.request('/settings')).json()).toEqual({ whitelist: ['time_now', 'local_status'] });
    const saved = await own.request('/settings', { method: 'PUT', body: { whitelist: ['time_now', 'todo_list'] } });
    expect(await saved.json()).toEqual({ whitelist: ['time_now', 'todo_list'] });
    const bad = await own.request('/settings', { method: 'PUT', body: { whitelist: 'time_now' } });
    expect(bad.status).toBe(400);
    const { dataDir } = own;
    await own.gateway.close();
    own.host.close();

    const again = await startTestGateway({ dataDir });
    expect(await (await again.request('/settings')).json()).toEqual({ whitelist: ['time_now', 'todo_list'] });
    await again.stop();
  });
});

describe('error codes', () => {
  it('are one documented table with a status each', () => {
    expect(Object.keys(errorCodes)).toEqual(
      expect.arrayContaining(['TOOL_NOT_FOUND', 'ARGUMENT_MISSING', 'ARGUMENT_INVALID', 'CONFIRMATION_REQUIRED', 'TOOL_FAILED', 'UNAUTHORIZED', 'FORBIDDEN_ORIGIN', 'PAYLOAD_TOO_LARGE', 'BAD_REQUEST']),
    );
  });
});

describe('confirmation bound to its session', () => {
  const args = () => ({ url: `${target.url}/session-bound`, method: 'GET' });
  const challengeOf = (body: { error?: Record<string, unknown> }) => (body.error?.challenge as { id: string }).id;

  it('refuses a challenge issued in one session when another session presents it, and runs nothing', async () => {
    const asked = await gw.call({ tool: 'http_check', arguments: args(), sessionId: 'session-a' });
    expect(asked.status).toBe(428);
    const stolen = await gw.call({ tool: 'http_check', arguments: args(), sessionId: 'session-b', confirmation: challengeOf(asked.body) });
    expect(stolen.status).toBe(428);
    expect(stolen.body.error).toMatchObject({ code: 'CONFIRMATION_REQUIRED', message: expect.stringContaining('issued in another session') });
    // A wrong presentation burns the challenge, as a wrong tool or arguments does.
    const late = await gw.call({ tool: 'http_check', arguments: args(), sessionId: 'session-a', confirmation: challengeOf(asked.body) });
    expect(late.status).toBe(428);
    expect(target.hits.filter((hit) => hit.url === '/session-bound')).toEqual([]);
  });

  it('runs the call re-sent with its challenge in the session that asked, the default one included', async () => {
    const asked = await gw.call({ tool: 'http_check', arguments: args(), sessionId: 'session-a' });
    const confirmed = await gw.call({ tool: 'http_check', arguments: args(), sessionId: 'session-a', confirmation: challengeOf(asked.body) });
    expect(confirmed.status).toBe(200);
    expect(target.hits.filter((hit) => hit.url === '/session-bound')).toHaveLength(1);

    // The console's calls name no session: they run in the default one, "operator", both times.
    const fromConsole = await gw.call({ tool: 'http_check', arguments: args() });
    const inOperator = await gw.call({ tool: 'http_check', arguments: args(), sessionId: 'operator', confirmation: challengeOf(fromConsole.body) });
    expect(inOperator.status).toBe(200);
    const elsewhere = await gw.call({ tool: 'http_check', arguments: args(), sessionId: 'session-a' });
    const intoDefault = await gw.call({ tool: 'http_check', arguments: args(), confirmation: challengeOf(elsewhere.body) });
    expect(intoDefault.status).toBe(428);
    expect(target.hits.filter((hit) => hit.url === '/session-bound')).toHaveLength(2);
  });
});

describe('logs carry codes, never argument values', () => {
  let own: TestGateway;
  const secret = (n: number) => `sk-live-SECRET${n}-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    own = await startTestGateway({ config: { grants: [{ pattern: 'builtin:*', authority: 'execute' }, { pattern: 'leaky:*', authority: 'execute' }] } });
    // A tool whose exception quotes its input, as real tools' exceptions often do.
    const echoesInput = testTool({
      name: 'echoes_input',
      description: 'Throws an error that quotes its argument',
      run: (args) => {
        throw new Error(`could not use ${JSON.stringify(args)}`);
      },
    });
    await own.host.catalog.addProvider({ name: 'leaky', kind: 'builtin', load: () => ({ tools: [echoesInput], skills: [], diagnostics: [] }) });
  });
  afterAll(() => own?.stop());

  it('keeps each failure’s message for the client and logs its code, field and requestId instead', async () => {
    // Recent executions keep the operator's arguments, on disk too when asked: still never in the log.
    const persist = await own.request('/executions/settings', { method: 'PUT', body: { persist: true, maxEntries: 100, maxAgeDays: 30 } });
    expect(persist.status).toBe(200);
    const secrets: string[] = [];
    /** Sends one failing request with a fresh secret in it; the client's message may quote it. */
    const fail = async (make: (value: string) => { body: unknown; headers?: Record<string, string> }, code: string) => {
      const value = secret(secrets.length);
      secrets.push(value);
      const { body, headers } = make(value);
      const response = await own.request('/tools/call', { method: 'POST', body, ...(headers ? { headers } : {}) });
      const envelope = (await response.json()) as { requestId: string; error: { code: string; message: string } };
      expect(envelope.error.code, JSON.stringify(body)).toBe(code);
      return envelope;
    };

    const zone = await fail((value) => ({ body: { tool: 'time_now', arguments: { timezone: `Mars/${value}` }, requestId: 'leak-zone' } }), 'ARGUMENT_INVALID');
    expect(zone.error.message).toContain('Mars/sk-live-');
    await fail((value) => ({ body: { tool: 'http_check', arguments: { url: `not a url ${value}` } } }), 'ARGUMENT_INVALID');
    await fail((value) => ({ body: { tool: 'http_check', arguments: { url: 'http://127.0.0.1:1/', method: value } } }), 'ARGUMENT_INVALID');
    await fail((value) => ({ body: { tool: 'note_search', arguments: { query: 'x', extra: value } } }), 'ARGUMENT_INVALID');
    await fail((value) => ({ body: { tool: 'todo_add', arguments: { title: 'x', due: value } } }), 'ARGUMENT_INVALID');
    await fail((value) => ({ body: { tool: value } }), 'TOOL_NOT_FOUND');
    await fail((value) => ({ body: `{"tool":"time_now","arguments":{"timezone":"${value}"` }), 'BAD_REQUEST');
    await fail((value) => ({ body: { tool: 'time_now', arguments: { timezone: 'UTC' }, [value]: true } }), 'BAD_REQUEST');
    await fail((value) => ({ body: { tool: 'time_now', sessionId: { value } } }), 'BAD_REQUEST');
    await fail((value) => ({ body: '{}', headers: { 'content-type': `application/${value}` } }), 'BAD_REQUEST');
    const thrown = await fail((value) => ({ body: { tool: 'echoes_input', arguments: { password: value }, requestId: 'leak-tool' } }), 'TOOL_FAILED');
    expect(thrown.error.message).toContain('sk-live-');
    const thrownArgument = secrets.at(-1)!;
    // http_check asks first; confirmed, it refuses a URL with credentials, and then a loopback
    // destination this gateway does not allow (no request leaves either way).
    const refusals = [
      [(value: string) => `http://user:${value}@127.0.0.1:1/`, 'ARGUMENT_INVALID'],
      [(value: string) => `http://127.0.0.1:1/${value}`, 'DESTINATION_REFUSED'],
    ] as const;
    for (const [url, code] of refusals) {
      const asked = await fail((value) => ({ body: { tool: 'http_check', arguments: { url: url(value) } } }), 'CONFIRMATION_REQUIRED');
      const { id } = (asked.error as unknown as { challenge: { id: string } }).challenge;
      const refused = await own.call({ tool: 'http_check', arguments: { url: url(secrets.at(-1)!) }, confirmation: id });
      expect(refused.body.error?.code).toBe(code);
    }

    const logged = own.logs.map((line) => JSON.stringify(line));
    for (const value of secrets) expect(logged.filter((line) => line.includes(value)), value).toEqual([]);
    // The history did hold them (so they went through it), the thrown tool's argument among them.
    const history = JSON.stringify(await (await own.request('/executions')).json());
    expect(history).toContain(thrownArgument);
    expect(own.logs).toContainEqual(expect.objectContaining({ requestId: 'leak-zone', code: 'ARGUMENT_INVALID', field: 'timezone' }));
    expect(own.logs).toContainEqual(expect.objectContaining({ requestId: 'leak-tool', code: 'TOOL_FAILED' }));
  });

  it('logs a gateway fault with its type and stack frames, not its message', () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }).child({ requestId: 'fault-1' });
    const value = secret(99);
    const envelope = errorEnvelope(asCapstanError(new TypeError(`cannot handle ${value}`)), { requestId: 'fault-1', log });
    expect(envelope.error).toEqual({ code: 'INTERNAL_ERROR', message: 'INTERNAL_ERROR: the gateway could not complete this request' });
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, requestId: 'fault-1', code: 'INTERNAL_ERROR', fault: { type: 'TypeError', stack: expect.stringMatching(/^at .*gateway\.test\.ts/) } }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(value);
  });
});
