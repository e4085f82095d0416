/**
 * A call's arguments from the command line: `--json '{…}'` gives an object, then each
 * `--arg key=value` sets one key on it. A value is read by what the tool's input schema says the
 * key holds: for a string (or a key the schema does not name) the text as it is, so
 * `--arg query=42` stays "42"; for anything else (number, integer, boolean, array, object, null)
 * the text as JSON, so `--arg limit=5`, `--arg force=true` and `--arg tags='["a","b"]'` arrive
 * typed. Text that is not JSON is sent as it is, and the gateway's schema check names the field.
 */
import { UsageError } from '../server';

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema> };

export function parseArgumentsJson(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--json is not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('--json must be a JSON object of arguments, e.g. \'{"query":"printer"}\'');
  return value as Record<string, unknown>;
}

/** Splits `key=value` at the first `=`. */
export function splitArg(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`--arg takes key=value, got "${text}"`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** The value of one `--arg`, read as the schema's property says. */
export function coerceArg(inputSchema: unknown, key: string, text: string): unknown {
  const property = (inputSchema as JsonSchema | undefined)?.properties?.[key];
  const types = property?.type === undefined ? [] : ([] as string[]).concat(property.type);
  const takesText = types.length === 0 || types.includes('string');
  if (takesText) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
