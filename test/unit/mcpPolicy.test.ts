import { describe, expect, it } from 'vitest';
import type { ToolContract } from '../../shared/capability';
import { toolPolicy } from '../../electron/catalog/toolPolicy';
import { declaredAnnotations, decideFromAnnotations } from '../../electron/providers/mcp/policy';

describe('annotations → policy', () => {
  it.each([
    ['no annotations at all', null, { riskLevel: 'high', needConfirm: true, mutating: true }],
    ['readOnlyHint (open world by default)', { readOnlyHint: true }, { riskLevel: 'medium', needConfirm: false, mutating: false }],
    ['readOnlyHint, closed world', { readOnlyHint: true, openWorldHint: false }, { riskLevel: 'low', needConfirm: false, mutating: false }],
    // Contradictory hints take the conservative reading, as absent ones do.
    ['read-only and destructive at once: destructive', { readOnlyHint: true, destructiveHint: true, openWorldHint: false }, { riskLevel: 'high', needConfirm: true, mutating: true }],
    ['not read-only, destructive by default', { readOnlyHint: false, openWorldHint: false }, { riskLevel: 'high', needConfirm: true, mutating: true }],
    ['not read-only, not destructive', { readOnlyHint: false, destructiveHint: false, openWorldHint: false }, { riskLevel: 'low', needConfirm: false, mutating: true }],
    ['not destructive, open world', { destructiveHint: false, openWorldHint: true }, { riskLevel: 'medium', needConfirm: false, mutating: true }],
    ['only a title', { title: 'Hello' }, { riskLevel: 'high', needConfirm: true, mutating: true }],
  ])('%s', (_case, declared, decision) => {
    expect(decideFromAnnotations(declared)).toEqual(decision);
  });

  it('keeps only the annotations the specification defines, with their types', () => {
    expect(declaredAnnotations(undefined)).toBeNull();
    expect(declaredAnnotations({ readOnlyHint: true, destructiveHint: 'yes', custom: 1, title: 'T' })).toEqual({ readOnlyHint: true, title: 'T' });
  });
});

describe('toolPolicy', () => {
  const contract = (overrides: Partial<ToolContract> = {}): ToolContract => ({
    id: 'files:read',
    kind: 'tool',
    provider: 'files',
    name: 'read',
    title: 'read',
    description: 'reads',
    tags: [],
    riskLevel: 'medium',
    needConfirm: false,
    mutating: false,
    modelDiscoverable: true,
    inputSchema: { type: 'object' },
    returnExample: null,
    declared: { readOnlyHint: true },
    tightenedBy: [],
    ...overrides,
  });

  it('tightens what matches, naming the patterns that changed something', () => {
    const apply = toolPolicy([
      { pattern: 'files:*', needConfirm: true },
      { pattern: 'files:re*', riskLevel: 'high', mutating: true },
      { pattern: 'other:*', riskLevel: 'high' },
    ]);
    expect(apply(contract())).toMatchObject({ needConfirm: true, riskLevel: 'high', mutating: true, tightenedBy: ['files:*', 'files:re*'] });
  });

  it('never loosens: a lower risk changes nothing and is not listed', () => {
    const apply = toolPolicy([{ pattern: '*', riskLevel: 'low' }]);
    const high = contract({ riskLevel: 'high', needConfirm: true });
    expect(apply(high)).toBe(high);
  });

  it('leaves a builtin contract exactly as it was unless a rule changes it (its hash holds)', () => {
    const { declared: _d, tightenedBy: _t, ...builtin } = contract({ id: 'builtin:time_now', provider: 'builtin' });
    const apply = toolPolicy([{ pattern: 'files:*', needConfirm: true }]);
    expect(apply(builtin)).toBe(builtin);
    expect(toolPolicy([{ pattern: 'builtin:time_now', needConfirm: true }])(builtin)).toMatchObject({ needConfirm: true, tightenedBy: ['builtin:time_now'] });
  });
});
