/**
 * Opaque page cursors. A cursor is bound to the exact listing it came from (task, snapshot,
 * query, filters) and signed, so a malformed, tampered or foreign one is BAD_CURSOR rather than
 * a silently different page.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { CapstanError } from '../../shared/errors';
import { canonicalJson } from './digest';

export class Cursors {
  readonly #key = randomBytes(32);

  #sign(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest().subarray(0, 16);
  }

  /** `listing` is everything that defines the result list the offset points into. */
  encode(listing: unknown, offset: number): string {
    const payload = `${offset}.${this.#sign(canonicalJson(listing)).toString('base64url')}`;
    return `${payload}.${this.#sign(payload).toString('base64url')}`;
  }

  decode(cursor: string, listing: unknown): number {
    const bad = (why: string) => new CapstanError('BAD_CURSOR', `${why}; start again without a cursor`);
    const parts = cursor.split('.');
    const [offsetText, listingMac, mac] = parts;
    if (parts.length !== 3 || !offsetText || !listingMac || !mac || !/^\d{1,9}$/.test(offsetText)) throw bad('the cursor is malformed');
    const payload = `${offsetText}.${listingMac}`;
    // The MAC's text as issued, not what decoding it yields: base64url decoding skips characters it cannot read.
    const expected = Buffer.from(this.#sign(payload).toString('base64url'));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad('the cursor was not issued by this gateway');
    if (listingMac !== this.#sign(canonicalJson(listing)).toString('base64url')) {
      throw bad('the cursor belongs to another query, task or catalog snapshot');
    }
    return Number(offsetText);
  }
}
