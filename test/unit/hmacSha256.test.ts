/** The ledger's HMAC-SHA256 makes exactly the bytes node:crypto's createHmac makes, whatever the key and message. */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../electron/runtime/hmacSha256';

const MESSAGES = ['', 'a', 'x'.repeat(55), 'x'.repeat(64), 'y'.repeat(5000), '{"argumentsDigest":"…","status":"ok"}', 'é€😀 ﬁ', 'lone \ud800 surrogate', '\u0000nul'];

describe('hmacSha256', () => {
  it.each([1, 16, 32, 63, 64, 65, 100, 200])('matches createHmac under a key of %i bytes', (length) => {
    const key = randomBytes(length);
    const mac = hmacSha256(key);
    for (const message of MESSAGES) expect(mac(message)).toBe(createHmac('sha256', key).update(message).digest('hex'));
  });

  it('gives the same answer however often it is asked, in any order', () => {
    const key = randomBytes(32);
    const mac = hmacSha256(key);
    const first = MESSAGES.map((message) => mac(message));
    expect(MESSAGES.toReversed().map((message) => mac(message)).toReversed()).toEqual(first);
  });

  it('is keyed: another key, another answer', () => {
    expect(hmacSha256(Buffer.alloc(32, 1))('entry')).not.toBe(hmacSha256(Buffer.alloc(32, 2))('entry'));
  });
});
