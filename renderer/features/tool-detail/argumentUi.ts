/**
 * How the form draws a tool's fields beyond what the schema's types say: which string fields
 * get a multi-line box. A string field is long text, drawn as a textarea, when
 *  - its maxLength is above LONG_TEXT_MAX_LENGTH (note_add's 20,000-character body), or
 *  - it has no maxLength and its name or title says it holds text (body, content, prompt,
 *    code, message, ...; MCP servers rarely give a maxLength), or it declares a
 *    contentMediaType, or
 *  - its current value already spans lines (an input would show them run together).
 * A field with an enum, const or format stays one line: its values are short by definition.
 */
import type { UiSchema } from '@rjsf/utils';

export const LONG_TEXT_MAX_LENGTH = 500;

const TEXT_NAME = /(?:^|[_\-\s.])(body|content|contents|text|code|script|prompt|message|markdown|html|json|yaml|sql|query_text|patch|diff|template|source|notes?|instructions?)(?:$|[_\-\s.])/i;

/** Nesting deeper than this is drawn as RJSF draws it by default; real tool schemas are shallow. */
const MAX_DEPTH = 6;

type JsonSchema = Record<string, unknown>;

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isLongText(schema: JsonSchema, name: string, value?: unknown): boolean {
  const type = schema.type;
  if (type !== 'string' && !(Array.isArray(type) && type.includes('string'))) return false;
  if (schema.enum !== undefined || schema.const !== undefined || schema.format !== undefined) return false;
  if (typeof value === 'string' && value.includes('\n')) return true;
  if (typeof schema.maxLength === 'number') return schema.maxLength > LONG_TEXT_MAX_LENGTH;
  if (schema.contentMediaType !== undefined) return true;
  return TEXT_NAME.test(name) || (typeof schema.title === 'string' && TEXT_NAME.test(schema.title));
}

const rowsFor = (schema: JsonSchema) => (typeof schema.maxLength === 'number' && schema.maxLength <= 2000 ? 3 : 6);

/** The uiSchema for a tool's input schema and the current draft; undefined where RJSF's default is right. */
function fieldUi(schema: JsonSchema, name: string, value: unknown, depth: number): UiSchema | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (isLongText(schema, name, value)) return { 'ui:widget': 'textarea', 'ui:options': { rows: rowsFor(schema) } };
  if (isSchema(schema.properties)) {
    const ui: UiSchema = {};
    const values = isSchema(value) ? value : {};
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isSchema(property)) continue;
      const sub = fieldUi(property, key, values[key], depth + 1);
      if (sub) ui[key] = sub;
    }
    return Object.keys(ui).length ? ui : undefined;
  }
  if (isSchema(schema.items)) {
    // One uiSchema for every item: a multi-line value in any of them makes them all boxes.
    const items = Array.isArray(value) ? value : [];
    const sample = items.find((item) => typeof item === 'string' && item.includes('\n')) ?? items[0];
    const sub = fieldUi(schema.items, name, sample, depth + 1);
    return sub ? { items: sub } : undefined;
  }
  return undefined;
}

export function argumentUiSchema(schema: JsonSchema, draft: unknown): UiSchema {
  // The console draws its own actions (Execute, Review and run) instead of RJSF's submit button.
  return { ...fieldUi(schema, '', draft, 0), 'ui:submitButtonOptions': { norender: true } };
}
