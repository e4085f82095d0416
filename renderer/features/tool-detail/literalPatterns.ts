/**
 * Schema patterns the page can hand to code that runs them with `new RegExp` (@cfworker/json-schema
 * for the argument check, RJSF for `patternProperties`): JavaScript's engine backtracks, and a
 * provider's `^(a+)+$` would freeze the operator's tab while they type.
 *
 * Neither library takes another regex engine, but both only ever test the strings they are
 * given: the values and property names of the arguments (and, for RJSF, the schema's own
 * property names). So each pattern is decided here with RE2 (shared/argumentRules.ts
 * patternMatcher, the gateway's own matcher), for exactly those strings, and replaced by the
 * literal alternation of the ones it matches: `^(?:ab|abc)$`, which JavaScript matches in time
 * linear in its length. The libraries then give the verdicts the gateway gives, without ever
 * running the provider's pattern.
 */
import { patternMatcher, type PatternMatcher } from '../../../shared/argumentRules';

/** Keywords whose values are data, not schemas: left as they are. */
const DATA = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names (not keywords) to schemas. */
const NAMED = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

/** Every pattern a schema holds (`pattern` values, `patternProperties` names), found where a validator could reach them. */
export function schemaPatterns(schema: unknown): Set<string> {
  const found = new Set<string>();
  rewrite(schema, (pattern) => (found.add(pattern), pattern), false);
  return found;
}

/**
 * The schema RJSF renders: its `patternProperties` names (which RJSF tests on the schema's
 * property names and the draft's) as literal alternations; `pattern` values stay, since RJSF
 * leaves checking to the page (rjsfValidator.ts). The schema itself when it has no
 * `patternProperties`, the common case, so the form keeps one schema object.
 */
export function formSchema(schema: Record<string, unknown>, draft: unknown): Record<string, unknown> {
  const names = new Set<string>();
  rewrite(schema, (pattern) => pattern, false, names);
  if (names.size === 0) return schema;
  // A pattern RE2 cannot take (the gateway refuses the tool) matches nothing here.
  const matchers = patternMatchers(schema) ?? new Map([...names].map((name) => [name, { test: () => false, toString: () => name }]));
  return withLiteralPatterns(schema, matchers, stringsIn(draft, propertyNamesIn(schema)), { only: 'patternProperties' }).schema;
}

/** The matchers for a schema's patterns, or null when RE2 cannot take one (the gateway made that tool a diagnostic). */
export function patternMatchers(schema: unknown): Map<string, PatternMatcher> | null {
  const matchers = new Map<string, PatternMatcher>();
  try {
    for (const pattern of schemaPatterns(schema)) matchers.set(pattern, patternMatcher(pattern));
  } catch {
    return null;
  }
  return matchers;
}

export interface LiteralSchema {
  schema: Record<string, unknown>;
  /** The provider's pattern each replacement stands for, to name it in a message. */
  originals: Map<string, string>;
}

/**
 * A copy of the schema whose patterns (all of them, or with `only: 'patternProperties'` those
 * alone) are the literal alternations of the given strings each one matches. Each replacement
 * ends with a never-matching `|[]<n>`, so two patterns that match the same strings stay two
 * distinct `patternProperties` names.
 */
export function withLiteralPatterns(
  schema: Record<string, unknown>,
  matchers: Map<string, PatternMatcher>,
  strings: ReadonlySet<string>,
  { only }: { only?: 'patternProperties' } = {},
): LiteralSchema {
  const originals = new Map<string, string>();
  const replace = (pattern: string) => {
    const matcher = matchers.get(pattern);
    if (!matcher) return pattern;
    const matched = [...strings].filter((value) => matcher.test(value)).map(escapeLiteral);
    const literal = `^(?:${matched.length ? matched.join('|') : '[]'})$|[]${originals.size}`;
    originals.set(literal, pattern);
    return literal;
  };
  return { schema: rewrite(schema, replace, only === 'patternProperties') as Record<string, unknown>, originals };
}

/** Every string in a JSON value, values and property names alike: all a validator can test a pattern on. */
export function stringsIn(value: unknown, into: Set<string> = new Set()): Set<string> {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') into.add(node);
    else if (Array.isArray(node)) stack.push(...node);
    else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        into.add(key);
        stack.push(child);
      }
    }
  }
  return into;
}

/** The names a schema gives its properties (`properties` maps, anywhere): RJSF tests `patternProperties` on them. */
export function propertyNamesIn(schema: unknown, into: Set<string> = new Set()): Set<string> {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (DATA.has(key)) continue;
      if (key === 'properties' && typeof child === 'object' && child !== null) for (const name of Object.keys(child)) into.add(name);
      stack.push(child);
    }
  }
  return into;
}

/** A string as a `u`-mode pattern matching exactly it. */
const escapeLiteral = (value: string): string => value.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

function rewrite(node: unknown, replace: (pattern: string) => string, keysOnly: boolean, patternNames?: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, replace, keysOnly, patternNames));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DATA.has(key)) define(out, key, value);
    else if (key === 'pattern' && typeof value === 'string') define(out, key, keysOnly ? value : replace(value));
    else if ((key === 'patternProperties' || NAMED.has(key)) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const named: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value)) {
        if (key === 'patternProperties') patternNames?.add(name);
        define(named, key === 'patternProperties' ? replace(name) : name, rewrite(child, replace, keysOnly, patternNames));
      }
      define(out, key, named);
    } else define(out, key, rewrite(value, replace, keysOnly, patternNames));
  }
  return out;
}

/** An own property, even one named `__proto__` (a property name a schema may use). */
const define = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
