/**
 * The manifests nearly every SKILL.md has, read without the YAML parser: one `key: value` per
 * line, each value a plain word run, a double-quoted string without escapes, or a one-line list
 * of such items (`tags: [a, b]`). Anything else (comments, indentation, block scalars, escapes,
 * anything YAML would read as a number, boolean or null, a key twice) is not this shape, and the
 * caller parses it as YAML, limits and diagnostics and all.
 *
 * Why: YAML parsing was a sixth of loading 10,000 skills (`node --cpu-prof`), for text this
 * simple. What this returns is what `yaml` makes of the same text, a property test's promise
 * (test/fuzz/plainManifest.fuzz.test.ts), so a skill reads the same either way.
 */

/** A field as read, with the line of its key counted from the manifest's first line (0). */
export interface PlainManifest {
  fields: Record<string, string | string[]>;
  lineOf: ReadonlyMap<string, number>;
}

/** More lines than a manifest needs go to YAML, whose limits apply to them. */
const MAX_LINES = 64;
const KEY = /^([A-Za-z][A-Za-z0-9_-]*):(?: +(.*))?$/;
/** Characters YAML refuses or reads specially anywhere (controls, a byte-order mark, Unicode line breaks); `\r` only ends a line. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const SPECIAL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]|\r(?!\n)/;
/** Starts nothing YAML reads specially (indicators, quotes, a space), and holds no `: ` or ` #`. */
const PLAIN = /^[^\s\-?:,[\]{}#&*!|>'"%@`](?:[^:#]|:(?=\S)|(?<=\S)#)*$/;
/** What the YAML 1.2 core schema (yaml's default) reads as null, a boolean or a number; the first character of anything numeric. */
const TYPED = /^(?:~|null|true|false|\.inf|\.nan)$|^[-+.0-9]/i;
const QUOTED = /^"([^"\\]*)"$/;
/** A flow list's item: a plain word run with none of the flow indicators, or a quoted string as above. */
const FLOW_PLAIN = /^[^\s\-?:,[\]{}#&*!|>'"%@`](?:[^:#,[\]{}]|:(?=[^\s,[\]{}])|(?<=\S)#)*$/;

export function readPlainManifest(text: string): PlainManifest | undefined {
  if (SPECIAL.test(text)) return undefined;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0 || lines.length > MAX_LINES) return undefined;
  const fields: Record<string, string | string[]> = {};
  const lineOf = new Map<string, number>();
  for (const [index, line] of lines.entries()) {
    const match = KEY.exec(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (!match || lineOf.has(match[1]!) || match[1] === '__proto__' || TYPED.test(match[1]!)) return undefined;
    const value = readValue((match[2] ?? '').trimEnd());
    if (value === undefined) return undefined;
    fields[match[1]!] = value;
    lineOf.set(match[1]!, index);
  }
  return { fields, lineOf };
}

function readValue(value: string): string | string[] | undefined {
  if (value === '') return undefined; // YAML reads an empty value as null
  const quoted = QUOTED.exec(value);
  if (quoted) return quoted[1]!;
  if (value.startsWith('[')) {
    if (!value.endsWith(']')) return undefined;
    const inner = value.slice(1, -1).trim();
    if (inner === '') return [];
    const items: string[] = [];
    for (const raw of inner.split(',')) {
      const item = raw.trim();
      const quotedItem = QUOTED.exec(item);
      if (quotedItem) items.push(quotedItem[1]!);
      else if (FLOW_PLAIN.test(item) && !TYPED.test(item)) items.push(item);
      else return undefined;
    }
    return items;
  }
  return PLAIN.test(value) && !TYPED.test(value) ? value : undefined;
}
