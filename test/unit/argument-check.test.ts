/**
 * The console's argument check (renderer/features/tool-detail/argumentCheck.ts) against the
 * gateway's (electron/catalog/contract.ts): on the builtin tools' schemas and on schemas written
 * the way MCP servers write them, both must accept and refuse the same arguments, and the field
 * the gateway names must be among the fields the page marks.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValidArguments, createSchemaCompiler, ExternalSchemaCompilers, toolContract, type CompiledTool } from '../../electron/catalog/contract';
import type { ToolDefinition } from '../../electron/catalog/tool';
import { builtinTools } from '../../electron/providers/builtin';
import { openDatabase, type Database } from '../../electron/store/database';
import { argumentChecker, checkArguments } from '../../renderer/features/tool-detail/argumentCheck';
import { parseArgumentsJson } from '../../renderer/features/tool-detail/argumentJson';
import { argumentUiSchema } from '../../renderer/features/tool-detail/argumentUi';
import { fieldName } from '../../shared/argumentRules';
import { CapstanError } from '../../shared/errors';

let dataDir: string;
let db: Database;
let builtins: Map<string, CompiledTool>;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'capstan-argcheck-'));
  db = openDatabase(dataDir);
  const compiler = createSchemaCompiler();
  builtins = new Map(builtinTools({ db, dataDir }).map((definition) => [definition.name, toolContract(compiler, 'builtin', definition)]));
});

afterAll(() => {
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The gateway's verdict: null when accepted, else its code and field. */
function gatewayVerdict(tool: CompiledTool, args: Record<string, unknown>): { code: string; field: string } | null {
  try {
    assertValidArguments(tool, args);
    return null;
  } catch (error) {
    if (!(error instanceof CapstanError)) throw error;
    return { code: error.code, field: (error.details as { field: string }).field };
  }
}

function expectSameVerdict(tool: CompiledTool, args: Record<string, unknown>) {
  const gateway = gatewayVerdict(tool, args);
  const page = checkArguments(tool.contract.inputSchema, args);
  const label = `${tool.contract.name} ${JSON.stringify(args)}`;
  if (gateway === null) {
    expect(page, label).toEqual([]);
  } else {
    // The page may place a problem below the gateway's field: dependentRequired's on the property
    // that is missing, where the gateway names the object that lacks it.
    const placed = page.filter(
      ({ code, path }) => code === gateway.code && (fieldName(path) === gateway.field || fieldName(path.slice(0, -1)) === gateway.field),
    );
    expect(placed, `${label}: the gateway refuses ${gateway.code} ${gateway.field}, the page ${JSON.stringify(page)}`).not.toEqual([]);
  }
}

const cases: Record<string, Record<string, unknown>[]> = {
  http_check: [
    {},
    { url: 'https://status.example.com/health' },
    { url: 'HTTP://EXAMPLE.COM' },
    { url: 'ftp://example.com' },
    { url: 'example.com' },
    { url: 'https://' },
    { url: 'https://exa mple.com' },
    { url: `https://example.com/${'a'.repeat(2040)}` },
    { url: `https://example.com/${'a'.repeat(2041)}` },
    { url: 'https://example.com', method: 'GET' },
    { url: 'https://example.com', method: 'get' },
    { url: 'https://example.com', method: 'POST' },
    { url: 'https://example.com', timeoutMs: 100 },
    { url: 'https://example.com', timeoutMs: 99 },
    { url: 'https://example.com', timeoutMs: 15000 },
    { url: 'https://example.com', timeoutMs: 15001 },
    { url: 'https://example.com', timeoutMs: 250.5 },
    { url: 'https://example.com', timeoutMs: '500' },
    { url: 'https://example.com', extra: true },
    { method: 'GET' },
    { url: 42 },
  ],
  note_add: [
    { body: 'x' },
    { body: '' },
    { title: 'T', body: 'text' },
    { title: 't'.repeat(201), body: 'x' },
    { title: '😀'.repeat(200), body: 'x' },
    { body: '😀'.repeat(20000) },
    { body: 'x', tags: ['a', 'b'] },
    { body: 'x', tags: ['a', 'a'] },
    { body: 'x', tags: [''] },
    { body: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
    { body: 'x', tags: 'a' },
    { body: 'x', tags: [1] },
    { title: 'no body' },
  ],
  note_search: [{ query: 'printer' }, { query: '' }, { query: 'x', limit: 0 }, { query: 'x', limit: 50 }, { query: 'x', limit: 51 }, { limit: 5 }],
  todo_add: [
    { title: 'Toner' },
    { title: 'Toner', due: '2026-12-02' },
    { title: 'Toner', due: '2024-02-29' },
    { title: 'Toner', due: '2026-02-29' },
    { title: 'Toner', due: '2026-13-01' },
    { title: 'Toner', due: '02/12/2026' },
    { title: 'Toner', due: '2026-12-02T10:00:00Z' },
    { due: '2026-12-02' },
    { title: '' },
  ],
  todo_list: [{}, { status: 'done' }, { status: 'later' }, { limit: 200 }, { limit: 201 }, { status: 'open', limit: 1, extra: 1 }],
  time_now: [{}, { timezone: 'Europe/Paris' }, { timezone: '' }, { timezone: 'x'.repeat(65) }, { timezone: null }],
  local_status: [{}, { verbose: true }],
  device_inspect: [{}, { anything: 1 }],
};

describe('the console checks arguments as the gateway does', () => {
  it('covers every builtin tool', () => {
    expect([...builtins.keys()].sort()).toEqual(Object.keys(cases).sort());
  });

  for (const [tool, table] of Object.entries(cases)) {
    it(`${tool}: the same verdict on each case of its table`, () => {
      for (const args of table) expectSameVerdict(builtins.get(tool)!, args);
    });
  }

  it('the same verdict on generated arguments for every builtin tool', () => {
    const interesting = fc.constantFrom(
      'https://example.com/x',
      'http://127.0.0.1:8080',
      'mailto:a@b',
      '2026-12-02',
      '2026-02-30',
      'HEAD',
      'GET',
      'open',
      'done',
      '',
      'Europe/Paris',
      '😀',
    );
    const value = fc.oneof(
      interesting,
      fc.string({ maxLength: 30 }),
      fc.integer({ min: -10, max: 20000 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.oneof(interesting, fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 25 }),
    );
    for (const tool of builtins.values()) {
      const keys = [...Object.keys((tool.contract.inputSchema.properties ?? {}) as object), 'extra'];
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length }), (args) => {
          expectSameVerdict(tool, args);
        }),
        { numRuns: 300 },
      );
    }
  });
});

describe('schemas written by MCP servers', () => {
  const external = (inputSchema: Record<string, unknown>): CompiledTool =>
    toolContract(createSchemaCompiler(), 'mcp', {
      name: 'remote',
      title: 'Remote',
      description: 'A tool from elsewhere',
      riskLevel: 'low',
      needConfirm: false,
      mutating: false,
      tags: [],
      inputSchema,
      returnExample: {},
      externalSchema: true,
      run: () => ({}),
    } as ToolDefinition, new ExternalSchemaCompilers());

  const schemas: Record<string, { schema: Record<string, unknown>; cases: Record<string, unknown>[] }> = {
    'draft-07 with $ref, anyOf, unknown keywords and formats': {
      schema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { path: { type: 'string', minLength: 1, 'x-ui': 'file' } },
        properties: {
          path: { $ref: '#/definitions/path' },
          mode: { anyOf: [{ const: 'read' }, { type: 'integer', minimum: 0 }] },
          when: { type: 'string', format: 'date-time' },
          color: { type: 'string', format: 'hex-color' },
        },
        required: ['path'],
      },
      cases: [
        { path: 'a' },
        { path: '' },
        {},
        { path: 'a', mode: 'read' },
        { path: 'a', mode: 3 },
        { path: 'a', mode: 'write' },
        { path: 'a', when: '2026-11-30T09:15:00Z' },
        { path: 'a', when: '2026-11-30 09:15' },
        { path: 'a', color: 'not checked' },
        { path: 'a', anything: 'else' },
      ],
    },
    '2020-12 with $defs, oneOf, dependentRequired, prefixItems and unevaluatedProperties': {
      schema: {
        type: 'object',
        $defs: { id: { type: 'string', pattern: '^[a-z]+-\\d+$' } },
        properties: {
          id: { $ref: '#/$defs/id' },
          user: { type: 'string' },
          password: { type: 'string' },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
          size: { oneOf: [{ type: 'integer', multipleOf: 2 }, { type: 'integer', multipleOf: 3 }] },
        },
        dependentRequired: { user: ['password'] },
        unevaluatedProperties: false,
      },
      cases: [
        {},
        { id: 'ab-12' },
        { id: 'AB-12' },
        { user: 'me' },
        { user: 'me', password: 'x' },
        { pair: ['a', 1] },
        { pair: ['a', 1, 2] },
        { pair: [1, 'a'] },
        { size: 4 },
        { size: 6 },
        { size: 5 },
        { other: 1 },
      ],
    },
  };

  for (const [name, { schema, cases: table }] of Object.entries(schemas)) {
    it(`${name}: the same verdicts`, () => {
      const tool = external(schema);
      for (const args of table) expectSameVerdict(tool, args);
    });
  }
});

describe('what the operator reads', () => {
  const httpCheck = () => builtins.get('http_check')!.contract.inputSchema;

  it('a missing required argument is placed on that field, with the gateway code', () => {
    expect(checkArguments(httpCheck(), {})).toEqual([{ code: 'ARGUMENT_MISSING', path: ['url'], field: 'url', message: 'is required' }]);
  });

  it('says what each failed rule asks for', () => {
    const messages = (schema: Record<string, unknown>, args: Record<string, unknown>) =>
      checkArguments(schema, args).map(({ field, message }) => `${field} ${message}`);
    expect(messages(httpCheck(), { url: 'example.com', method: 'POST', timeoutMs: 99, x: 1 })).toEqual(
      expect.arrayContaining([
        'url must be a full URI, such as https://example.com/path',
        'url must match the pattern ^[Hh][Tt][Tt][Pp][Ss]?://',
        'method must be one of "HEAD" or "GET"',
        'timeoutMs must be at least 100',
        'x is not an accepted argument',
      ]),
    );
    const noteAdd = builtins.get('note_add')!.contract.inputSchema;
    expect(messages(noteAdd, { body: '', tags: ['a', 'a', ''] })).toEqual([
      'body must be at least 1 character',
      'tags.2 must be at least 1 character',
      'tags must not repeat an item (items 1 and 2 are the same)',
    ]);
  });

  it('a schema the page cannot read is left to the gateway', () => {
    expect(argumentChecker({ type: 'object', $schema: 'https://example.com/my-dialect' })).toBeNull();
    expect(checkArguments({ type: 'object', properties: { a: { $ref: 'https://example.com/elsewhere.json' } } }, { a: 1 })).toEqual([]);
  });

  it('leaves the catalog schema as it was', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } };
    const before = JSON.stringify(schema);
    checkArguments(schema, { a: 1 });
    expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(['$ref']);
    expect(JSON.stringify(schema)).toBe(before);
  });
});

describe('the JSON editor', () => {
  it('takes a JSON object, and says why anything else cannot be the arguments', () => {
    expect(parseArgumentsJson('{"url": "https://example.com"}')).toEqual({ args: { url: 'https://example.com' } });
    expect(parseArgumentsJson('{"url": ')).toMatchObject({ error: expect.stringMatching(/^Not valid JSON: /) });
    expect(parseArgumentsJson('[1]')).toEqual({ error: 'The arguments must be a JSON object, { … }.' });
    expect(parseArgumentsJson('null')).toEqual({ error: 'The arguments must be a JSON object, { … }.' });
    // What the gateway refuses before any schema (BAD_REQUEST), found here instead.
    expect(parseArgumentsJson('{"a": "\\ud800"}')).toMatchObject({ error: expect.stringMatching(/lone surrogate/) });
    expect(parseArgumentsJson('{"a": [1e400]}')).toMatchObject({ error: expect.stringMatching(/too large/) });
  });
});

describe('long strings get a multi-line box', () => {
  const widgets = (tool: string, draft: Record<string, unknown> = {}) => {
    const ui = argumentUiSchema(builtins.get(tool)!.contract.inputSchema, draft) as Record<string, { 'ui:widget'?: string }>;
    return Object.fromEntries(Object.entries(ui).flatMap(([key, value]) => (value['ui:widget'] ? [[key, value['ui:widget']]] : [])));
  };

  it('by maxLength: note_add body (20,000) but not its title (200) or note_search query (500)', () => {
    expect(widgets('note_add')).toEqual({ body: 'textarea' });
    expect(widgets('note_search')).toEqual({});
  });

  it('by a name that says text when there is no maxLength, never with an enum or a format', () => {
    const schema = {
      type: 'object',
      properties: {
        content: { type: 'string' },
        path: { type: 'string' },
        code: { type: 'string', enum: ['a', 'b'] },
        message_date: { type: 'string', format: 'date' },
      },
    };
    expect(argumentUiSchema(schema, {})).toEqual({ content: { 'ui:widget': 'textarea', 'ui:options': { rows: 6 } }, 'ui:submitButtonOptions': { norender: true } });
  });

  it('by a value that already spans lines', () => {
    expect(widgets('time_now', { timezone: 'Europe/Paris\nAsia/Tokyo' })).toEqual({ timezone: 'textarea' });
  });
});
