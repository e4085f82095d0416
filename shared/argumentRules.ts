/**
 * The rules a tool's arguments are checked by, in one place for the two checkers that apply
 * them: the gateway's (Ajv, electron/catalog/contract.ts), which decides, and the console's
 * (renderer/features/tool-detail/argumentCheck.ts), which tells the operator before a call
 * leaves. They cannot be one engine: Ajv compiles schemas to code with `new Function`, and the
 * console's CSP (`script-src 'self'`, shared/security.ts) forbids that, so the page interprets
 * the schema instead. What they share is everything that is a choice rather than the JSON
 * Schema specification itself: which dialect a schema is read in, which formats are checked
 * and how, and how a failure is named (field and error code).
 *
 * No Node APIs here: the renderer bundles this file.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { RE2JS } from 're2js';
import type { FormatName } from 'ajv-formats';

/** The dialects Capstan compiles; draft-04 and -06 are read as draft-07, their nearest. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

/**
 * The dialect a schema's `$schema` names. No `$schema` means 2020-12, the MCP specification's
 * default (and the dialect of Capstan's own tools); undefined means one Capstan does not read.
 */
export function schemaDialect(declared: string | undefined): SchemaDialect | undefined {
  if (declared === undefined || declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  if (/draft-0[467]\b/.test(declared)) return 'draft-07';
  return undefined;
}

export const UNREAD_DIALECT = (declared: string | undefined) =>
  `$schema "${declared}" is not a dialect Capstan reads (draft-04, -06, -07, 2019-09, 2020-12)`;

/**
 * ajv-formats' formats Capstan checks: its "full" set but `url`, which is no JSON Schema
 * format (`uri` is) and whose regex takes time quadratic in the value (40,000 characters held
 * the event loop for 0.9 s; a 1 MB body, minutes). The others are fixed regexes and functions
 * of ajv-formats' own, linear on any value; `regex` only parses the value with `new RegExp`,
 * it never runs it.
 */
export const CHECKED_FORMATS = (Object.keys(fullFormats) as FormatName[]).filter((name) => name !== 'url');

/**
 * The string formats checked, and how: the very functions the gateway registers with
 * `addFormats(ajv, CHECKED_FORMATS)`. A format not named here is not checked (JSON Schema's own
 * rule for unknown formats; Capstan's builtin schemas may not use one at all, strict mode
 * refuses it). ajv-formats' number formats (int32, float, ...) are left to the gateway.
 */
export const STRING_FORMATS: Readonly<Record<string, (value: string) => boolean>> = Object.fromEntries(
  Object.entries(fullFormats).flatMap(([name, format]) => {
    if (!(CHECKED_FORMATS as string[]).includes(name)) return [];
    if (format === true) return [[name, () => true]];
    if (typeof format === 'string') return [];
    const definition = format instanceof RegExp || typeof format === 'function' ? { validate: format } : format;
    if ('type' in definition && definition.type !== undefined && definition.type !== 'string') return [];
    if ('async' in definition && definition.async) return [];
    const { validate } = definition;
    if (validate instanceof RegExp) return [[name, (value: string) => validate.test(value)]];
    if (typeof validate === 'function') return [[name, (value: string) => (validate as (value: string) => unknown)(value) === true]];
    return [];
  }),
);

/** The error codes an argument failure carries (shared/errors.ts documents them). */
export type ArgumentErrorCode = 'ARGUMENT_MISSING' | 'ARGUMENT_INVALID';

/** One reason the arguments would be refused, placed on the value at fault. */
export interface ArgumentProblem {
  code: ArgumentErrorCode;
  /** Where the value at fault is (or, for a missing one, would be): property names and array indexes. */
  path: readonly string[];
  /** The gateway's name for it: the path joined with dots, `(arguments)` for the whole object. */
  field: string;
  /** What is wrong, without the field's name: "is required", "must be at most 200 characters". */
  message: string;
}

export const fieldName = (path: readonly string[]): string => path.join('.') || '(arguments)';

/** A JSON Pointer segment back to the name it encodes (RFC 6901). */
export const unescapePointer = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** The wording both checkers use for a property the schema does not accept. */
export const NOT_ACCEPTED = 'is not an accepted argument';

// ---- patterns: RE2, never a backtracking engine ------------------------------------------

/**
 * A pattern `pattern`, `patternProperties` or a format checks a string with. JSON Schema's
 * patterns are ECMA-262 regular expressions, and JavaScript's engine backtracks: a provider's
 * `^(a+)+$` given 30 `a`s and a `!` holds the event loop for seconds, twice as long per
 * character. Both checkers therefore evaluate every schema pattern with RE2 (the re2js port:
 * linear in the input, whatever the pattern), through this one function, so they keep the
 * same verdicts.
 */
export interface PatternMatcher {
  /** Whether the pattern matches somewhere in the value (RegExp#test: unanchored). */
  test(value: string): boolean;
  /** `/pattern/u`: distinct patterns give distinct strings (Ajv keys its compiled patterns by it). */
  toString(): string;
}

/** A pattern RE2 cannot take (a backreference, a lookaround, a repeat count over 1000, ...), or not a regular expression at all. */
export class UnsupportedPattern extends Error {}

/**
 * The linear-time matcher for an ECMA-262 pattern (read with the `u` flag, as both checkers
 * always did), or UnsupportedPattern naming why RE2 cannot take it: the gateway makes that tool
 * a diagnostic when it loads (electron/catalog/contract.ts), so it is never called.
 *
 * What RE2 reads differently from JavaScript is rewritten first: `\s` and `\S` (JavaScript's
 * Unicode white space, RE2's ASCII only), `.` (JavaScript's stops at four line terminators, RE2's
 * at \n only), `\uD83D\uDE00` surrogate pairs and `[\b]`; re2js's translateRegExp does the rest
 * (`\u` escapes, named groups, `[]` and `[^]`). Backreferences and lookarounds are refused by
 * name rather than left to translateRegExp, which would read `\k<name>` as the letter k.
 */
export function patternMatcher(pattern: string): PatternMatcher {
  try {
    // Parsed only, never run: the pattern must be one JavaScript reads, as JSON Schema says.
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new UnsupportedPattern(`pattern ${JSON.stringify(pattern)} is not a regular expression: ${(error as Error).message}`);
  }
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(toRe2Syntax(pattern)));
  } catch (error) {
    if (error instanceof UnsupportedPattern) throw error;
    throw new UnsupportedPattern(`pattern ${JSON.stringify(pattern)} cannot be evaluated in linear time (RE2): ${(error as Error).message}`);
  }
  const shown = `/${pattern}/u`;
  return { test: (value) => re2.test(value), toString: () => shown };
}

/** JavaScript's `\s` (ECMA-262 WhiteSpace and LineTerminator), as the inside of an RE2 class. */
const JS_SPACE = String.raw`\t\n\x0B\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`;
/** Its complement, for a `\S` inside a class (an RE2 class cannot hold a negated one). */
const JS_NOT_SPACE = String.raw`\x00-\x08\x0E-\x1F\x21-\x9F\x{A1}-\x{167F}\x{1681}-\x{1FFF}\x{200B}-\x{2027}\x{202A}-\x{202E}\x{2030}-\x{205E}\x{2060}-\x{2FFF}\x{3001}-\x{FEFE}\x{FF00}-\x{10FFFF}`;
const JS_DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;
const SURROGATE_PAIR = /^\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/i;

/** Rewrites what RE2 would read differently (see patternMatcher); the pattern is valid with `u`. */
function toRe2Syntax(pattern: string): string {
  const refuse = (what: string) => new UnsupportedPattern(`pattern ${JSON.stringify(pattern)} uses ${what}, which RE2 cannot evaluate in linear time`);
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      const pair = SURROGATE_PAIR.exec(pattern.slice(i, i + 12));
      if (pair) {
        const high = parseInt(pair[1]!, 16);
        const low = parseInt(pair[2]!, 16);
        out += `\\x{${(((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000).toString(16)}}`;
        i += 11;
      } else if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S') out += inClass ? JS_NOT_SPACE : `[^${JS_SPACE}]`;
      else if (next === 'b' && inClass) out += String.raw`\x08`;
      else if (/[1-9]/.test(next) || next === 'k') throw refuse('a backreference');
      else {
        out += ch + next;
        i += 1;
        continue;
      }
      if (!pair) i += 1;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      out += ch;
      // `[]` and `[^]` (JavaScript's empty and any-character classes) end where they start.
      const rest = pattern.slice(i + 1);
      const empty = rest.startsWith(']') ? 1 : rest.startsWith('^]') ? 2 : 0;
      if (empty) {
        out += rest.slice(0, empty);
        i += empty;
        inClass = false;
      } else if (rest.startsWith('^')) {
        out += '^';
        i += 1;
      }
      continue;
    }
    if (ch === '(' && /^\?<?[=!]/.test(pattern.slice(i + 1, i + 4))) throw refuse('a lookaround');
    out += ch === '.' ? JS_DOT : ch;
  }
  return out;
}

// ---- depth --------------------------------------------------------------------------------

/**
 * How deep a tool's schema may nest, in JSON levels (objects and arrays). Compiling and
 * checking a schema recurse once per level, so a provider's 500-level schema made every call
 * fail with a RangeError; the gateway refuses such a contract when it loads (a diagnostic).
 * Real schemas stay far below.
 */
export const MAX_SCHEMA_DEPTH = 100;

/** Whether a JSON value nests deeper than `max` levels; iterative, so any depth is measured safely. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
