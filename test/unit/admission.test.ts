import { describe, expect, it } from 'vitest';
import { DEFAULT_ADMISSION_BUDGET } from '../../electron/config';
import { CapabilityContext, estimateTokens } from '../../electron/runtime/admission';

describe('admission', () => {
  it('sets the ceiling at budget minus base minus margin', () => {
    expect(new CapabilityContext(DEFAULT_ADMISSION_BUDGET).ceiling).toBe(128_000 - DEFAULT_ADMISSION_BUDGET.baseTokens - DEFAULT_ADMISSION_BUDGET.marginTokens);
    expect(() => new CapabilityContext({ budgetTokens: 100, baseTokens: 60, marginTokens: 40 })).toThrow(/no room/);
  });

  it('charges each item once and refuses what does not fit, with the numbers', () => {
    const context = new CapabilityContext({ budgetTokens: 1000, baseTokens: 300, marginTokens: 100 });
    context.admit('builtin:a', 450, 'step');
    context.admit('builtin:a', 450, 'step');
    expect(context.inUse).toBe(450);
    context.admit('skills:b', 150, 'task');
    expect(context.inUse).toBe(600);
    expect(() => context.admit('builtin:c', 1, 'step')).toThrow(
      expect.objectContaining({ code: 'BUDGET_EXCEEDED', details: { need: 1, margin: 100, ceiling: 600, inUse: 600 } }),
    );
    // Nothing was evicted to make room.
    expect(context.items.map((i) => i.id)).toEqual(['builtin:a', 'skills:b']);
  });

  it('releases step-scoped items at the end of a step and keeps task-scoped ones', () => {
    const context = new CapabilityContext({ budgetTokens: 1000, baseTokens: 0, marginTokens: 0 });
    context.admit('builtin:a', 10, 'step');
    context.admit('skills:b', 20, 'task');
    context.admit('skills:c', 30, 'step');
    context.admit('skills:c', 30, 'task'); // a direct activation outlives the step
    expect(context.endStep().map((i) => i.id)).toEqual(['builtin:a']);
    expect(context.items.map((i) => [i.id, i.scope])).toEqual([
      ['skills:b', 'task'],
      ['skills:c', 'task'],
    ]);
  });

  it('counts tokens with a real tokenizer', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('hello world')).toBe(2);
    expect(estimateTokens('word '.repeat(1000))).toBeGreaterThan(900);
  });
});
