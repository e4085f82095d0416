/** The console's Policy section offers and sends only what tightens (renderer/features/providers/policyDraft.ts). */
import { describe, expect, it } from 'vitest';
import { declaredWords, draftFromPolicy, drafted, policyInput, riskOptions } from '../../renderer/features/providers/policyDraft';

const low = { name: 'meta', declared: { readOnlyHint: true, openWorldHint: false }, decided: { riskLevel: 'low' as const, needConfirm: false, mutating: false } };
const high = { name: 'plain', declared: null, decided: { riskLevel: 'high' as const, needConfirm: true, mutating: true } };

describe('policyDraft', () => {
  it('offers risk floors only above what the annotations and the server floor decide', () => {
    expect(riskOptions('low', 'low')).toEqual(['medium', 'high']);
    expect(riskOptions('low', 'medium')).toEqual(['high']);
    expect(riskOptions('high', 'low')).toEqual([]);
  });

  it('sends only overrides that still tighten, and the defaults as set', () => {
    const draft = { ...draftFromPolicy(undefined), confirmAll: true, riskAtLeast: 'medium' as const, tools: { meta: { riskLevel: 'high' as const, mutating: true as const }, plain: { riskLevel: 'medium' as const, needConfirm: true as const } } };
    expect(policyInput('fixture', draft, [low, high])).toEqual({
      name: 'fixture',
      defaults: { needConfirm: true, riskLevel: 'medium' },
      tools: { meta: { riskLevel: 'high', mutating: true } },
      acceptNewTools: false,
    });
    expect(drafted(low, draft)).toEqual({ riskLevel: 'high', needConfirm: true, mutating: true });
  });

  it('reads a saved policy back, and says what a tool declared', () => {
    const draft = draftFromPolicy({ defaults: { riskLevel: 'high', mutating: true }, tools: { meta: { needConfirm: true } }, acceptNewTools: true });
    expect(draft).toMatchObject({ confirmAll: false, riskAtLeast: 'high', mutatingAll: true, acceptNewTools: true, tools: { meta: { needConfirm: true } } });
    expect(declaredWords(low.declared)).toBe('read-only, closed world');
    expect(declaredWords(null)).toBe('none declared');
  });
});
