import { describe, expect, it } from 'vitest';
import { CONFIRMATION_TTL_MS, Confirmations } from '../../electron/gateway/confirmations';

describe('confirmation challenges', () => {
  it('can be redeemed once, for the same tool and arguments', () => {
    const confirmations = new Confirmations();
    const challenge = confirmations.issue('http_check', { url: 'http://127.0.0.1/', method: 'HEAD' });
    expect(challenge.tool).toBe('http_check');
    expect(challenge.argumentsDigest).toMatch(/^[0-9a-f]{64}$/);
    // Key order does not change the canonical digest.
    expect(confirmations.redeem(challenge.id, 'http_check', { method: 'HEAD', url: 'http://127.0.0.1/' })).toEqual({ ok: true });
    expect(confirmations.redeem(challenge.id, 'http_check', { method: 'HEAD', url: 'http://127.0.0.1/' })).toEqual({
      ok: false,
      reason: 'the confirmation is unknown or was already used',
    });
  });

  it('refuses other arguments or another tool, and burns the challenge', () => {
    const confirmations = new Confirmations();
    const first = confirmations.issue('http_check', { url: 'http://127.0.0.1/' });
    expect(confirmations.redeem(first.id, 'http_check', { url: 'http://example.com/' })).toMatchObject({ ok: false, reason: expect.stringMatching(/arguments changed/) });
    expect(confirmations.redeem(first.id, 'http_check', { url: 'http://127.0.0.1/' })).toMatchObject({ ok: false });
    const second = confirmations.issue('http_check', {});
    expect(confirmations.redeem(second.id, 'note_add', {})).toMatchObject({ ok: false, reason: expect.stringMatching(/issued for http_check/) });
  });

  it('expires after 60 seconds', () => {
    let now = 1_000_000;
    const confirmations = new Confirmations(() => now);
    const challenge = confirmations.issue('http_check', {});
    expect(new Date(challenge.expiresAt).getTime()).toBe(now + CONFIRMATION_TTL_MS);
    now += CONFIRMATION_TTL_MS;
    expect(confirmations.redeem(challenge.id, 'http_check', {})).toEqual({ ok: false, reason: 'the confirmation expired' });
    const fresh = confirmations.issue('http_check', {});
    now += CONFIRMATION_TTL_MS - 1;
    expect(confirmations.redeem(fresh.id, 'http_check', {})).toEqual({ ok: true });
  });
});
