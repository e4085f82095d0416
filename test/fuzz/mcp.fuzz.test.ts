/**
 * The fuzz campaign against Capstan's own MCP server (`POST /mcp`), the way agents come in:
 * arbitrary JSON-RPC over Streamable HTTP against a real gateway on loopback. Messages are the
 * methods MCP clients send (and some they should not), with ids of every JSON type, batches (some
 * cancelling their own requests), and `tools/call` arguments shaped by the tools' own input
 * schemas, mixed with values a schema cannot expect (lone surrogates, prototype keys, numbers
 * beyond a double, deep nesting); headers carry every protocol revision (and nonsense ones),
 * session ids the gateway issued and forged ones, and arbitrary Accept and Content-Type.
 *
 * It holds that every answer is either the gateway's error envelope with a documented code and
 * that code's status, or JSON-RPC (as JSON or as server-sent events) answering the request's id;
 * that a tool's failure names a documented code; that the gateway keeps answering promptly; and
 * that the ledger verifies at the end.
 *
 * `npm test` runs FUZZ_RUNS (default 150) cases; `npm run fuzz` runs 5,000; FUZZ_SEED replays one.
 *
 * No traffic leaves loopback. The operator's token is used, so a call that needs confirmation
 * (only http_check) stops at CONFIRMATION_REQUIRED: no MCP tool can answer its challenge. Every
 * case that names http_check is discarded all the same, and the test asserts that the ledger
 * holds no started http_check call.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../shared/api';
import { errorCodes, type ErrorCode } from '../../shared/errors';
import { startTestGateway, type TestGateway } from '../support/gateway';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const REQUEST_DEADLINE_MS = 15_000;
const BATCH = 25;
const DOCUMENTED_5XX = new Set(Object.entries(errorCodes).filter(([code, { status }]) => status >= 500 && code !== 'INTERNAL_ERROR').map(([code]) => code));
const REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
}
interface McpTool {
  name: string;
  inputSchema: JsonSchema;
}

let gw: TestGateway;
let tools: McpTool[];
/** Session ids the gateway issued, so that later cases present real ones. */
const issued: string[] = [];
/** References the catalog handed out, so that calls reach past validation. */
let references: unknown[];
/** The tools loaded in the first issued session, with the schemas their arguments follow. */
const loaded: { reference: unknown; inputSchema: JsonSchema }[] = [];

const post = (headers: Record<string, string>, body: string | undefined) =>
  fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: body ?? null,
    signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
  });

/** The JSON-RPC messages of an answer, whether it came as JSON or as server-sent events. */
async function messagesOf(response: Response): Promise<unknown[]> {
  const text = await response.text();
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      // A priming event (SEP-1699) has empty data: it carries no message.
      .filter((line) => line.slice(5).trim() !== '')
      .map((line) => JSON.parse(line.slice(5)) as unknown);
  }
  if (text === '') return [];
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

beforeAll(async () => {
  gw = await startTestGateway();
  const opened = await post({}, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } }));
  issued.push(opened.headers.get('mcp-session-id')!);
  await opened.body?.cancel();
  const listed = (await messagesOf(await post({ 'mcp-session-id': issued[0]!, 'mcp-protocol-version': '2025-11-25' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })))) as {
    result: { tools: McpTool[] };
  }[];
  tools = listed[0]!.result.tools;
  const searched = (await messagesOf(
    await post({ 'mcp-session-id': issued[0]!, 'mcp-protocol-version': '2025-11-25' }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'capabilities_search', arguments: { query: 'note time todo', limit: 20 } } })),
  )) as { result: { structuredContent: { items: { reference: unknown }[] } } }[];
  references = searched[0]!.result.structuredContent.items.map(({ reference }) => reference);
  // Loaded in the first session, so that calls presenting them get past `tools_load` into the call path.
  for (const [index, reference] of references.entries()) {
    const answer = (await messagesOf(
      await post({ 'mcp-session-id': issued[0]!, 'mcp-protocol-version': '2025-11-25' }, JSON.stringify({ jsonrpc: '2.0', id: 10 + index, method: 'tools/call', params: { name: 'tools_load', arguments: { reference } } })),
    )) as { result?: { structuredContent?: { inputSchema: JsonSchema } } }[];
    const inputSchema = answer.find(({ result }) => result)?.result?.structuredContent?.inputSchema;
    if (inputSchema) loaded.push({ reference, inputSchema });
  }
  expect(tools.map(({ name }) => name)).toContain('capability_call');
  expect(loaded.length).toBeGreaterThan(0);
});
afterAll(async () => {
  await gw?.stop();
});

const loneSurrogate = fc.constantFrom('\ud800', 'a\udfffb', 'x\ud83d');
const pollution = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString');
const scalar = () =>
  fc.oneof(
    fc.string({ maxLength: 30 }),
    loneSurrogate,
    fc.integer({ min: -5, max: 500 }),
    fc.double(),
    fc.constantFrom(0, 1e300, Number.MAX_SAFE_INTEGER + 2),
    fc.boolean(),
    fc.constant(null),
  );
const anyValue = () => fc.oneof({ weight: 3, arbitrary: scalar() }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: fc.dictionary(pollution, scalar(), { maxKeys: 2 }) });

/** A value for a property, by its schema most of the time, by its name where the name says what it holds. */
function forSchema(name: string, schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (name === 'reference') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...references) }, { weight: 1, arbitrary: anyValue() });
  if (name === 'query') return fc.oneof(fc.constantFrom('note', 'time', 'todo list', 'device', '', '*'), fc.string({ maxLength: 20 }), loneSurrogate);
  if (name === 'cursor') return fc.oneof(fc.string({ maxLength: 60 }), fc.base64String({ maxLength: 80 }));
  if (!schema || depth > 3) return anyValue();
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 1, arbitrary: loneSurrogate });
    case 'integer':
    case 'number':
      return fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constantFrom(1e300, 0.5, -0));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(forSchema('', schema.items, depth + 1), { maxLength: 3 });
    case 'object': {
      if (name === 'arguments') return fc.dictionary(fc.constantFrom('query', 'title', 'body', 'tags', 'limit', 'timeZone', 'text', 'id'), scalar(), { maxKeys: 3 });
      const properties = Object.entries(schema.properties ?? {});
      return fc.record(Object.fromEntries(properties.map(([key, property]) => [key, forSchema(key, property, depth + 1)])), { requiredKeys: (schema.required ?? []).filter((key) => key in (schema.properties ?? {})) });
    }
    default:
      return anyValue();
  }
}

/** Arguments for a tool: by its schema, now and then with a field replaced by anything at all. */
const argumentsFor = (tool: McpTool) =>
  fc.oneof(
    { weight: 8, arbitrary: forSchema('', { ...tool.inputSchema, type: 'object' }) },
    { weight: 1, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...Object.keys(tool.inputSchema.properties ?? {})), pollution), anyValue(), { maxKeys: 4 }) },
    { weight: 1, arbitrary: anyValue() },
  );

const id = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) }, { weight: 2, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: fc.constantFrom(null, 1.5, true, {}, []) });

function message(): fc.Arbitrary<Record<string, unknown>> {
  const discovery = fc
    .integer({ min: 0, max: Math.max(0, tools.length - 1) })
    .chain((index) => fc.record({ name: fc.oneof({ weight: 8, arbitrary: fc.constant(tools[index]!.name) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }), arguments: argumentsFor(tools[index]!) }, { requiredKeys: ['name'] }));
  // A loaded tool called through capability_call, its arguments by that tool's own schema.
  const loadedCall = fc
    .constantFrom(...loaded)
    .chain(({ reference, inputSchema }) =>
      fc.record({ name: fc.constant('capability_call'), arguments: fc.record({ reference: fc.oneof({ weight: 6, arbitrary: fc.constant(reference) }, { weight: 1, arbitrary: anyValue() }), arguments: argumentsFor({ name: '', inputSchema }) }) }),
    );
  const call = fc.oneof({ weight: 1, arbitrary: discovery }, { weight: 1, arbitrary: loadedCall });
  const initialize = fc.record({
    protocolVersion: fc.oneof(fc.constantFrom(...REVISIONS), fc.string({ maxLength: 12 })),
    capabilities: fc.oneof(fc.constant({}), fc.dictionary(fc.string({ maxLength: 8 }), anyValue(), { maxKeys: 2 })),
    clientInfo: fc.record({ name: fc.string({ maxLength: 20 }), version: fc.string({ maxLength: 8 }) }),
  });
  const request = (method: string, params: fc.Arbitrary<unknown>) => fc.record({ jsonrpc: fc.constant('2.0'), id, method: fc.constant(method), params }, { requiredKeys: ['jsonrpc', 'id', 'method'] });
  return fc.oneof(
    { weight: 8, arbitrary: request('tools/call', call) },
    { weight: 2, arbitrary: request('tools/list', fc.oneof(fc.constant({}), fc.record({ cursor: fc.string({ maxLength: 20 }) }))) },
    { weight: 2, arbitrary: request('initialize', initialize) },
    { weight: 1, arbitrary: request('ping', fc.constant({})) },
    { weight: 1, arbitrary: fc.constantFrom('resources/list', 'prompts/list', 'logging/setLevel', 'completion/complete', 'sampling/createMessage', 'nope/nothing').chain((method) => request(method, fc.jsonValue({ maxDepth: 2 }))) },
    { weight: 1, arbitrary: fc.constantFrom('notifications/initialized', 'notifications/cancelled', 'notifications/progress').map((method) => ({ jsonrpc: '2.0', method, params: {} })) },
    { weight: 1, arbitrary: fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), fc.string({ maxLength: 4 })), id, method: fc.oneof(fc.string({ maxLength: 16 }), fc.integer()), params: anyValue() }, { requiredKeys: [] }) },
  );
}

/** JSON text a serializer would not write: deep nesting, numbers beyond a double, broken escapes. */
const rawBody = fc.oneof(
  fc.integer({ min: 1, max: 100_000 }).map((depth) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"capabilities_list","arguments":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`),
  fc.integer({ min: 1, max: 100_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.constantFrom(
    '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"capabilities_search","arguments":{"query":"\\ud800"}}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"capabilities_list","arguments":{"limit":123456789012345678901234567890}}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"name":"capability_call"}}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call"',
    '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '[]',
    'null',
    '',
  ),
);

/**
 * A batch that cancels its own requests: all of them from the front, or all but the last from the
 * back; with `respond`, a JSON-RPC response under the first one's id too.
 */
function cancellingItself(batch: Record<string, unknown>[], first: boolean, respond: boolean): Record<string, unknown>[] {
  const ids = batch.filter((message) => typeof message.method === 'string' && 'id' in message).map((message) => message.id);
  const cancellations = ids.map((requestId) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'fuzz' } }));
  const responses = respond ? ids.slice(0, 1).map((id) => ({ jsonrpc: '2.0', id, result: {} })) : [];
  return first ? [...cancellations, ...responses, ...batch] : [...batch, ...responses, ...cancellations.slice(0, -1)];
}

interface Case {
  headers: Record<string, string>;
  body: string | undefined;
}

function cases(): fc.Arbitrary<Case> {
  const rarely = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
  const headers = fc
    .record({
      'mcp-protocol-version': fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...REVISIONS) }, { weight: 1, arbitrary: fc.constantFrom('1999-01-01', 'latest', '') }, { weight: 2, arbitrary: fc.constant(undefined) }),
      'mcp-session-id': fc.oneof({ weight: 4, arbitrary: fc.constant('issued') }, { weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('forged-session-id-000000', 'no spaces allowed', 'x'.repeat(300)) }),
      accept: rarely(fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html')),
      'content-type': rarely(fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded')),
      authorization: rarely(fc.constantFrom('Bearer not-the-token', 'Basic Zm9vOmJhcg==')),
    })
    .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, field]) => field !== undefined)) as Record<string, string>);
  const body = fc.oneof(
    { weight: 8, arbitrary: message().map((one) => JSON.stringify(one)) },
    { weight: 1, arbitrary: fc.array(message(), { minLength: 1, maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
    { weight: 1, arbitrary: fc.tuple(fc.array(message(), { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean()).map(([batch, first, respond]) => JSON.stringify(cancellingItself(batch, first, respond))) },
    { weight: 2, arbitrary: rawBody },
  );
  return fc.record({ headers, body }).filter(({ body: text }) => !/http_check/i.test(text ?? ''));
}

let sent = 0;

async function send(generated: Case): Promise<void> {
  sent += 1;
  const headers = { ...generated.headers };
  // Every other case (the first included) in the first session, where the tools are loaded, so that calls run.
  if (headers['mcp-session-id'] === 'issued') headers['mcp-session-id'] = sent % 2 === 1 ? issued[0]! : issued[sent % issued.length]!;
  const response = await post(headers, generated.body);
  const what = `POST /mcp ${JSON.stringify(headers)} ${(generated.body ?? '').slice(0, 300)} → ${response.status}`;
  const session = response.headers.get('mcp-session-id');
  if (session && issued.length < 20) issued.push(session);

  if (response.status >= 400) {
    const text = await response.text();
    if (text === '') {
      expect(response.status, what).toBeLessThan(500);
      return;
    }
    const parsed = JSON.parse(text) as unknown;
    const envelope = ErrorEnvelope.safeParse(parsed);
    if (envelope.success) {
      // The gateway's own refusal (auth, Host/Origin, session id, body): its documented envelope.
      const { code } = envelope.data.error;
      expect(errorCodes[code as ErrorCode]?.status, `${what}: ${code}`).toBe(response.status);
      if (response.status >= 500) expect(DOCUMENTED_5XX.has(code), `${what}: ${text.slice(0, 300)}`).toBe(true);
    } else {
      // The MCP transport's refusal (a message it cannot take): a JSON-RPC error, never a 5xx.
      expect(parsed, `${what}: ${text.slice(0, 300)}`).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
      expect(response.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
    }
    return;
  }

  for (const answer of await messagesOf(response)) {
    expect(answer, what).toMatchObject({ jsonrpc: '2.0' });
    const { result, error, method } = answer as { result?: { isError?: boolean; structuredContent?: { error?: { code: string } } }; error?: { code: number; message: string }; method?: string };
    // An answer, or a notification the server sends along (tools/list_changed after tools_load, progress).
    expect(result !== undefined || error !== undefined || typeof method === 'string', `${what}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(true);
    if (error) expect(error, what).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    // A Capstan failure reaches the model as the envelope, with a documented code.
    if (result?.isError && result.structuredContent?.error) expect(Object.keys(errorCodes), `${what}: ${JSON.stringify(result).slice(0, 300)}`).toContain(result.structuredContent.error.code);
  }
  if (sent % BATCH === 0) await expectResponsive();
}

async function expectResponsive(): Promise<void> {
  const started = performance.now();
  const answer = await messagesOf(await post({ 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': issued[0]! }, JSON.stringify({ jsonrpc: '2.0', id: 'alive', method: 'tools/list' })));
  expect(answer[0]).toMatchObject({ id: 'alive', result: { tools: expect.any(Array) } });
  expect(performance.now() - started).toBeLessThan(2000);
}

describe('fuzzing /mcp', () => {
  it(`answers ${RUNS} arbitrary JSON-RPC requests with JSON-RPC or the documented envelope`, { timeout: 60_000 + RUNS * 200 }, async () => {
    await fc.assert(
      fc.asyncProperty(cases(), (generated) => send(generated)),
      {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        endOnFailure: true,
        // Besides the generated cases, calls that are sure to run, whatever the draw.
        examples: loaded.map(({ reference }, index): [Case] => [
          { headers: { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'issued' }, body: JSON.stringify({ jsonrpc: '2.0', id: `sure-${index}`, method: 'tools/call', params: { name: 'capability_call', arguments: { reference, arguments: {} } } }) },
        ]),
      },
    );
    await expectResponsive();
  });

  it('leaves a ledger that verifies, with no http_check call started', async () => {
    const verification = (await (await gw.request('/ledger/verify')).json()) as { ok: boolean };
    expect(verification).toMatchObject({ ok: true });
    const started = (await (await gw.request('/ledger?capability=builtin:http_check&kind=call_started&limit=10')).json()) as { entries: unknown[] };
    expect(started.entries).toEqual([]);
    // The campaign reached the runtime (tasks started for MCP sessions) and the call path, not only the transport's refusals.
    const count = async (kind: string) => ((await (await gw.request(`/ledger?kind=${kind}&limit=1000`)).json()) as { entries: unknown[] }).entries.length;
    expect(await count('task_transition')).toBeGreaterThan(0);
    expect(await count('call_finished')).toBeGreaterThan(0);
  });
});
