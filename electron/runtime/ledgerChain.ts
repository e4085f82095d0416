/**
 * What makes the ledger's chain tamper-evident, apart from the table that holds it: an entry's
 * hash and keyed MAC, and whether a keyed checkpoint of the head vouches for the table's end.
 */
import { createHmac, hash } from 'node:crypto';
import { hmacSha256 } from './hmacSha256';
import type { LedgerEntry, LedgerProblem } from '../../shared/ledger';
import { canonicalJson } from '../catalog/digest';
import { LEDGER_HEAD_FILE, LEDGER_KEY_FILE, type Checkpoint } from './ledgerFiles';

/** The hash before the first entry. */
export const GENESIS = '0'.repeat(64);

/**
 * The hash that chains an entry to its predecessor. An entry written before principals existed
 * has none (null) and is hashed without the field, exactly as it was then, so old ledgers still
 * verify; a newer entry's principal is hashed with it, so setting it to null shows as an edit.
 */
export function entryHash(entry: Omit<LedgerEntry, 'hash'>, canonicalDetails = canonicalJson(entry.details)): string {
  // One-shot: the same bytes as updating with each part, at half the cost of a Hash object.
  return hash('sha256', entry.prevHash + canonicalEntry(entry, canonicalDetails));
}

/**
 * The canonical JSON (RFC 8785) of an entry as hashed: without prevHash, and without principal
 * when it is null. Made from its members, so that an append, which stores the details' canonical
 * JSON too, makes that only once: the same bytes as canonicalJson() of the whole entry.
 */
function canonicalEntry({ at, capability, kind, principal, requestId, seq, sessionId, taskId }: Omit<LedgerEntry, 'hash'>, details: string): string {
  const principalMember = principal == null ? '' : `"principal":${canonicalJson(principal)},`;
  // Members in the order RFC 8785 sorts their names.
  return `{"at":${canonicalJson(at)},"capability":${canonicalJson(capability)},"details":${details},"kind":${canonicalJson(kind)},${principalMember}"requestId":${canonicalJson(requestId)},"seq":${canonicalJson(seq)},"sessionId":${canonicalJson(sessionId)},"taskId":${canonicalJson(taskId)}}`;
}

/**
 * Entries' MAC: HMAC-SHA256 of an entry's hash, which covers its content, its seq and the hash
 * before it. Stored beside the entry (not hashed into the chain), so an entry written without the
 * key fails verification however well it chains, and an entry given another's MAC does too. Its
 * key is derived from the ledger key: a MAC under the ledger key itself would be an evidence
 * digest, which a tool could be made to produce for a result shaped like a hash.
 */
export function entryMacs(ledgerKey: Buffer): (entryHash: string) => string {
  return hmacSha256(createHmac('sha256', ledgerKey).update('capstan ledger entry v1').digest());
}

/** The first seq a checkpoint says must carry a MAC; for a record from before MACs, what it had not sealed yet. */
export const macFromOf = (checkpoint: Checkpoint) => checkpoint.macFrom ?? checkpoint.seq + 1;

export type Broken = { problem: LedgerProblem; brokenAt: number; reason: string };

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** Whether the checkpoint vouches for a table whose head is `lastSeq`; `hashAt` is the hash of the entry at the checkpoint's seq. */
export function checkHead(checkpoint: Checkpoint | 'missing' | 'tampered', lastSeq: number, hashAt: (seq: number) => string | undefined): Broken | undefined {
  if (checkpoint === 'missing') {
    if (lastSeq === 0) return undefined;
    return { problem: 'checkpoint_missing', brokenAt: lastSeq, reason: `${LEDGER_HEAD_FILE} is missing, so nothing shows whether entries after #${lastSeq} were removed` };
  }
  if (checkpoint === 'tampered') {
    return { problem: 'checkpoint_tampered', brokenAt: lastSeq, reason: `${LEDGER_HEAD_FILE} does not carry a valid MAC under ${LEDGER_KEY_FILE}: it was edited or replaced` };
  }
  if (checkpoint.seq > lastSeq) {
    const removed = plural(checkpoint.seq - lastSeq, 'entry was', 'entries were');
    return { problem: 'truncated', brokenAt: lastSeq + 1, reason: `the ledger ends at #${lastSeq}, but ${LEDGER_HEAD_FILE} sealed #${checkpoint.seq}: ${removed} removed from its end` };
  }
  if (checkpoint.seq > 0 && hashAt(checkpoint.seq) !== checkpoint.hash) {
    return { problem: 'rewritten', brokenAt: checkpoint.seq, reason: `it is not the entry ${LEDGER_HEAD_FILE} sealed: the chain was rewritten up to it with fresh hashes` };
  }
  return undefined;
}
