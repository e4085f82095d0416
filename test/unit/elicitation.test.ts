/** shared/elicitation.ts: SEP-1034 defaults, the fields a form draws (SEP-1330 enums), and the check of an answer. */
import { describe, expect, it } from 'vitest';
import { applyElicitationDefaults, checkElicitationContent, elicitationFields } from '../../shared/elicitation';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    age: { type: 'integer', default: 42, minimum: 1, maximum: 120 },
    ratio: { type: 'number', default: 0.5 },
    agree: { type: 'boolean', default: false },
    email: { type: 'string', format: 'email' },
    color: { type: 'string', enum: ['red', 'green'], default: 'red' },
    hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }, { const: 'h2', title: 'Batman' }] },
    pet: { type: 'string', enum: ['p1', 'p2'], enumNames: ['Cats', 'Dogs'] },
    tools: { type: 'array', items: { enum: ['saw', 'drill'] }, default: ['saw'], maxItems: 1 },
    fish: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }] } },
    nested: { type: 'object', properties: {} },
  },
  required: ['name'],
};

describe('applyElicitationDefaults (SEP-1034)', () => {
  it('fills each field left out from its default, keeps what was given, and changes nothing in place', () => {
    const given = { name: 'Ada', age: 7 };
    const filled = applyElicitationDefaults(schema, given);
    expect(filled).toEqual({ name: 'Ada', age: 7, ratio: 0.5, agree: false, color: 'red', tools: ['saw'] });
    expect(given).toEqual({ name: 'Ada', age: 7 });
    (filled.tools as string[]).push('drill');
    expect(schema.properties.tools.default).toEqual(['saw']);
  });

  it('leaves content alone for a schema without properties, and starts from nothing when no content is given', () => {
    expect(applyElicitationDefaults(null, { a: 1 })).toEqual({ a: 1 });
    expect(applyElicitationDefaults({ type: 'object', properties: { x: { type: 'string', default: 'y' } } })).toEqual({ x: 'y' });
  });
});

describe('elicitationFields (SEP-1330)', () => {
  it('describes each field, titled and untitled choices alike, and leaves out what MCP forms do not allow', () => {
    const { fields, unsupported } = elicitationFields(schema);
    const byName = Object.fromEntries(fields.map((described) => [described.field.name, described]));
    expect(byName.name).toMatchObject({ title: 'Name', required: true, field: { kind: 'text', minLength: 2 } });
    expect(byName.age!.field).toMatchObject({ kind: 'number', integer: true, minimum: 1, maximum: 120 });
    expect(byName.hero!.field).toEqual({ name: 'hero', kind: 'select', options: [{ value: 'h1', title: 'Superman' }, { value: 'h2', title: 'Batman' }] });
    expect(byName.pet!.field).toMatchObject({ kind: 'select', options: [{ value: 'p1', title: 'Cats' }, { value: 'p2', title: 'Dogs' }] });
    expect(byName.tools!.field).toMatchObject({ kind: 'multiselect', options: [{ value: 'saw', title: 'saw' }, { value: 'drill', title: 'drill' }], maxItems: 1 });
    expect(byName.fish!.field).toMatchObject({ kind: 'multiselect', options: [{ value: 'f1', title: 'Tuna' }] });
    expect(unsupported).toEqual(['nested']);
  });
});

describe('checkElicitationContent', () => {
  it('names each field that does not fit, the required one first of all', () => {
    expect(checkElicitationContent(schema, {})).toEqual({ name: 'Name is required' });
    expect(checkElicitationContent(schema, { name: 'A', age: 2.5, email: 'nope', hero: 'h9', tools: ['saw', 'drill'] })).toEqual({
      name: 'at least 2 characters',
      age: 'must be a whole number',
      email: 'must be an email address',
      hero: 'must be one of the choices',
      tools: 'choose at most 1',
    });
    expect(checkElicitationContent(schema, applyElicitationDefaults(schema, { name: 'Ada', hero: 'h2', pet: 'p1' }))).toEqual({});
  });
});
