/**
 * A plain manifest read without YAML must read exactly as YAML reads it, or be handed to YAML:
 * generated manifests of lines that look plain (and many that only nearly do) are read both
 * ways and compared. Runs FUZZ_RUNS × 20 cases: 3,000 in `npm test`, 100,000 under `npm run fuzz`;
 * FUZZ_SEED replays one run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readPlainManifest } from '../../electron/providers/skills/plainManifest';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150) * 20;
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** Ordinary text, most of the time; now and then something YAML reads differently. */
const safe = fc.constantFrom('a', 'Z', 'word', 'Deploy', ' ', '-', '_', '.', ',', '/', '(', ')', 'é', '日本', '🙂', '=', '<', 'x:y', 'a#b');
const risky = fc.constantFrom(
  'a', 'Z', 'word', ' ', '  ', '-', '_', '.', ':', ': ', ' #', '#', ',', '[', ']', '{', '}', '"', "'", '\\', '!', '&', '*', '|', '>', '%', '@', '`', '?',
  '0', '12', '1.5', '0x1F', 'true', 'False', 'null', '~', '.inf', '.NaN', 'yes', 'on', 'é', '日本', '🙂', '\t', '\r', '\u0085', '\ufeff', '=', '<', '/', '(', ')',
);
const piece = fc.oneof({ weight: 12, arbitrary: safe }, { weight: 1, arbitrary: risky });
const text = fc.array(piece, { minLength: 0, maxLength: 8 }).map((pieces) => pieces.join(''));
const key = fc.oneof({ weight: 8, arbitrary: fc.constantFrom('name', 'description', 'tags', 'title', 'allowed-tools', 'argument-hint') }, { weight: 1, arbitrary: fc.constantFrom('name', 'description', 'tags', 'title', 'allowed-tools', 'argument-hint', 'x_y', 'true', 'null', '1a', 'a b', '__proto__') }, { weight: 1, arbitrary: text });
const value = fc.oneof(
  text,
  text.map((inner) => `"${inner}"`),
  fc.array(fc.oneof(text, text.map((inner) => `"${inner}"`)), { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
  fc.array(text, { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
);
const line = fc.oneof(
  { weight: 10, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`) },
  { weight: 1, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}:${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '# a comment', '  indented: value', '- item', 'key: |', '  block') },
);
const manifest = fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => `${lines.join('\n')}\n`);

describe('a plain manifest read without YAML', () => {
  it('reads ordinary manifests, with the line of each key', () => {
    const read = readPlainManifest('name: deploy-check\ndescription: Checks a deploy, then reports ok or not\ntags: [ops, "release notes"]\ntitle: "Deploy: check"\n');
    expect(read?.fields).toEqual({ name: 'deploy-check', description: 'Checks a deploy, then reports ok or not', tags: ['ops', 'release notes'], title: 'Deploy: check' });
    expect(read?.lineOf.get('tags')).toBe(2);
  });

  it('leaves to YAML what it would read otherwise: numbers, booleans, nulls, comments, blocks, escapes, a key twice', () => {
    for (const text of ['a: 12\n', 'a: true\n', 'a:\n', 'a: x # note\n', 'a: |\n  b\n', 'a: "x\\ty"\n', 'a: x\na: y\n', '# c\na: x\n', 'a: [1, b]\n', 'a: &x b\n']) {
      expect(readPlainManifest(text), text).toBeUndefined();
    }
  });

  it('reads what it reads exactly as YAML does', () => {
    let plain = 0;
    fc.assert(
      fc.property(manifest, (text) => {
        const read = readPlainManifest(text);
        if (read === undefined) return;
        plain += 1;
        expect(read.fields).toEqual(parse(text, { uniqueKeys: true }));
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    // The generator must reach the fast path often enough for the comparison to mean something.
    expect(plain).toBeGreaterThan(RUNS / 20);
  });
});
