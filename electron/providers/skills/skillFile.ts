/**
 * Reads one SKILL.md: YAML frontmatter between `---` fences, then the body. Hashes are taken over
 * the exact bytes that were parsed, so activation can tell whether the file changed since.
 * Skill files are untrusted input: text must be valid Unicode, and the YAML is parsed within
 * limits, so a hostile file is a diagnostic rather than a stall or a crash.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { Composer, isMap, isScalar, LineCounter, Parser, YAMLParseError, type CST, type Document } from 'yaml';
import { z } from 'zod';
import { CAPABILITY_NAME_PATTERN } from '../../../shared/capability';
import type { SkillBody, SkillSource } from '../../catalog/provider';
import { readPlainManifest as readPlain } from './plainManifest';

export const SKILL_FILE = 'SKILL.md';

/**
 * A manifest is a few fields; YAML parsing of hostile text costs about 10 ms per KiB (many keys,
 * deep flow nesting, thousands of errors), so 8 KiB keeps one file's parse near 0.1 s.
 */
export const MAX_FRONTMATTER_BYTES = 8 * 1024;
/** Alias expansions allowed in the manifest; past it `yaml` stops with an error (a billion-laughs file). */
export const MAX_ALIAS_COUNT = 100;
/**
 * Collections nested in collections, the top mapping counting as one. Composing a YAML tree
 * recurses once per level: 1000 levels fit in 2 KiB (`[[[…`, `- - - …`) and 3000 overflowed the
 * stack. A manifest needs two or three.
 */
export const MAX_FRONTMATTER_DEPTH = 32;
/** Values (keys, items, scalars, aliases) in a manifest: checking keys for duplicates grows with their square. */
export const MAX_FRONTMATTER_NODES = 2000;
/** Anchors and tags in a manifest: thousands of them on one node cost `yaml` 0.2 s of error reports. */
export const MAX_FRONTMATTER_PROPS = 100;

export interface SkillFileProblem {
  line: number | null;
  /** The skill's name, when the file got far enough to tell it. */
  capability: string | null;
  reason: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const stringList = z.union([
  z.array(z.string().min(1)),
  // `allowed-tools: Read Grep` and `tags: a, b` are common shorthand.
  z.string().transform((text) => text.split(/[\s,]+/).filter(Boolean)),
]);

const Frontmatter = z.looseObject({
  name: z.string().regex(CAPABILITY_NAME_PATTERN, 'must be 1-128 of [A-Za-z0-9_.-]').optional(),
  id: z.string().regex(CAPABILITY_NAME_PATTERN, 'must be 1-128 of [A-Za-z0-9_.-]').optional(),
  title: z.string().optional(),
  description: z.string({ error: 'is required (a string)' }).trim().min(1, 'must not be empty'),
  'disable-model-invocation': z.boolean({ error: 'must be true or false' }).optional(),
  tags: stringList.optional(),
  'argument-hint': z.string().optional(),
  'allowed-tools': stringList.optional(),
});

interface Split {
  manifest: Buffer;
  body: Buffer;
}

/** Splits at the frontmatter fences, on bytes; null when the file has no frontmatter. */
function split(bytes: Buffer): Split | null {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const opening = /^---[ \t]*\r?\n/.exec(bytes.subarray(bom, bom + 8).toString('latin1'));
  if (!opening) return null;
  const start = bom + opening[0].length;
  const text = bytes.toString('latin1'); // one char per byte, so indices are byte offsets
  const closing = /^---[ \t]*(\r?\n|$)/m;
  closing.lastIndex = 0;
  const rest = text.slice(start);
  const match = closing.exec(rest);
  if (!match) return null;
  const end = start + match.index;
  return { manifest: bytes.subarray(start, end), body: bytes.subarray(end + match[0].length) };
}

/**
 * Checks the frontmatter's shape against the limits above on the parser's token tree, before the
 * (recursive) composition into a document: an explicit stack, so any depth is measured safely.
 * Returns the first bound passed and the offset where, or null.
 */
function beyondBounds(tokens: readonly CST.Token[]): { reason: string; offset: number } | null {
  let nodes = 0;
  let props = 0;
  const pending: { token: CST.Token; depth: number }[] = [];
  const countProps = (tokens: readonly CST.Token[] | undefined) => {
    for (const token of tokens ?? []) if (token.type === 'anchor' || token.type === 'tag') props += 1;
  };
  for (const token of tokens) pending.push({ token, depth: 0 });
  while (pending.length > 0) {
    const { token, depth } = pending.pop()!;
    if (token.type === 'document') {
      countProps(token.start);
      if (token.value) pending.push({ token: token.value, depth });
      continue;
    }
    if (token.type === 'block-scalar') countProps(token.props);
    if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      nodes += 1;
      const inner = depth + 1;
      if (inner > MAX_FRONTMATTER_DEPTH) {
        return { reason: `the frontmatter nests collections deeper than the ${MAX_FRONTMATTER_DEPTH}-level limit for a manifest`, offset: token.offset };
      }
      for (const item of token.items) {
        countProps(item.start);
        countProps(item.sep);
        if (item.key) pending.push({ token: item.key, depth: inner });
        if (item.value) pending.push({ token: item.value, depth: inner });
      }
      if (token.type === 'flow-collection') countProps(token.end);
    } else if (token.type === 'block-scalar' || token.type === 'alias' || token.type.endsWith('scalar')) {
      nodes += 1;
      if ('end' in token) countProps(token.end);
    }
    if (nodes > MAX_FRONTMATTER_NODES) return { reason: `the frontmatter holds more values than the ${MAX_FRONTMATTER_NODES}-value limit for a manifest`, offset: token.offset };
    if (props > MAX_FRONTMATTER_PROPS) return { reason: `the frontmatter holds more anchors and tags than the ${MAX_FRONTMATTER_PROPS}-property limit for a manifest`, offset: token.offset };
  }
  return null;
}

/**
 * `parseDocument` from tokens already parsed, without its pretty errors: quoting each of 1,600
 * errors (8 KiB of tab-indented lines) with its context took 0.2 s; the diagnostic has the line.
 */
function composeDocument(tokens: readonly CST.Token[], length: number): Document.Parsed {
  let document: Document.Parsed | undefined;
  for (const next of new Composer({ uniqueKeys: true }).compose(tokens, true, length)) {
    if (!document) {
      document = next;
      continue;
    }
    document.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'the frontmatter holds more than one YAML document'));
    break;
  }
  return document!; // compose(…, forceDoc) always yields one
}

/**
 * The manifest as YAML, within limits: its fields and where each key is, or why it cannot be
 * read (with the file's line where there is one).
 */
function readYamlManifest(text: string): ReadManifest | { reason: string; line: number | null } {
  const lineCounter = new LineCounter();
  // Frontmatter starts on line 2 of the file, after the opening fence.
  const lineAt = (offset: number | undefined) => (offset === undefined ? null : lineCounter.linePos(offset).line + 1);
  let document: Document.Parsed;
  let raw: Record<string, unknown>;
  try {
    const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
    const beyond = beyondBounds(tokens);
    if (beyond) return { reason: beyond.reason, line: lineAt(beyond.offset) };
    document = composeDocument(tokens, text.length);
    const [yamlError] = document.errors;
    if (yamlError) return { reason: `invalid YAML: ${yamlError.message.split('\n')[0]}`, line: lineAt(yamlError.pos[0]) };
    raw = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as Record<string, unknown>;
  } catch (error) {
    // `yaml` throws past its limits: too many aliases expanded (a billion-laughs file).
    return { reason: `YAML beyond limits: ${(error as Error).message}`, line: 2 };
  }
  const fields = document.contents;
  if (!isMap(fields)) return { reason: 'the frontmatter must be a YAML mapping of fields', line: 2 };
  return {
    raw,
    keyLine: (key) => {
      const pair = fields.items.find((item) => isScalar(item.key) && item.key.value === key);
      return lineAt(isScalar(pair?.key) ? pair.key.range?.[0] : undefined);
    },
  };
}

/** The manifest's fields, and the file's line of each key. */
interface ReadManifest {
  raw: Record<string, unknown>;
  keyLine(key: string): number | null;
}

/** A plain manifest (plainManifest.ts), read without YAML; undefined when it is not plain. */
function readPlainManifest(text: string): ReadManifest | undefined {
  const plain = readPlain(text);
  if (!plain) return undefined;
  const { fields, lineOf } = plain;
  // The manifest's first line is the file's second.
  return { raw: fields, keyLine: (key) => (lineOf.has(key) ? lineOf.get(key)! + 2 : null) };
}

/** The 1-based line of the first bytes that are not UTF-8 (lone surrogates encoded as UTF-8 included). */
function firstBadUtf8Line(bytes: Buffer): number {
  let line = 1;
  for (let start = 0; start < bytes.length; line += 1) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end < 0 ? bytes.length : end;
    if (!isUtf8(bytes.subarray(start, stop))) return line;
    start = stop + 1;
  }
  return line;
}

/** Whether a YAML value holds a string that is not well-formed Unicode (`"\ud800"` escapes a lone surrogate). */
const illFormed = (value: unknown): boolean =>
  typeof value === 'string'
    ? !value.isWellFormed()
    : Array.isArray(value)
      ? value.some(illFormed)
      : value !== null && typeof value === 'object' && Object.entries(value).some(([key, item]) => !key.isWellFormed() || illFormed(item));

export function readSkillBody(bytes: Buffer): SkillBody | null {
  const parts = isUtf8(bytes) ? split(bytes) : null;
  if (!parts) return null;
  return { manifestHash: sha256(parts.manifest), bodyHash: sha256(parts.body), body: parts.body.toString('utf8') };
}

/**
 * Parses a SKILL.md into a skill's contract fields, or explains, with a line where it can,
 * why the file cannot be a skill.
 */
export function parseSkillFile(
  path: string,
  bytes: Buffer,
): { ok: true; skill: Omit<SkillSource, 'readBody'> } | { ok: false; problem: SkillFileProblem } {
  const fail = (reason: string, line: number | null = null, capability: string | null = null) =>
    ({ ok: false, problem: { line, capability, reason } }) as const;
  if (!isUtf8(bytes)) return fail('is not valid UTF-8 text (a skill must be UTF-8; lone surrogates are not allowed)', firstBadUtf8Line(bytes));
  const parts = split(bytes);
  if (!parts) return fail('no YAML frontmatter: the file must start with a line `---`, then the manifest, then a closing `---`', 1);
  if (parts.manifest.length > MAX_FRONTMATTER_BYTES) {
    return fail(`the frontmatter is ${parts.manifest.length} bytes, more than the ${MAX_FRONTMATTER_BYTES}-byte limit for a manifest`, 2);
  }

  const manifestText = parts.manifest.toString('utf8');
  const read = readPlainManifest(manifestText) ?? readYamlManifest(manifestText);
  if ('reason' in read) return fail(read.reason, read.line);
  const { raw, keyLine } = read;
  const nameGuess = [raw.name, raw.id].find((value): value is string => typeof value === 'string' && value.isWellFormed()) ?? null;
  const badField = Object.keys(raw).find((key) => !key.isWellFormed() || illFormed(raw[key]));
  if (badField !== undefined) {
    return fail(`"${badField.toWellFormed()}" is not valid Unicode (a lone surrogate); text must be well-formed`, keyLine(badField) ?? 2, nameGuess);
  }
  const parsed = Frontmatter.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? '');
    return fail(`${field ? `"${field}" ` : ''}${issue.message}`, field ? (keyLine(field) ?? 2) : 2, nameGuess);
  }
  const manifest = parsed.data;
  const name = manifest.name ?? manifest.id;
  if (!name) return fail('needs a "name" or an "id"', 2);
  return {
    ok: true,
    skill: {
      contract: {
        name,
        title: manifest.title?.trim() || name,
        description: manifest.description,
        tags: [...new Set(manifest.tags ?? [])],
        riskLevel: 'low',
        needConfirm: false,
        mutating: false,
        modelDiscoverable: manifest['disable-model-invocation'] !== true,
        argumentHint: manifest['argument-hint'] ?? null,
        allowedTools: manifest['allowed-tools'] ?? [],
        path,
        manifestHash: sha256(parts.manifest),
        bodyHash: sha256(parts.body),
      },
    },
  };
}
