import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Grants, authorityFor } from '../../electron/runtime/grants';
import { globMatcher } from '../../shared/glob';
import { Authority, type Grant } from '../../shared/capability';

describe('grants', () => {
  const grants = () =>
    new Grants([
      { pattern: '*', authority: 'discover' },
      { pattern: 'builtin:*', authority: 'execute' },
      { pattern: 'builtin:http_check', authority: 'inspect' },
      { pattern: 'skills:*', authority: 'activate' },
    ]);

  it('take the most specific pattern and fit the kind of capability', () => {
    const g = grants();
    expect(g.held('builtin:time_now', 'tool')).toBe('execute');
    expect(g.held('builtin:http_check', 'tool')).toBe('inspect');
    expect(g.held('mcp:weather', 'tool')).toBe('discover');
    expect(g.held('skills:release', 'skill')).toBe('activate');
    expect(new Grants([]).held('builtin:time_now', 'tool')).toBe('none');
    expect(authorityFor('skill', 'execute')).toBe('activate');
    expect(authorityFor('tool', 'activate')).toBe('load');
  });

  it('refuse an operation above the held level with NOT_GRANTED naming both', () => {
    expect(() => grants().require('builtin:http_check', 'tool', 'execute')).toThrow(
      expect.objectContaining({ code: 'NOT_GRANTED', details: { held: 'inspect', needed: 'execute' } }),
    );
    expect(() => grants().require('builtin:http_check', 'tool', 'inspect')).not.toThrow();
  });

  it('can be reduced during a task, never raised', () => {
    const g = grants();
    g.reduce({ pattern: 'builtin:*', authority: 'inspect' });
    expect(g.held('builtin:time_now', 'tool')).toBe('inspect');
    expect(() => g.reduce({ pattern: 'builtin:time_now', authority: 'execute' })).toThrow(
      expect.objectContaining({ code: 'AUTHORITY_CEILING' }),
    );
    expect(g.held('builtin:time_now', 'tool')).toBe('inspect');
    expect(g.reductions).toEqual([{ pattern: 'builtin:*', authority: 'inspect' }]);
  });

  it('never rise, whatever sequence of reductions is asked for', () => {
    const ids = ['builtin:time_now', 'builtin:http_check', 'skills:release', 'mcp:weather'];
    const pattern = fc.constantFrom('*', 'builtin:*', 'skills:*', 'builtin:time_now', 'builtin:http_check', 'mcp:*', 'skills:release');
    const grant = fc.record({ pattern, authority: fc.constantFrom(...Authority.options) });
    fc.assert(
      fc.property(fc.array(grant, { maxLength: 6 }), fc.array(grant, { maxLength: 12 }), (configured: Grant[], requests: Grant[]) => {
        const g = new Grants(configured);
        const rank = (id: string) => Authority.options.indexOf(g.held(id, id.startsWith('skills:') ? 'skill' : 'tool'));
        let before = ids.map(rank);
        for (const request of requests) {
          try {
            g.reduce(request);
          } catch (error) {
            expect((error as { code: string }).code).toBe('AUTHORITY_CEILING');
          }
          const after = ids.map(rank);
          after.forEach((level, i) => expect(level).toBeLessThanOrEqual(before[i]!));
          before = after;
        }
      }),
    );
  });
});

/** The textbook dynamic programme: does `pattern[i..]` match `id[j..]`? Slow, obviously right. */
function referenceMatch(pattern: string, id: string): boolean {
  const memo = new Map<string, boolean>();
  const at = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    if (!memo.has(key)) {
      let result: boolean;
      if (i === pattern.length) result = j === id.length;
      else if (pattern[i] === '*') result = at(i + 1, j) || (j < id.length && at(i, j + 1));
      else result = j < id.length && pattern[i] === id[j] && at(i + 1, j + 1);
      memo.set(key, result);
    }
    return memo.get(key)!;
  };
  return at(0, 0);
}

describe('grant patterns', () => {
  it('match like the reference on short inputs: `*` any run, everything else literal, the whole id', () => {
    // A small alphabet makes overlaps and near misses common; `.` and `?` must stay literal.
    const text = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((c) => c.join(''));
    fc.assert(
      fc.property(text(['a', 'b', ':', '.', '?', '*'], 8), text(['a', 'b', ':', '.', '?'], 12), (pattern, id) => {
        expect(globMatcher(pattern)(id)).toBe(referenceMatch(pattern, id));
      }),
      { numRuns: 5_000 },
    );
  });

  it.each([
    ['builtin:*', 'builtin:time_now', true],
    ['builtin:*', 'skills:builtin:x', false],
    ['*', '', true],
    ['', '', true],
    ['a*a', 'a', false],
    ['*:time_*', 'builtin:time_now', true],
    ['builtin.*', 'builtinx', false],
    ['b*l*n:*now', 'builtin:time_now', true],
  ])('%s against %s is %s', (pattern, id, expected) => {
    expect(globMatcher(pattern)(id)).toBe(expected);
  });

  it('match a hostile pattern against the longest id in well under a millisecond each', () => {
    // As a RegExp, `*a*a*a*a*a*a*b` took 0.4 s against 50 characters and 22 s against 90.
    const hostile = ['*a*a*a*a*a*a*b', `${'*a'.repeat(150)}`, `*${'a*'.repeat(149)}b`];
    const id = `${'a'.repeat(128)}:${'a'.repeat(128)}`;
    const started = performance.now();
    for (const pattern of hostile) {
      const matches = globMatcher(pattern);
      for (let i = 0; i < 100; i += 1) matches(id);
    }
    expect(performance.now() - started).toBeLessThan(100);
  });
});
