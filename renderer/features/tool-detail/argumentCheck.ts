/**
 * The console's check of a tool's arguments against its input schema, before the call leaves:
 * the same verdicts as the gateway's check (electron/catalog/contract.ts), so Execute and
 * Confirm never send a call the page already knows will be refused, and each failure is placed
 * on its field in words an operator reads.
 *
 * The gateway compiles schemas with Ajv, which generates code, and the console's CSP forbids
 * that; here @cfworker/json-schema interprets the schema instead (the validator the MCP SDK
 * offers for the same reason). The choices that are Capstan's, not the specification's, come
 * from shared/argumentRules.ts, as the gateway's do: the dialect a `$schema` selects and the
 * format checkers (ajv-formats' own functions, installed into cfworker's format table below).
 * test/unit/argument-check.test.ts holds the two to the same verdicts.
 *
 * Patterns are the exception: cfworker runs them with `new RegExp`, which backtracks, so the page
 * decides them with RE2 as the gateway does and hands cfworker only literal stand-ins
 * (literalPatterns.ts).
 *
 * The gateway stays the boundary: a schema this cannot read (an unresolvable `$ref`, say) is
 * not checked here, and the call goes to the gateway to be judged.
 */
import { dereference, format as cfworkerFormats, validate, type OutputUnit, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import {
  fieldName,
  MAX_SCHEMA_DEPTH,
  nestedDeeperThan,
  NOT_ACCEPTED,
  schemaDialect,
  STRING_FORMATS,
  unescapePointer,
  type ArgumentErrorCode,
  type ArgumentProblem,
  type SchemaDialect,
} from '../../../shared/argumentRules';
import { patternMatchers, stringsIn, withLiteralPatterns } from './literalPatterns';

// cfworker's format table is module state its validator reads on every call: swapping its
// entries for the gateway's makes `format` mean here exactly what it means there.
for (const name of Object.keys(cfworkerFormats)) delete cfworkerFormats[name];
Object.assign(cfworkerFormats, STRING_FORMATS);

const CFWORKER_DRAFT: Record<SchemaDialect, SchemaDraft> = { 'draft-07': '7', '2019-09': '2019-09', '2020-12': '2020-12' };

export interface ArgumentChecker {
  /** Every reason the arguments would be refused; empty when the gateway would accept them. */
  check(args: unknown): ArgumentProblem[];
}

/** Schemas are the catalog's objects, stable between catalog reads: one checker each. */
const checkers = new WeakMap<object, ArgumentChecker | null>();

/** The checker for a tool's input schema, or null when this page cannot read the schema. */
export function argumentChecker(schema: Record<string, unknown>): ArgumentChecker | null {
  let checker = checkers.get(schema);
  if (checker === undefined) {
    checker = makeChecker(schema);
    checkers.set(schema, checker);
  }
  return checker;
}

/** The problems with these arguments, or none when the schema cannot be checked here. */
export const checkArguments = (schema: Record<string, unknown>, args: unknown): ArgumentProblem[] => argumentChecker(schema)?.check(args) ?? [];

function makeChecker(inputSchema: Record<string, unknown>): ArgumentChecker | null {
  const declared = typeof inputSchema.$schema === 'string' ? inputSchema.$schema : undefined;
  const dialect = schemaDialect(declared);
  if (!dialect) return null;
  // Too deep for the gateway to take (it made the tool a diagnostic), and for this page to walk.
  if (nestedDeeperThan(inputSchema, MAX_SCHEMA_DEPTH)) return null;
  // Patterns are RE2's to decide, never cfworker's `new RegExp` (literalPatterns.ts).
  const matchers = patternMatchers(inputSchema);
  if (!matchers) return null;
  const draft = CFWORKER_DRAFT[dialect];
  // A copy: cfworker annotates the schema objects it dereferences, and these belong to the catalog.
  const prepare = (schema: Record<string, unknown>) => {
    const copy = structuredClone(schema) as Schema;
    return { schema: copy, lookup: dereference(copy) };
  };
  let fixed: ReturnType<typeof prepare> | undefined;
  try {
    fixed = prepare(inputSchema);
  } catch {
    return null;
  }
  return {
    check(args) {
      try {
        // With patterns, a schema whose patterns are the literal strings of these arguments they match.
        const literal = matchers.size > 0 ? withLiteralPatterns(inputSchema, matchers, stringsIn(args)) : undefined;
        const { schema, lookup } = literal ? prepare(literal.schema) : fixed;
        // Not short-circuited: every failure, so each field shows its own.
        const result = validate(args, schema, draft, lookup, false);
        return result.valid ? [] : toProblems(result.errors, schema, lookup, literal?.originals);
      } catch {
        // An unresolvable $ref, a value JSON cannot hold: not this page's to judge.
        return [];
      }
    },
  };
}

/** Keywords whose failure only says a part below them failed; the parts' own failures follow them. */
const STRUCTURAL = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  '$ref',
  '$recursiveRef',
  '$dynamicRef',
  'allOf',
  'if',
  'dependentSchemas',
]);

/** Keywords that judge alternatives: their own failure is the one to show, not each alternative's. */
const ALTERNATIVES = new Set(['anyOf', 'oneOf', 'propertyNames']);

/**
 * cfworker's output units (the failing keyword, where in the schema, where in the value) as
 * problems on fields. The units come parent first, then the failures below it.
 */
function toProblems(units: readonly OutputUnit[], root: Schema, lookup: Record<string, Schema | boolean>, originals?: ReadonlyMap<string, string>): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  const seen = new Set<string>();
  const hidden: string[] = [];
  let previous: OutputUnit | undefined;
  let previousHidden = false;
  const add = (code: ArgumentErrorCode, path: string[], message: string) => {
    const key = `${path.join('\u0000')}\u0001${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ code, path, field: fieldName(path), message });
  };

  for (const unit of units) {
    const after: OutputUnit | undefined = previous;
    const afterHidden: boolean = previousHidden;
    previous = unit;
    previousHidden = false;
    if (hidden.some((location) => unit.keywordLocation.startsWith(`${location}/`))) {
      previousHidden = true;
      continue;
    }
    const path = pointerPath(unit.instanceLocation);
    const found = keywordValue(root, lookup, unit.keywordLocation);
    // A pattern is named as the provider wrote it, not as this page rewrote it.
    const value = typeof found === 'string' ? (originals?.get(found) ?? found) : found;
    const { keyword } = unit;

    if (keyword === 'false') {
      // A property refused by `additionalProperties: false` is reported once, by that keyword.
      if (afterHidden || after?.keyword === 'additionalProperties' || after?.keyword === 'unevaluatedProperties') {
        previousHidden = afterHidden;
        continue;
      }
      add('ARGUMENT_INVALID', path, 'is not allowed');
      continue;
    }
    if (keyword === 'additionalProperties' || keyword === 'unevaluatedProperties') {
      if (value === false) add('ARGUMENT_INVALID', [...path, quoted(unit.error) ?? ''], NOT_ACCEPTED);
      continue;
    }
    if (STRUCTURAL.has(keyword) || (keyword === 'dependencies' && !/does not have/.test(unit.error))) continue;
    if (ALTERNATIVES.has(keyword)) hidden.push(unit.keywordLocation);

    if (keyword === 'required') {
      add('ARGUMENT_MISSING', [...path, quoted(unit.error) ?? ''], 'is required');
      continue;
    }
    if (keyword === 'dependentRequired' || keyword === 'dependencies') {
      const [present, absent] = quotedAll(unit.error);
      add('ARGUMENT_INVALID', [...path, absent ?? ''], `is required when ${present} is given`);
      continue;
    }
    if (keyword === 'propertyNames') {
      add('ARGUMENT_INVALID', [...path, quoted(unit.error) ?? ''], `${NOT_ACCEPTED}: the name is not allowed`);
      continue;
    }
    add('ARGUMENT_INVALID', path, describe(unit, value));
  }
  return problems;
}

function describe(unit: OutputUnit, value: unknown): string {
  const n = typeof value === 'number' ? value : Number(/(-?[\d.e+]+)\)?\.?$/.exec(unit.error)?.[1]);
  switch (unit.keyword) {
    case 'type':
      return `must be ${orList((Array.isArray(value) ? value : [value]).map((type) => TYPE_NOUNS[String(type)] ?? String(type)))}`;
    case 'enum':
      return Array.isArray(value) ? `must be ${value.length === 1 ? shown(value[0]) : `one of ${orList(value.map(shown))}`}` : 'is not one of the allowed values';
    case 'const':
      return value === undefined ? 'is not the allowed value' : `must be ${shown(value)}`;
    case 'minLength':
      return `must be at least ${n} ${n === 1 ? 'character' : 'characters'}`;
    case 'maxLength':
      return `must be at most ${n} ${n === 1 ? 'character' : 'characters'}`;
    case 'pattern':
      return typeof value === 'string' ? `must match the pattern ${value}` : 'does not match the required pattern';
    case 'format':
      return typeof value === 'string' ? (FORMAT_HINTS[value] ?? `must be a valid ${value}`) : 'is not in the required format';
    case 'minimum':
      return `must be at least ${n}`;
    case 'maximum':
      return `must be at most ${n}`;
    case 'exclusiveMinimum':
      return `must be greater than ${n}`;
    case 'exclusiveMaximum':
      return `must be less than ${n}`;
    case 'multipleOf':
      return `must be a multiple of ${n}`;
    case 'minItems':
      return `must have at least ${n} ${n === 1 ? 'item' : 'items'}`;
    case 'maxItems':
      return `must have at most ${n} ${n === 1 ? 'item' : 'items'}`;
    case 'uniqueItems': {
      const [, first, second] = /(\d+) and (\d+)/.exec(unit.error) ?? [];
      return first === undefined ? 'must not repeat an item' : `must not repeat an item (items ${Number(first) + 1} and ${Number(second) + 1} are the same)`;
    }
    case 'minProperties':
      return `must have at least ${n} ${n === 1 ? 'property' : 'properties'}`;
    case 'maxProperties':
      return `must have at most ${n} ${n === 1 ? 'property' : 'properties'}`;
    case 'contains':
      return 'must hold at least one item of the required kind';
    case 'minContains':
      return `must hold at least ${n} items of the required kind`;
    case 'maxContains':
      return `must hold at most ${n} items of the required kind`;
    case 'not':
      return 'is a value the schema excludes';
    case 'anyOf':
      return 'does not match any of the allowed forms';
    case 'oneOf':
      return /\(0 matches\)/.test(unit.error) ? 'does not match any of the allowed forms' : 'matches more than one of the allowed forms';
    default:
      return 'is invalid';
  }
}

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** The formats tools use most, said as what to type; others read "must be a valid <format>". */
const FORMAT_HINTS: Record<string, string> = {
  uri: 'must be a full URI, such as https://example.com/path',
  url: 'must be a full http(s) or ftp URL',
  'uri-reference': 'must be a URI or a relative reference',
  date: 'must be a date as YYYY-MM-DD',
  time: 'must be a time with its offset, such as 09:15:00Z',
  'date-time': 'must be a date and time with its offset, such as 2026-11-30T09:15:00Z',
  duration: 'must be an ISO 8601 duration, such as PT30S',
  email: 'must be an email address',
  hostname: 'must be a host name',
  ipv4: 'must be an IPv4 address',
  ipv6: 'must be an IPv6 address',
  uuid: 'must be a UUID',
  regex: 'must be a valid regular expression',
};

const shown = (value: unknown) => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value));

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** The first "quoted" name in a cfworker message: the property it is about. */
const quoted = (message: string): string | undefined => quotedAll(message)[0];
const quotedAll = (message: string): string[] => [...message.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);

/** cfworker's locations are `#` and URI-encoded pointer segments (`#/tags/0`). */
function pointerPath(location: string): string[] {
  const pointer = location.replace(/^#/, '');
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => unescapePointer(decodeSegment(segment)));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The failing keyword's value, found by following its schema location (through `$ref`s). */
function keywordValue(root: Schema, lookup: Record<string, Schema | boolean>, keywordLocation: string): unknown {
  let node: unknown = root;
  for (const segment of pointerPath(keywordLocation)) {
    if (typeof node !== 'object' || node === null) return undefined;
    const schema = node as Schema & Record<string, unknown>;
    if (segment === '$ref') node = lookup[schema.__absolute_ref__ ?? schema.$ref ?? ''];
    else if (segment === '$recursiveRef') node = lookup[schema.__absolute_recursive_ref__ ?? ''];
    else node = schema[segment];
  }
  return node;
}
