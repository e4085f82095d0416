import { describe, expect, it } from 'vitest';
import { resolveRequestId } from '../../electron/services/api';
import { timeOrderedUuid } from '../../electron/store/timeOrderedId';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered ids', () => {
  it('are version 7 UUIDs whose first 48 bits are the time in milliseconds', () => {
    const at = Date.UTC(2026, 11, 1, 23, 45, 6, 789);
    const id = timeOrderedUuid(at);
    expect(id).toMatch(V7);
    expect(Number.parseInt(id.replace('-', '').slice(0, 12), 16)).toBe(at);
  });

  it('sort in the order they were made, a millisecond apart, and differ within one', () => {
    const start = Date.now();
    const ids = Array.from({ length: 50 }, (_, index) => timeOrderedUuid(start + index));
    expect([...ids].sort()).toEqual(ids);
    const same = new Set(Array.from({ length: 1_000 }, () => timeOrderedUuid(start)));
    expect(same.size).toBe(1_000);
  });

  it('make the requestId the gateway gives a call that brought none', () => {
    const before = Date.now();
    const requestId = resolveRequestId(undefined);
    expect(requestId).toMatch(/^req-/);
    const uuid = requestId.slice(4);
    expect(uuid).toMatch(V7);
    expect(Number.parseInt(uuid.replace('-', '').slice(0, 12), 16)).toBeGreaterThanOrEqual(before);
    expect(resolveRequestId('req-mine-42')).toBe('req-mine-42');
  });
});
