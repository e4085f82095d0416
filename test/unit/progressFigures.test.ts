/** A running call's progress bar figures (renderer/features/progress/progressFigures.ts). */
import { describe, expect, it } from 'vitest';
import { formatSpan, progressFigures } from '../../renderer/features/progress/progressFigures';

const report = (progress: number, total: number | null) => ({
  requestId: 'r1',
  taskId: 't1',
  progress,
  total,
  message: null,
  startedAt: '2026-01-01T00:00:00.000Z',
  deadlineAt: '2026-01-01T00:01:00.000Z',
});
const start = Date.parse('2026-01-01T00:00:00.000Z');

describe('progressFigures', () => {
  it('gives a fraction, steps and the clock against the deadline', () => {
    expect(progressFigures(report(2, 5), start + 12_000)).toEqual({ fraction: 0.4, steps: '2 of 5', elapsedMs: 12_000, allowedMs: 60_000, remainingMs: 48_000 });
  });

  it('has no fraction without a total, and clamps one past it', () => {
    expect(progressFigures(report(7, null), start).fraction).toBeNull();
    expect(progressFigures(report(7, null), start).steps).toBe('7');
    expect(progressFigures(report(9, 5), start).fraction).toBe(1);
    expect(progressFigures(report(0.5, 1), start).steps).toBe('0.5 of 1');
  });

  it("measures elapsed time on the console's clock when it started the call, whatever the gateway's clock says", () => {
    const localStart = 5_000_000;
    const figures = progressFigures(report(1, 5), localStart + 70_000, localStart);
    expect(figures.elapsedMs).toBe(70_000);
    expect(figures.remainingMs).toBe(-10_000);
  });
});

describe('formatSpan', () => {
  it('reads in seconds, then minutes, then hours', () => {
    expect(formatSpan(12_400)).toBe('12 s');
    expect(formatSpan(-3_000)).toBe('3 s');
    expect(formatSpan(65_000)).toBe('1 min 05 s');
    expect(formatSpan(3_725_000)).toBe('1 h 02 min');
  });
});
