/**
 * HMAC-SHA256 under one fixed key (RFC 2104): SHA-256 of the outer padded key and SHA-256 of the
 * inner padded key and the message, each a one-shot `hash()`. The same bytes as `createHmac`,
 * without the Hmac object, the KeyObject and the stream it builds for every message. The ledger
 * makes three of these on every call (an entry's MAC twice, the evidence digest): 1.4 against
 * 2.6 µs each alone, and under agents' calls createHmac was most of a call's crypto (profile:
 * 4.6% of the gateway's CPU, docs/benchmarks.md).
 */
import { hash } from 'node:crypto';

const BLOCK = 64;
const DIGEST = 32;

/** A function that makes the hex HMAC-SHA256 of a message (UTF-8, as `createHmac().update(string)` reads it) under `key`. */
export function hmacSha256(key: Buffer): (message: string) => string {
  const block = Buffer.alloc(BLOCK);
  (key.length > BLOCK ? Buffer.from(hash('sha256', key, 'hex'), 'hex') : key).copy(block);
  const innerPad = Buffer.from(block.map((byte) => byte ^ 0x36));
  // The outer pad with room for the inner digest after it: one buffer, rewritten per message.
  const outer = Buffer.alloc(BLOCK + DIGEST);
  for (let i = 0; i < BLOCK; i += 1) outer[i] = block[i]! ^ 0x5c;
  return (message) => {
    const inner = Buffer.allocUnsafe(BLOCK + Buffer.byteLength(message));
    innerPad.copy(inner);
    inner.write(message, BLOCK);
    // 'binary' (latin1) carries the digest's bytes as they are, and is quicker out of hash() than a Buffer.
    outer.write(hash('sha256', inner, 'binary'), BLOCK, 'binary');
    return hash('sha256', outer, 'hex');
  };
}
