/**
 * How the Ledger view shows and finds entries: ids keep the part that tells them apart, times
 * carry the date, filters match a prefix or any part of an id (as GET /ledger does), an export
 * is named for what it holds; and untrusted file text is shown, not obeyed.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../shared/ledger';
import { visibleText } from '../../shared/visibleText';
import { excerptOf } from '../../electron/providers/skills/excerpt';
import { exportFileName } from '../../renderer/features/ledger/exportLedger';
import { cleaned, filterKey, matchesFilter } from '../../renderer/state/ledgerStore';
import { dateClockTime, formatDuration, idParts } from '../../renderer/ui/format';

const entry = (fields: Partial<LedgerEntry>): LedgerEntry => ({
  seq: 1,
  at: '2026-11-30T14:10:28.123Z',
  kind: 'call_started',
  taskId: 'task-1a2b3c4d-0000-4000-8000-00000000aaaa',
  sessionId: 'operator',
  requestId: 'tool-registry-0c4b8b8e-1234-4abc-8def-d41e5f1a2b3c',
  capability: 'builtin:time_now',
  principal: 'operator',
  details: {},
  prevHash: '0'.repeat(64),
  hash: '1'.repeat(64),
  ...fields,
});

describe('ids in the grid', () => {
  it('keep their tail whole, so two console requestIds that share their start still read apart', () => {
    const a = idParts('tool-registry-0c4b8b8e-1234-4abc-8def-d41e5f1a2b3c');
    const b = idParts('tool-registry-0c4b8b8e-1234-4abc-8def-99aa5f1a2b3d');
    expect(a.tail).toBe('5f1a2b3c');
    expect(a.tail).not.toBe(b.tail);
    // The parts together are the whole id, so copying the cell copies all of it.
    expect(a.head + a.tail).toBe('tool-registry-0c4b8b8e-1234-4abc-8def-d41e5f1a2b3c');
  });

  it('leave short ids whole', () => {
    expect(idParts('burst-7')).toEqual({ head: 'burst-7', tail: '' });
    expect(idParts('builtin:time_now')).toEqual({ head: 'builtin:time_now', tail: '' });
  });
});

describe('times and durations', () => {
  it('a time carries its local date, to the millisecond', () => {
    const at = '2026-11-30T14:10:28.123Z';
    const local = new Date(at);
    const pad = (value: number) => String(value).padStart(2, '0');
    expect(dateClockTime(at)).toBe(
      `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())} ${pad(local.getHours())}:${pad(local.getMinutes())}:${pad(local.getSeconds())}.123`,
    );
    expect(dateClockTime('not a time')).toBe('not a time');
  });

  it('a duration reads the same wherever it is written', () => {
    expect(formatDuration(0.37)).toBe('0.4 ms');
    expect(formatDuration(262.87)).toBe('263 ms');
  });
});

describe('ledger filters', () => {
  const call = entry({});
  it('match any part of an id, a prefix included, ASCII letters in either case', () => {
    for (const requestId of ['tool-registry-', 'D41E5F', '5f1a2b3c', '8def-d41e']) expect(matchesFilter(call, { requestId, match: 'contains' }), requestId).toBe(true);
    expect(matchesFilter(call, { taskId: 'task-1a2b', match: 'contains' })).toBe(true);
    expect(matchesFilter(call, { capability: 'time_', principal: 'oper', match: 'contains' })).toBe(true);
    expect(matchesFilter(call, { requestId: 'nope', match: 'contains' })).toBe(false);
    // Every field must match; the kind always exactly.
    expect(matchesFilter(call, { requestId: 'tool', kind: 'call_finished', match: 'contains' })).toBe(false);
    expect(matchesFilter(entry({ requestId: null }), { requestId: 'tool', match: 'contains' })).toBe(false);
  });

  it('match whole ids only when set from a link', () => {
    expect(matchesFilter(call, { requestId: 'tool-registry-' })).toBe(false);
    expect(matchesFilter(call, { requestId: call.requestId! })).toBe(true);
  });

  it('drop blank fields, and the match mode with them, before asking', () => {
    expect(cleaned({ requestId: '  abc ', taskId: '   ', match: 'contains' })).toEqual({ requestId: 'abc', match: 'contains' });
    expect(cleaned({ requestId: '', kind: 'steer', match: 'contains' })).toEqual({ kind: 'steer' });
    expect(filterKey({ requestId: 'abc' })).not.toBe(filterKey({ requestId: 'abc', match: 'contains' }));
  });
});

describe('an export', () => {
  it('is named for its filter and time, in characters every file system takes', () => {
    const now = new Date(2026, 10, 30, 14, 10, 28);
    expect(exportFileName({}, now)).toBe('capstan-ledger-20261130-141028.jsonl');
    expect(exportFileName({ requestId: 'tool-registry-0c4b', match: 'contains' }, now)).toBe('capstan-ledger-requestId-tool-registry-0c4b-20261130-141028.jsonl');
    expect(exportFileName({ principal: 'agent:../x y' }, now)).toBe('capstan-ledger-principal-agent_.._x_y-20261130-141028.jsonl');
  });
});

describe('untrusted text', () => {
  it('shows control, zero-width and bidirectional characters instead of obeying them', () => {
    expect(visibleText('a\u001b[31mb')).toBe('a␛[31mb');
    expect(visibleText('x\u202Eevil\u202C')).toBe('x\\u{202E}evil\\u{202C}');
    expect(visibleText('zero\u200Bwidth\u007F')).toBe('zero\\u{200B}width␡');
    expect(visibleText('tab\tstays')).toBe('tab\tstays');
    expect(visibleText('one\ntwo')).toBe('one␊two');
    expect(visibleText('one\ntwo\r', { keepNewlines: true })).toBe('one\ntwo␍');
    expect(visibleText('a\u3164b\uFFA0c\u115F\u1160d\u034Fe')).toBe('a\\u{3164}b\\u{FFA0}c\\u{115F}\\u{1160}d\\u{34F}e');
  });

  it('an excerpt is at most seven lines of at most 241 characters, invalid UTF-8 as U+FFFD', () => {
    const text = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
    text[9] = 'y'.repeat(5000);
    const excerpt = excerptOf(Buffer.from(text.join('\r\n')), 10);
    expect(excerpt.firstLine).toBe(7);
    expect(excerpt.lines).toEqual(['line 7', 'line 8', 'line 9', `${'y'.repeat(240)}…`, 'line 11', 'line 12', 'line 13']);
    expect(excerptOf(Buffer.from('one\ntwo'), 1)).toEqual({ firstLine: 1, lines: ['one', 'two'] });
    expect(excerptOf(Buffer.concat([Buffer.from('bad '), Buffer.from([0xff])]), 1).lines).toEqual(['bad \uFFFD']);
  });
});
