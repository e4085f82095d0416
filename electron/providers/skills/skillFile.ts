/**
 * Reads one SKILL.md: YAML frontmatter between `---` fences, then the body. Hashes are taken over
 * the exact bytes that were parsed, so activation can tell whether the file changed since.
 */
import { createHash } from 'node:crypto';
import { LineCounter, parseDocument, isMap, isScalar } from 'yaml';
import { z } from 'zod';
import { CAPABILITY_NAME_PATTERN } from '../../../shared/capability';
import type { SkillBody, SkillSource } from '../../catalog/provider';

export const SKILL_FILE = 'SKILL.md';

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

export function readSkillBody(bytes: Buffer): SkillBody | null {
  const parts = split(bytes);
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
  const parts = split(bytes);
  if (!parts) return fail('no YAML frontmatter: the file must start with a line `---`, then the manifest, then a closing `---`', 1);

  const lineCounter = new LineCounter();
  const document = parseDocument(parts.manifest.toString('utf8'), { lineCounter, uniqueKeys: true });
  // Frontmatter starts on line 2 of the file, after the opening fence.
  const lineAt = (offset: number | undefined) => (offset === undefined ? null : lineCounter.linePos(offset).line + 1);
  const [yamlError] = document.errors;
  if (yamlError) return fail(`invalid YAML: ${yamlError.message.split('\n')[0]}`, lineAt(yamlError.pos[0]));
  if (!isMap(document.contents)) return fail('the frontmatter must be a YAML mapping of fields', 2);

  const keyLine = (key: string) => {
    const pair = isMap(document.contents) ? document.contents.items.find((item) => isScalar(item.key) && item.key.value === key) : undefined;
    return lineAt(isScalar(pair?.key) ? pair.key.range?.[0] : undefined);
  };
  const raw = document.toJS() as Record<string, unknown>;
  const nameGuess = typeof raw.name === 'string' ? raw.name : typeof raw.id === 'string' ? raw.id : null;
  const parsed = Frontmatter.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? '');
    return fail(`${field ? `"${field}" ` : ''}${issue.message}`, field ? (keyLine(field) ?? 2) : 2, nameGuess);
  }
  const fields = parsed.data;
  const name = fields.name ?? fields.id;
  if (!name) return fail('needs a "name" or an "id"', 2);
  return {
    ok: true,
    skill: {
      contract: {
        name,
        title: fields.title?.trim() || name,
        description: fields.description,
        tags: [...new Set(fields.tags ?? [])],
        riskLevel: 'low',
        needConfirm: false,
        mutating: false,
        modelDiscoverable: fields['disable-model-invocation'] !== true,
        argumentHint: fields['argument-hint'] ?? null,
        allowedTools: fields['allowed-tools'] ?? [],
        path,
        manifestHash: sha256(parts.manifest),
        bodyHash: sha256(parts.body),
      },
    },
  };
}
