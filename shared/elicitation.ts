/**
 * Elicitation forms (MCP `elicitation/create`, form mode): the requested schema is a flat object
 * of primitive fields (string, number, integer, boolean, and enums: single select as `enum` or
 * titled `oneOf` of `{ const, title }`, multi select as an array whose `items` give `enum` or
 * titled `anyOf`, SEP-1330; the legacy `enumNames` too). Pure, for the console's form, the
 * gateway's check of an answer, and the conformance client driver.
 */

export type ElicitationValue = string | number | boolean | string[];
export type ElicitationContent = Record<string, ElicitationValue>;

interface FieldSchema {
  type?: unknown;
  title?: unknown;
  description?: unknown;
  default?: unknown;
  enum?: unknown;
  enumNames?: unknown;
  oneOf?: unknown;
  anyOf?: unknown;
  items?: unknown;
  format?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
  minItems?: unknown;
  maxItems?: unknown;
}

/**
 * SEP-1034: the content with each field the answer leaves out filled from its schema's
 * `default`, when it has one. Returns a new object; the given content is not changed. Fields the
 * schema does not describe are kept as they are; a schema that is not an object schema leaves
 * the content as it is.
 */
export function applyElicitationDefaults(schema: unknown, content: Record<string, unknown> = {}): Record<string, unknown> {
  const filled: Record<string, unknown> = { ...content };
  const properties = propertiesOf(schema);
  for (const [name, field] of Object.entries(properties)) {
    if (filled[name] === undefined && Object.hasOwn(field, 'default') && field.default !== undefined) {
      filled[name] = Array.isArray(field.default) ? [...(field.default as unknown[])] : field.default;
    }
  }
  return filled;
}

/** One option of a select: the value sent and the words shown. */
export interface ElicitationOption {
  value: string;
  title: string;
}

/** A field as a form draws it. */
export type ElicitationField =
  | { name: string; kind: 'text'; format: 'email' | 'uri' | 'date' | 'date-time' | null; minLength: number | null; maxLength: number | null }
  | { name: string; kind: 'number'; integer: boolean; minimum: number | null; maximum: number | null }
  | { name: string; kind: 'boolean' }
  | { name: string; kind: 'select'; options: ElicitationOption[] }
  | { name: string; kind: 'multiselect'; options: ElicitationOption[]; minItems: number | null; maxItems: number | null };

export interface DescribedField {
  field: ElicitationField;
  title: string;
  description: string | null;
  required: boolean;
  default: unknown;
}

/** The requested schema's fields, in its order; a field of a kind MCP does not allow is left out (and `unsupported` names it). */
export function elicitationFields(schema: unknown): { fields: DescribedField[]; unsupported: string[] } {
  const required = new Set(Array.isArray((schema as { required?: unknown })?.required) ? ((schema as { required: unknown[] }).required.filter((name) => typeof name === 'string') as string[]) : []);
  const fields: DescribedField[] = [];
  const unsupported: string[] = [];
  for (const [name, raw] of Object.entries(propertiesOf(schema))) {
    const field = fieldOf(name, raw);
    if (!field) {
      unsupported.push(name);
      continue;
    }
    fields.push({
      field,
      title: typeof raw.title === 'string' && raw.title.trim() ? raw.title : name,
      description: typeof raw.description === 'string' && raw.description.trim() ? raw.description : null,
      required: required.has(name),
      default: raw.default,
    });
  }
  return { fields, unsupported };
}

/** What is wrong with an answer, field by field (empty: it fits the schema). */
export function checkElicitationContent(schema: unknown, content: Record<string, unknown>): Record<string, string> {
  const problems: Record<string, string> = {};
  const { fields } = elicitationFields(schema);
  for (const { field, required, title } of fields) {
    const value = content[field.name];
    if (value === undefined || value === '') {
      if (required) problems[field.name] = `${title} is required`;
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) problems[field.name] = problem;
  }
  return problems;
}

function fieldProblem(field: ElicitationField, value: unknown): string | null {
  switch (field.kind) {
    case 'text': {
      if (typeof value !== 'string') return 'must be text';
      if (field.minLength !== null && value.length < field.minLength) return `at least ${field.minLength} characters`;
      if (field.maxLength !== null && value.length > field.maxLength) return `at most ${field.maxLength} characters`;
      if (field.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(value)) return 'must be an email address';
      if (field.format === 'uri' && !/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return 'must be a URI (https://…)';
      if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'must be a date (YYYY-MM-DD)';
      return null;
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.integer && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== null && value < field.minimum) return `at least ${field.minimum}`;
      if (field.maximum !== null && value > field.maximum) return `at most ${field.maximum}`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be yes or no';
    case 'select':
      return typeof value === 'string' && field.options.some((option) => option.value === value) ? null : 'must be one of the choices';
    case 'multiselect': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && field.options.some((option) => option.value === item))) return 'must be among the choices';
      if (field.minItems !== null && value.length < field.minItems) return `choose at least ${field.minItems}`;
      if (field.maxItems !== null && value.length > field.maxItems) return `choose at most ${field.maxItems}`;
      return null;
    }
  }
}

function propertiesOf(schema: unknown): Record<string, FieldSchema> {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return {};
  return Object.fromEntries(Object.entries(properties).filter(([, field]) => typeof field === 'object' && field !== null && !Array.isArray(field))) as Record<string, FieldSchema>;
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** Titled options (`oneOf`/`anyOf` of `{ const, title }`), plain `enum` (with legacy `enumNames`), or null. */
function optionsOf(schema: FieldSchema): ElicitationOption[] | null {
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : null;
  if (titled) {
    const options = titled.flatMap((option: unknown) => {
      const { const: value, title } = (option ?? {}) as { const?: unknown; title?: unknown };
      return typeof value === 'string' ? [{ value, title: typeof title === 'string' ? title : value }] : [];
    });
    return options.length > 0 ? options : null;
  }
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.flatMap((value: unknown, index: number) => (typeof value === 'string' ? [{ value, title: typeof names[index] === 'string' ? (names[index] as string) : value }] : []));
  }
  return null;
}

function fieldOf(name: string, schema: FieldSchema): ElicitationField | null {
  if (schema.type === 'array') {
    const options = optionsOf((schema.items ?? {}) as FieldSchema);
    return options ? { name, kind: 'multiselect', options, minItems: num(schema.minItems), maxItems: num(schema.maxItems) } : null;
  }
  const options = optionsOf(schema);
  if (options && (schema.type === 'string' || schema.type === undefined)) return { name, kind: 'select', options };
  if (schema.type === 'string') {
    const format = schema.format === 'email' || schema.format === 'uri' || schema.format === 'date' || schema.format === 'date-time' ? schema.format : null;
    return { name, kind: 'text', format, minLength: num(schema.minLength), maxLength: num(schema.maxLength) };
  }
  if (schema.type === 'number' || schema.type === 'integer') return { name, kind: 'number', integer: schema.type === 'integer', minimum: num(schema.minimum), maximum: num(schema.maximum) };
  if (schema.type === 'boolean') return { name, kind: 'boolean' };
  return null;
}
