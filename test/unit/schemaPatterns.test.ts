/**
 * Schema patterns are evaluated with RE2 (shared/argumentRules.ts patternMatcher), by the
 * gateway's Ajv (electron/catalog/contract.ts) and by the console's check
 * (renderer/features/tool-detail/literalPatterns.ts): JavaScript's meaning where RE2 reads
 * otherwise, refusals by name, linear time on hostile input, and the same verdicts on both sides.
 */
import { describe, expect, it } from 'vitest';
import { assertValidArguments, ExternalSchemaCompilers } from '../../electron/catalog/contract';
import { checkArguments } from '../../renderer/features/tool-detail/argumentCheck';
import { formSchema } from '../../renderer/features/tool-detail/literalPatterns';
import { MAX_SCHEMA_DEPTH, nestedDeeperThan, patternMatcher, UnsupportedPattern } from '../../shared/argumentRules';

const HOSTILE = `${'a'.repeat(100_000)}!`;

describe('patternMatcher', () => {
  it('means what JavaScript means by the pattern', () => {
    const cases: Array<[string, string]> = [
      ['^\\s+$', ' \u00a0\u2028\ufeff\t'],
      ['^\\S$', '\u00a0'],
      ['^[\\S\\s]{3}$', 'a b'],
      ['^[^\\S]$', '\u3000'],
      ['^.$', '\r'],
      ['^.$', '😀'],
      ['^\\uD83D\\uDE00$', '😀'],
      ['^\\u{1F600}$', '😀'],
      ['^(?<word>\\w+)$', 'hello'],
      ['^[\\b]$', '\b'],
      ['a$', 'a\n'],
      ['^a/b$', 'a/b'],
      ['[]', 'a'],
      ['^[^]$', '\n'],
      ['\\bcat\\b', 'a cat'],
      ['^\\d{2}-\\p{L}+$', '12-été'],
    ];
    for (const [pattern, value] of cases) expect(patternMatcher(pattern).test(value), `${pattern} on ${JSON.stringify(value)}`).toBe(new RegExp(pattern, 'u').test(value));
  });

  it('refuses backreferences, lookarounds and what RE2 cannot take, by name', () => {
    expect(() => patternMatcher('^(a+)\\1$')).toThrow(/backreference/);
    expect(() => patternMatcher('(?<n>a)\\k<n>')).toThrow(/backreference/);
    for (const lookaround of ['a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b']) expect(() => patternMatcher(lookaround)).toThrow(/lookaround/);
    expect(() => patternMatcher('a{1001}')).toThrow(/RE2/);
    expect(() => patternMatcher('(')).toThrow(/not a regular expression/);
    expect(() => patternMatcher('\\p{Letter}')).toThrow(UnsupportedPattern);
  });

  it('takes linear time on input that backtracks catastrophically in JavaScript', () => {
    for (const pattern of ['^(a+)+$', '^(a|a?)+$', '^(a|aa)*$', '(x+x+)+y']) {
      const started = performance.now();
      expect(patternMatcher(pattern).test(HOSTILE)).toBe(false);
      expect(performance.now() - started, pattern).toBeLessThan(500);
    }
  });
});

describe('the gateway and the console, with hostile patterns', () => {
  const schema = {
    type: 'object',
    properties: { q: { type: 'string', pattern: '^(a+)+$' }, tags: { type: 'array', items: { type: 'string', pattern: '^(a|aa)*$' } } },
    patternProperties: { '^x(a+)+$': { type: 'number' } },
    propertyNames: { pattern: '^(q|tags|x(a+)+)$' },
    additionalProperties: false,
  };
  const gateway = new ExternalSchemaCompilers().compile(schema);
  const verdict = (args: Record<string, unknown>) => {
    try {
      assertValidArguments({ validateArguments: gateway }, args);
      return 'ok';
    } catch (error) {
      return (error as { code: string }).code;
    }
  };

  it('give the same verdicts, quickly, and name the pattern as written', () => {
    const cases: Array<Record<string, unknown>> = [
      { q: 'aaa' },
      { q: HOSTILE },
      { tags: ['aa', HOSTILE] },
      { [`x${HOSTILE}`]: 1 },
      { xaaa: 1 },
      { xaaa: 'one' },
      { y: 1 },
    ];
    for (const args of cases) {
      const started = performance.now();
      const page = checkArguments(schema, args);
      expect(page.length === 0 ? 'ok' : page[0]!.code, JSON.stringify(args).slice(0, 40)).toBe(verdict(args));
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    expect(checkArguments(schema, { q: 'b' })).toEqual([expect.objectContaining({ field: 'q', message: 'must match the pattern ^(a+)+$' })]);
  });

  it('the schema RJSF renders holds only literal patternProperties names', () => {
    const rendered = formSchema(schema, { xaaa: 1, [`x${HOSTILE}`]: 2 });
    const names = Object.keys(rendered.patternProperties as object);
    expect(names).toHaveLength(1);
    expect(new RegExp(names[0]!, 'u').test('xaaa')).toBe(true);
    expect(new RegExp(names[0]!, 'u').test(`x${HOSTILE}`)).toBe(false);
    expect((rendered.properties as { q: { pattern: string } }).q.pattern).toBe('^(a+)+$');
    const plain = { type: 'object', properties: { q: { type: 'string' } } };
    expect(formSchema(plain, {})).toBe(plain);
  });
});

describe('schema depth', () => {
  it('is measured without recursion, at any depth', () => {
    let deep: unknown = { type: 'string' };
    for (let level = 0; level < 100_000; level++) deep = { type: 'object', properties: { next: deep } };
    expect(nestedDeeperThan(deep, MAX_SCHEMA_DEPTH)).toBe(true);
    expect(nestedDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
  });
});
