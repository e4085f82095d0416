/**
 * The fuzz campaign: property-based requests against a real gateway on loopback, over every route
 * the README documents (`operations`), `GET /events` and paths that do not exist. Bodies are
 * arbitrary JSON, shaped like each operation's input or not at all, with deep nesting, numbers
 * beyond JSON, lone surrogates and prototype-pollution keys; headers and query strings are
 * arbitrary too, and a second property writes raw, malformed HTTP on the socket.
 *
 * It holds that no answer is a 5xx other than the documented ones, every error is the README's
 * envelope with a documented code and that code's status, the gateway keeps answering
 * (`GET /tools` between batches, every request under a deadline), and the ledger verifies at the end.
 *
 * `npm test` runs FUZZ_RUNS (default 150) cases; `npm run fuzz` runs 5,000. A failure prints the
 * seed and the shrunk request; FUZZ_SEED=<seed> replays it.
 *
 * No traffic leaves loopback. The only tool that makes a connection is `http_check`, and it needs
 * an operator's confirmation: a single-use challenge id the fuzzer never reads back, so every
 * call to it stops at 428 CONFIRMATION_REQUIRED. Belt and braces, generated calls name
 * `http_check` only with URLs of a loopback server this test owns (every other generated body
 * that mentions it is discarded), and the test asserts that server was never reached and the
 * ledger holds no started `http_check` call.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ErrorEnvelope, operations } from '../../shared/api';
import { errorCodes, type ErrorCode } from '../../shared/errors';
import { EVENTS_PATH } from '../../shared/events';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { rawExchange } from '../support/rawHttp';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** Longer than any builtin tool's deadline plus the cancellation grace: beyond this, the gateway hangs. */
const REQUEST_DEADLINE_MS = 15_000;
/** How often, in cases, the gateway must show it still answers promptly. */
const BATCH = 25;

/** 5xx answers the README documents: a tool that failed or never finished, a full house of event streams. */
const DOCUMENTED_5XX = new Set(Object.entries(errorCodes).filter(([code, { status }]) => status >= 500 && code !== 'INTERNAL_ERROR').map(([code]) => code));

let gw: TestGateway;
let target: LoopbackServer;
let toolNames: string[];
let argumentNames: string[];
let capabilityIds: string[];

beforeAll(async () => {
  gw = await startTestGateway();
  target = await startLoopbackServer();
  const tools = (await (await gw.request('/tools')).json()) as { tools: { name: string; id: string; inputSchema: { properties?: object } }[] };
  toolNames = tools.tools.flatMap(({ name, id }) => [name, id]).filter((name) => !name.includes('http_check'));
  argumentNames = [...new Set(tools.tools.flatMap(({ inputSchema }) => Object.keys(inputSchema.properties ?? {})))];
  const catalog = (await (await gw.request('/catalog')).json()) as { capabilities: { contract: { id: string } }[] };
  capabilityIds = catalog.capabilities.map(({ contract }) => contract.id);
});
afterAll(async () => {
  await gw?.stop();
  await target?.close();
});

type ZodDef = Record<string, unknown> & { type: string };

/** A few sessions the cases share, so that they meet each other's tasks. */
const SESSIONS = ['operator', 'fuzz-a', 'fuzz-b'];
/** Stands for a task the gateway made in an earlier case; `send` puts its id in. */
const A_TASK = '{task}';
const recentTasks: string[] = [];

/** Values for fields whose name says what they hold. */
const byName: Record<string, fc.Arbitrary<unknown>> = {
  sessionId: fc.constantFrom(...SESSIONS),
  taskId: fc.constantFrom(A_TASK, 'task-0'),
  id: fc.constantFrom(A_TASK),
  get tool() {
    return fc.constantFrom(...toolNames);
  },
  provider: fc.constantFrom('builtin', 'skills', 'nope'),
  pattern: fc.constantFrom('*', 'builtin:*', 'builtin:note_*', 'builtin:time_now', '*a*a*a*a*b'),
  title: fc.constantFrom('fuzz task', 'check the printer'),
  text: fc.constantFrom('steer left', ''),
  message: fc.constantFrom('done'),
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The field names an operation's zod input knows, through objects, unions, defaults and pipes. */
function fieldNames(schema: z.ZodType, depth = 0): string[] {
  const def = defOf(schema);
  if (depth > 4) return [];
  if (def.type === 'object') {
    const shape = def.shape as Record<string, z.ZodType>;
    return [...Object.keys(shape), ...Object.values(shape).flatMap((field) => fieldNames(field, depth + 1))];
  }
  if (def.type === 'union') return (def.options as z.ZodType[]).flatMap((option) => fieldNames(option, depth + 1));
  const inner = (def.innerType ?? def.in) as z.ZodType | undefined;
  return inner ? fieldNames(inner, depth + 1) : [];
}

/**
 * Values an operation's zod input accepts, more or less: its fields with values of their type,
 * drawn from names that mean something here, so that cases get past validation into the
 * handlers (tasks start and finish, tools run) instead of all ending in BAD_REQUEST.
 */
function plausible(schema: z.ZodType, depth = 0, key = ''): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  if (depth > 6) return scalar();
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const required = Object.keys(shape).filter((name) => !['optional', 'default'].includes(defOf(shape[name]!).type));
      return fc.record(Object.fromEntries(Object.entries(shape).map(([name, field]) => [name, plausible(field, depth + 1, name)])), { requiredKeys: required });
    }
    case 'optional':
    case 'default':
    case 'nullable':
    case 'readonly':
    case 'catch':
      return plausible(def.innerType as z.ZodType, depth + 1, key);
    case 'pipe':
      return plausible(def.in as z.ZodType, depth + 1, key);
    case 'union':
      return fc.oneof(...(def.options as z.ZodType[]).map((option) => plausible(option, depth + 1, key)));
    case 'string':
      return fc.oneof({ weight: 3, arbitrary: byName[key] ?? meaningful() }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });
    case 'number':
      return fc.integer({ min: 0, max: 120 });
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, string>));
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'array':
      return fc.array(plausible(def.element as z.ZodType, depth + 1, key), { maxLength: 3 });
    case 'record':
      // Tool arguments: none, or by the names the tools' schemas use.
      return fc.oneof(fc.constant({}), fc.dictionary(fc.constantFrom(...argumentNames), scalar(), { maxKeys: 3 }));
    default:
      return value();
  }
}

// Values: ordinary JSON, values the ledger cannot hold, and strings that mean something here.
const loneSurrogate = fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', 'x\ud83d');
const pollution = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__');
const meaningful = () =>
  fc.constantFrom(
    ...toolNames,
    ...capabilityIds,
    'operator',
    'start',
    'steer',
    'follow_up',
    'supersede',
    'finish',
    'succeeded',
    'failed',
    'execute',
    'discover',
    'inspect',
    'load',
    'activate',
    'none',
    'builtin',
    'skills',
    'tool',
    'skill',
    '*',
    'builtin:*',
    '',
  );
const scalar = () =>
  fc.oneof(
    meaningful(),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    loneSurrogate,
    fc.integer({ min: -3, max: 2000 }),
    fc.double(),
    fc.constantFrom(0, -0, 1e300, Number.MAX_SAFE_INTEGER + 2, Number.MIN_VALUE),
    fc.boolean(),
    fc.constant(null),
  );
const value = () =>
  fc.oneof(
    { weight: 4, arbitrary: scalar() },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.oneof(pollution, fc.string({ maxLength: 10 })), scalar(), { maxKeys: 4 }) },
    // Tool arguments by the names the tools' schemas use.
    { weight: 2, arbitrary: fc.dictionary(fc.constantFrom(...argumentNames), scalar(), { maxKeys: 3 }) },
    {
      weight: 1,
      arbitrary: fc.record({
        id: fc.oneof(fc.constantFrom(...capabilityIds), fc.string()),
        catalogGeneration: fc.integer({ min: -1, max: 50 }),
        contractHash: fc.oneof(fc.constant('0'.repeat(64)), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 })),
        bindingGeneration: fc.integer({ min: -1, max: 50 }),
      }),
    },
  );

/** A body shaped like the operation's input: its own field names (and some it does not know), arbitrary values. */
const shapedBody = (names: string[]) =>
  fc.dictionary(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names, 'requestId') }, { weight: 1, arbitrary: pollution }), value(), { maxKeys: 6 });

/** A plausible input, now and then with one field replaced or added: arbitrary, or a prototype key. */
const nearlyValid = (schema: z.ZodType) =>
  fc
    .tuple(plausible(schema), fc.option(fc.tuple(fc.oneof(fc.constantFrom(...fieldNames(schema), 'extra'), pollution), value()), { freq: 3 }))
    .map(([body, change]) => {
      if (change === null || typeof body !== 'object' || body === null) return JSON.stringify(body);
      // JSON text, so that "__proto__" is an own key as it would be on the wire.
      const [key, replacement] = change;
      return JSON.stringify(body).replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(replacement)},`).replace(/,\}$/, '}');
    });

/** What JSON.stringify cannot write: nesting deep enough to overflow a recursive walker, numbers beyond a double, escapes. */
const rawJson = fc.oneof(
  fc.integer({ min: 1, max: 200_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 1, max: 100_000 }).map((depth) => `{"tool":"time_now","arguments":{"a":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`),
  fc.integer({ min: 1, max: 100_000 }).map((depth) => `{"action":"start","title":"t","input":${'['.repeat(depth)}${']'.repeat(depth)}}`),
  fc.constantFrom(
    '1e400',
    '{"tool":"time_now","arguments":{"n":-1e400}}',
    '{"tool":"note_add","arguments":{"body":"\\ud800"}}',
    '{"tool":"time_now","requestId":"\\udfff"}',
    '{"\\ud800":1}',
    '{"whitelist":["\\ud83d"]}',
    '{"limit":123456789012345678901234567890}',
    '{"__proto__":{"isAdmin":true},"tool":"time_now"}',
    '{"constructor":{"prototype":{"polluted":true}},"tool":"time_now"}',
    '{"tool":"time_now","tool":"note_add"}',
    '{"tool":"time_now"',
    '\ufeff{"tool":"time_now"}',
    '',
    'null',
    '"\\u0000"',
    '[]',
  ),
);

const printable = (maxLength: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${maxLength}}$`));
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json; charset=latin1',
  'application/problem+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  ';',
);

interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Every documented route, /events, and some that are not routes at all ("/" is the console page, not the API). */
function targets(): fc.Arbitrary<{ method: string; path: string; names: string[]; input?: z.ZodType }> {
  const pathParam = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(A_TASK, A_TASK, 'operator', 'task-1', 'builtin') },
    { weight: 2, arbitrary: fc.constantFrom('x', '..', '%2F', '%00') },
    { weight: 2, arbitrary: fc.string({ maxLength: 120 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%E0%A4%A', '%ED%A0%80', '%FF') },
  );
  const documented = Object.values(operations).map(({ method, path, input }) =>
    fc.tuple(fc.oneof({ weight: 6, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }), pathParam).map(([chosen, id]) => ({
      method: chosen,
      path: path.replace(/:\w+/g, id),
      names: fieldNames(input),
      input: input as z.ZodType,
    })),
  );
  const events = fc.constantFrom(...METHODS).map((method) => ({ method: method === 'HEAD' ? 'GET' : method, path: EVENTS_PATH, names: ['after'] }));
  const unknown = fc
    .tuple(fc.constantFrom(...METHODS), fc.array(fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent), { minLength: 1, maxLength: 4 }))
    .map(([method, segments]) => ({ method, path: `/${segments.join('/')}`, names: [] }));
  return fc.oneof({ weight: 8, arbitrary: fc.oneof(...documented) }, { weight: 1, arbitrary: events }, { weight: 1, arbitrary: unknown });
}

/** A query string of an input's fields; objects as JSON, as a client that does not know better would send them. */
const toQuery = (fields: unknown) =>
  new URLSearchParams(
    Object.entries(typeof fields === 'object' && fields !== null ? fields : { value: fields }).map(
      ([key, field]): [string, string] => [key, typeof field === 'object' ? JSON.stringify(field) : String(field)],
    ),
  ).toString();

function requests(): fc.Arbitrary<FuzzRequest> {
  const query = (names: string[]) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...names, 'after', 'limit'), pollution, printable(8)), fc.oneof(scalar().map(String), printable(20))).map((fields) => new URLSearchParams(fields).toString()) },
      { weight: 1, arbitrary: fc.constantFrom('a=%', 'q=%ED%A0%80', 'query=%FF', '&&==&', 'limit=1&limit=2', '__proto__[x]=1', 'after=-1', 'limit=1e400') },
    );
  // Mostly what a client sends; now and then what it should not: a foreign Origin, another content type.
  const rarely = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
  const headers = fc
    .record({
      'content-type': fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: contentType }),
      'x-request-id': rarely(printable(140)),
      'last-event-id': rarely(fc.oneof(printable(20), fc.nat().map(String))),
      accept: rarely(fc.constantFrom('*/*', 'text/event-stream', 'application/json', 'text/html')),
      origin: rarely(fc.constantFrom('null', 'http://evil.example', 'http://localhost', 'file://')),
      'accept-encoding': rarely(fc.constantFrom('gzip', 'br', 'identity', '*;q=0')),
      'x-fuzz': rarely(printable(200)),
    })
    .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, field]) => field !== undefined)) as Record<string, string>);
  return targets().chain(({ method, path, names, input }) =>
    fc.record({
      method: fc.constant(method),
      path: fc.constant(path),
      query: fc.oneof(
        { weight: 2, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: query(names) },
        ...(input && defOf(input).type !== 'undefined'
          ? [{ weight: 2, arbitrary: plausible(input).map(toQuery) }]
          : []),
      ),
      headers: fc.tuple(headers, fc.constantFrom('token', 'token', 'token', 'token', 'wrong', 'none')).map(([own, auth]) => ({
        ...own,
        ...(auth === 'none' ? {} : { authorization: `Bearer ${auth === 'token' ? gw.token : 'not-the-token'}` }),
      })),
      body:
        method === 'GET' || method === 'HEAD'
          ? fc.constant(undefined)
          : fc.oneof(
              ...(input ? [{ weight: 8, arbitrary: nearlyValid(input) }] : []),
              ...(path === operations.callTool.path ? [{ weight: 4, arbitrary: toolCall() }] : []),
              { weight: 3, arbitrary: shapedBody(names).map((body) => JSON.stringify(body)) },
              { weight: 2, arbitrary: rawJson },
              { weight: 1, arbitrary: fc.jsonValue().map((body) => JSON.stringify(body)) },
              { weight: 1, arbitrary: httpCheckCall() },
              { weight: 1, arbitrary: fc.constant(undefined) },
            ),
    }),
  ).filter(mentionsHttpCheckOnlyOnLoopback);
}

/** A call that may well run: a tool by name, arguments by its schemas' names, in one of the shared sessions. */
const toolCall = () =>
  fc
    .record(
      {
        tool: fc.constantFrom(...toolNames),
        arguments: fc.oneof(fc.constant({}), fc.dictionary(fc.constantFrom(...argumentNames), fc.oneof(meaningful(), fc.string({ maxLength: 12 })), { maxKeys: 2 })),
        sessionId: fc.constantFrom(...SESSIONS),
        requestId: fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/),
      },
      { requiredKeys: ['tool'] },
    )
    .map((call) => JSON.stringify(call));

/** The one way a generated call names http_check: with a URL of the loopback server this test owns. */
const httpCheckCall = () =>
  fc
    .record({ tool: fc.constantFrom('http_check', 'builtin:http_check'), path: printable(20), method: fc.constantFrom('GET', 'HEAD', 'POST'), confirmation: fc.option(printable(40)) })
    .map(({ tool, path, method, confirmation }) =>
      JSON.stringify({ tool, arguments: { url: `${target.url}/${encodeURIComponent(path)}`, method }, ...(confirmation === null ? {} : { confirmation }) }),
    );

function mentionsHttpCheckOnlyOnLoopback(request: FuzzRequest): boolean {
  const text = `${request.path}?${request.query} ${request.body ?? ''}`;
  return !/http_check/i.test(text) || (request.body !== undefined && request.body.includes(`"url":"${target.url}/`));
}

let cases = 0;

async function send(generated: FuzzRequest): Promise<void> {
  cases += 1;
  // The task an earlier case started, where the case wants one: the stateful part of the campaign.
  const task = recentTasks.at(-1 - (cases % 3)) ?? 'task-0';
  const request = JSON.parse(JSON.stringify(generated).replaceAll(A_TASK, task)) as FuzzRequest;
  const url = `${gw.url}${request.path}${request.query ? `?${request.query}` : ''}`;
  const response = await fetch(url, {
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
    signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
  });
  if (response.ok && request.path.startsWith('/tasks') && request.method === 'POST') {
    const { id } = (await response.clone().json()) as { id?: unknown };
    if (typeof id === 'string') recentTasks.push(id);
  }
  const what = `${request.method} ${url} → ${response.status}`;
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // A live stream: it answered; that is all a fuzz case asks of it.
    expect(response.status, what).toBe(200);
    await response.body?.cancel();
  } else {
    const text = await response.text();
    if (response.status >= 400 && request.method !== 'HEAD') {
      let parsed: unknown;
      expect(() => (parsed = JSON.parse(text)), `${what}: ${text.slice(0, 300)}`).not.toThrow();
      const envelope = ErrorEnvelope.safeParse(parsed);
      expect(envelope.success, `${what}: not the envelope: ${text.slice(0, 300)}`).toBe(true);
      const { code } = envelope.data!.error;
      expect(errorCodes[code as ErrorCode].status, `${what}: ${code}`).toBe(response.status);
      expect(envelope.data!.requestId, what).toBe(response.headers.get('x-request-id'));
      if (response.status >= 500) expect(DOCUMENTED_5XX.has(code), `${what}: ${text.slice(0, 300)}`).toBe(true);
    } else {
      expect(response.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
    }
  }
  if (cases % BATCH === 0) {
    await expectResponsive();
    // Cases switch the builtin provider off now and then; switched back on, later cases reach the tools again.
    await gw.request('/providers/enabled', { method: 'POST', body: { provider: 'builtin', enabled: true } });
  }
}

/** The gateway still answers, and promptly, whatever came before. */
async function expectResponsive(): Promise<void> {
  const started = performance.now();
  const response = await gw.request('/tools');
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  expect(performance.now() - started).toBeLessThan(2000);
}

/** Raw HTTP, framed well enough that the server has a whole request to judge: what it says must be the envelope. */
function rawRequests(): fc.Arbitrary<string> {
  const token = fc.oneof(fc.constantFrom(...METHODS, 'BREW', 'get', 'G\tET', 'PRI', ''), printable(10));
  const where = fc.oneof(fc.constantFrom(...Object.values(operations).map(({ path }) => path), EVENTS_PATH, '*', '/%', 'http://127.0.0.1/tools', '//tools'), printable(60));
  const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 ', 'HTTP/9.9', 'http/1.1', '');
  // fetch will not send Expect or Upgrade: raw requests do.
  const name = fc.oneof(fc.constantFrom('host', 'authorization', 'content-type', 'x-request-id', 'expect', 'upgrade', 'connection', 'last-event-id'), printable(20)).filter(
    (header) => !/^\s*(content-length|transfer-encoding)\s*$/i.test(header),
  );
  const header = fc.tuple(name, printable(60)).map(([key, text]) => `${key}: ${text}`);
  const line = fc.oneof({ weight: 4, arbitrary: header }, { weight: 1, arbitrary: printable(40) });
  return fc
    .record({
      token,
      where,
      version,
      lines: fc.array(line, { maxLength: 6 }),
      ownHost: fc.boolean(),
      body: fc.oneof(fc.constant(''), shapedBody(['tool', 'arguments', 'action', 'title']).map((body) => JSON.stringify(body)), rawJson),
    })
    .filter(({ body, lines }) => !/http_check/i.test(body + lines.join('')))
    .map(({ token: method, where: path, version: http, lines, ownHost, body }) =>
      [
        `${method} ${path} ${http}`,
        ...(ownHost ? [`host: ${new URL(gw.url).host}`, `authorization: Bearer ${gw.token}`] : []),
        ...lines,
        `content-length: ${Buffer.byteLength(body)}`,
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    );
}

describe('fuzzing the gateway', () => {
  it(`answers ${RUNS} arbitrary requests over every route with documented statuses and envelopes`, { timeout: 60_000 + RUNS * 200 }, async () => {
    await fc.assert(
      fc.asyncProperty(requests(), (request) => send(request)),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
    );
    await expectResponsive();
  });

  it(`answers ${Math.ceil(RUNS / 3)} raw, malformed HTTP requests with the envelope`, { timeout: 60_000 + RUNS * 200 }, async () => {
    await fc.assert(
      fc.asyncProperty(rawRequests(), async (bytes) => {
        const response = await rawExchange(gw.url, bytes, REQUEST_DEADLINE_MS);
        const what = `${JSON.stringify(bytes.slice(0, 200))} → ${response.status}`;
        if (response.status >= 400 && !bytes.startsWith('HEAD ')) {
          const envelope = ErrorEnvelope.safeParse(JSON.parse(response.body));
          expect(envelope.success, `${what}: ${response.body.slice(0, 300)}`).toBe(true);
          expect(errorCodes[envelope.data!.error.code as ErrorCode].status, what).toBe(response.status);
          if (response.status >= 500) expect(DOCUMENTED_5XX.has(envelope.data!.error.code), what).toBe(true);
        } else {
          expect(response.status, what).toBeLessThan(500);
        }
      }),
      { numRuns: Math.ceil(RUNS / 3), ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
    );
    await expectResponsive();
  });

  it('leaves a ledger that verifies, and nothing reached past loopback', async () => {
    const verification = (await (await gw.request('/ledger/verify')).json()) as { ok: boolean };
    expect(verification).toMatchObject({ ok: true });
    // Every http_check call the fuzzer made stopped before it started (428), and is on record as a confirmation request.
    const finished = (await (await gw.request('/ledger?capability=builtin:http_check&kind=call_finished&limit=1000')).json()) as {
      entries: { details: { status: string; code: string } }[];
    };
    for (const { details } of finished.entries) expect(details).toMatchObject({ status: 'confirmation_requested', code: 'CONFIRMATION_REQUIRED' });
    expect(target.hits).toEqual([]);
  });
});
