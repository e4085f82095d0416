import { describe, expect, it } from 'vitest';
import { CONFIRMATION_TTL_MS, Challenges } from '../../electron/services/challenges';

describe('confirmation challenges', () => {
  it('can be redeemed once, for the same tool and arguments', () => {
    const confirmations = new Challenges();
    const challenge = confirmations.issue('http_check', { url: 'http://127.0.0.1/', method: 'HEAD' }, 'operator');
    expect(challenge.tool).toBe('http_check');
    expect(challenge.argumentsDigest).toMatch(/^[0-9a-f]{64}$/);
    // Key order does not change the canonical digest.
    expect(confirmations.redeem(challenge.id, 'http_check', { method: 'HEAD', url: 'http://127.0.0.1/' }, 'operator')).toEqual({ ok: true });
    expect(confirmations.redeem(challenge.id, 'http_check', { method: 'HEAD', url: 'http://127.0.0.1/' }, 'operator')).toEqual({
      ok: false,
      reason: 'the confirmation is unknown or was already used',
    });
  });

  it('refuses other arguments or another tool, and burns the challenge', () => {
    const confirmations = new Challenges();
    const first = confirmations.issue('http_check', { url: 'http://127.0.0.1/' }, 'operator');
    expect(confirmations.redeem(first.id, 'http_check', { url: 'http://example.com/' }, 'operator')).toMatchObject({ ok: false, reason: expect.stringMatching(/arguments changed/) });
    expect(confirmations.redeem(first.id, 'http_check', { url: 'http://127.0.0.1/' }, 'operator')).toMatchObject({ ok: false });
    const second = confirmations.issue('http_check', {}, 'operator');
    expect(confirmations.redeem(second.id, 'note_add', {}, 'operator')).toMatchObject({ ok: false, reason: expect.stringMatching(/issued for http_check/) });
  });

  it('refuses another session, and burns the challenge', () => {
    const confirmations = new Challenges();
    const challenge = confirmations.issue('http_check', { url: 'http://127.0.0.1/' }, 'session-a');
    expect(confirmations.redeem(challenge.id, 'http_check', { url: 'http://127.0.0.1/' }, 'session-b')).toEqual({
      ok: false,
      reason: 'the confirmation was issued in another session',
    });
    expect(confirmations.redeem(challenge.id, 'http_check', { url: 'http://127.0.0.1/' }, 'session-a')).toMatchObject({ ok: false });
    const again = confirmations.issue('http_check', { url: 'http://127.0.0.1/' }, 'session-a');
    expect(confirmations.redeem(again.id, 'http_check', { url: 'http://127.0.0.1/' }, 'session-a')).toEqual({ ok: true });
  });

  it('expires after 60 seconds', () => {
    let now = 1_000_000;
    const confirmations = new Challenges(() => now);
    const challenge = confirmations.issue('http_check', {}, 'operator');
    expect(new Date(challenge.expiresAt).getTime()).toBe(now + CONFIRMATION_TTL_MS);
    now += CONFIRMATION_TTL_MS;
    expect(confirmations.redeem(challenge.id, 'http_check', {}, 'operator')).toEqual({ ok: false, reason: 'the confirmation expired' });
    const fresh = confirmations.issue('http_check', {}, 'operator');
    now += CONFIRMATION_TTL_MS - 1;
    expect(confirmations.redeem(fresh.id, 'http_check', {}, 'operator')).toEqual({ ok: true });
  });
});
