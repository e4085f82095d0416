import { describe, expect, it } from 'vitest';
import { Catalog } from '../../electron/catalog/catalog';
import { assertValidArguments, createSchemaCompiler, toolContract } from '../../electron/catalog/contract';
import type { ToolDefinition } from '../../electron/catalog/tool';
import { CapstanError } from '../../shared/errors';

const definition = (overrides: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name: 'shipment_track',
  title: 'Track shipment',
  description: 'Where a shipment is',
  riskLevel: 'low',
  needConfirm: false,
  mutating: false,
  tags: [],
  inputSchema: {
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 3 },
      address: {
        type: 'object',
        properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } },
        required: ['zip'],
        additionalProperties: false,
      },
    },
    required: ['id'],
    additionalProperties: false,
  },
  returnExample: {},
  run: () => ({}),
  ...overrides,
});

function argumentError(args: Record<string, unknown>): CapstanError {
  const contract = toolContract(createSchemaCompiler(), 'test', definition());
  try {
    assertValidArguments(contract, args);
  } catch (error) {
    return error as CapstanError;
  }
  throw new Error('arguments were accepted');
}

describe('argument validation', () => {
  it('accepts arguments that match the schema', () => {
    const contract = toolContract(createSchemaCompiler(), 'test', definition());
    expect(() => assertValidArguments(contract, { id: 'abc', address: { zip: '75001' } })).not.toThrow();
  });

  it('reports a missing required argument as ARGUMENT_MISSING: <field>', () => {
    const error = argumentError({});
    expect(error.code).toBe('ARGUMENT_MISSING');
    expect(error.message).toBe('ARGUMENT_MISSING: id');
    expect(error.details).toEqual({ field: 'id' });
  });

  it('names nested fields with a dotted path', () => {
    expect(argumentError({ id: 'abc', address: {} }).message).toBe('ARGUMENT_MISSING: address.zip');
    const invalid = argumentError({ id: 'abc', address: { zip: 'x' } });
    expect(invalid.code).toBe('ARGUMENT_INVALID');
    expect(invalid.details).toEqual({ field: 'address.zip' });
    expect(invalid.message).toMatch(/^ARGUMENT_INVALID: address\.zip must match pattern/);
  });

  it('reports a wrong type or an unknown argument as ARGUMENT_INVALID naming the field', () => {
    expect(argumentError({ id: 42 }).message).toBe('ARGUMENT_INVALID: id must be string');
    const unknown = argumentError({ id: 'abc', force: true });
    expect(unknown.message).toBe('ARGUMENT_INVALID: force is not an accepted argument');
    expect(unknown.status).toBe(400);
  });
});

describe('tool contracts', () => {
  it('refuses names outside [A-Za-z0-9_.-]{1,128}', () => {
    for (const name of ['', 'with space', 'slash/name', 'x'.repeat(129)]) {
      expect(() => toolContract(createSchemaCompiler(), 'test', definition({ name }))).toThrow(/name must be/);
    }
  });

  it('refuses a schema that is not an object or does not compile', () => {
    expect(() => toolContract(createSchemaCompiler(), 'test', definition({ inputSchema: { type: 'string' } }))).toThrow(/object/);
    expect(() =>
      toolContract(createSchemaCompiler(), 'test', definition({ inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } })),
    ).toThrow(/does not compile/);
  });

  it('finds tools by exact name or id only', async () => {
    const catalog = new Catalog();
    await catalog.addProvider({ name: 'one', kind: 'builtin', load: () => ({ tools: [definition()], skills: [], diagnostics: [] }) });
    expect(catalog.resolveTool('shipment_track').contract.id).toBe('one:shipment_track');
    expect(catalog.resolveTool('one:shipment_track').contract.name).toBe('shipment_track');
    for (const near of ['Shipment_track', 'shipment_trak', 'shipment', ' shipment_track', 'two:shipment_track']) {
      expect(() => catalog.resolveTool(near)).toThrow(expect.objectContaining({ code: 'TOOL_NOT_FOUND' }));
    }
  });
});
