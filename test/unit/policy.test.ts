import { describe, expect, it } from 'vitest';
import { matchesFilter, registryCounts, toolState } from '../../shared/policy';

const tool = (name: string, needConfirm: boolean, riskLevel: 'low' | 'medium' | 'high' = needConfirm ? 'medium' : 'low') => ({
  name,
  title: name.replace('_', ' '),
  description: `does ${name}`,
  tags: ['tag-' + name],
  riskLevel,
  needConfirm,
});

describe('client policy', () => {
  it('makes a tool executable only when it needs no confirmation and the whitelist names it', () => {
    expect(toolState(tool('time_now', false), ['time_now'])).toBe('executable');
    expect(toolState(tool('todo_list', false), ['time_now'])).toBe('read-only');
  });

  it('locks a tool that needs confirmation even when the whitelist names it', () => {
    expect(toolState(tool('http_check', true), ['http_check'])).toBe('locked');
  });

  it('counts total, directly executable and confirmation-required tools', () => {
    const tools = [tool('a', false), tool('b', false), tool('c', true)];
    expect(registryCounts(tools)).toEqual({ total: 3, direct: 2, needConfirm: 1 });
    expect(registryCounts([])).toEqual({ total: 0, direct: 0, needConfirm: 0 });
  });

  it('filters by risk and by confirmation', () => {
    const low = tool('note_search', false);
    const confirm = tool('http_check', true);
    expect(matchesFilter(low, 'low-risk')).toBe(true);
    expect(matchesFilter(confirm, 'low-risk')).toBe(false);
    expect(matchesFilter(confirm, 'confirm')).toBe(true);
    expect(matchesFilter(low, 'confirm')).toBe(false);
    expect(matchesFilter(low, 'all')).toBe(true);
    expect(matchesFilter(confirm, 'all')).toBe(true);
  });
});
