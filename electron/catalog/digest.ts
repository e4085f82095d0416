/** Canonical JSON (RFC 8785) and the digests taken over it. */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? 'null';
}

export function sha256Hex(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
