import { describe, expect, it } from 'vitest';
import { Cursors } from '../../electron/catalog/cursor';

describe('cursors', () => {
  const listing = { op: 'search', query: 'note', task: 't1', snapshot: 3 };

  it('carry an offset for the listing they were issued for', () => {
    const cursors = new Cursors();
    expect(cursors.decode(cursors.encode(listing, 40), { ...listing })).toBe(40);
  });

  it('are BAD_CURSOR when malformed, tampered, foreign or from another listing', () => {
    const cursors = new Cursors();
    const cursor = cursors.encode(listing, 20);
    const [, mac, sig] = cursor.split('.');
    // base64url decoding forgives what it cannot read (a character appended, a padding `=`), so the text is compared, not its bytes.
    const altered = [`${cursor}A`, `${cursor}=`, `${cursor}.extra`, `${cursor}.`, cursor.replace(/\.([^.]*)$/, '.$1~')];
    for (const bad of ['', 'abc', '20', `21.${mac}.${sig}`, cursor.slice(0, -2), new Cursors().encode(listing, 20), ...altered]) {
      expect(() => cursors.decode(bad, listing), bad).toThrow(expect.objectContaining({ code: 'BAD_CURSOR' }));
    }
    expect(() => cursors.decode(cursor, { ...listing, query: 'other' })).toThrow(/another query/);
    expect(() => cursors.decode(cursor, { ...listing, task: 't2' })).toThrow(expect.objectContaining({ code: 'BAD_CURSOR' }));
  });
});
