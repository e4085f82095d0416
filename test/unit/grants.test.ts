import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Grants, authorityFor } from '../../electron/runtime/grants';
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
