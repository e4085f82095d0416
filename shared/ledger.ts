/**
 * The ledger as clients read it: an append-only, hash-chained record of capability calls,
 * confirmations, approvals, grant reductions, cancellations, acknowledgements, task transitions
 * and steers.
 * Evidence is redacted: inputs and outputs appear only as keyed digests.
 */
import { z } from 'zod';

export const LedgerKind = z.enum([
  'call_started',
  'call_finished',
  'confirmation',
  'grant_reduced',
  'cancellation',
  'acknowledgement',
  'task_transition',
  'steer',
  // An agent's call waiting for the operator (electron/services/approvals.ts), and how that ended.
  'approval_requested',
  'approval_decided',
  // Pinned contracts (electron/services/pins.ts): a server's tools pinned as the operator took
  // them, a tool held because it changed or is new, and the operator's acceptance.
  'pin_set',
  'contract_held',
  'pin_accepted',
  // A server's question to the operator during a call (elicitation, sampling: electron/services/serverAsks.ts), and how it ended.
  'server_asked',
  'server_answered',
]);
export type LedgerKind = z.infer<typeof LedgerKind>;

export const LedgerEntry = z.object({
  seq: z.number().int().positive(),
  at: z.string(),
  kind: LedgerKind,
  taskId: z.string().nullable(),
  sessionId: z.string().nullable(),
  requestId: z.string().nullable(),
  capability: z.string().nullable(),
  /** Who it was written for: `operator`, `agent:<name>` or `system` (shared/principal.ts); null on entries from before principals. */
  principal: z.string().nullable(),
  /** Kind-specific facts; never raw arguments or results, only their keyed digests. */
  details: z.record(z.string(), z.unknown()),
  prevHash: z.string(),
  hash: z.string(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const MAX_LEDGER_PAGE = 1000;

export const LedgerQuery = z.strictObject({
  taskId: z.string().max(128).optional(),
  requestId: z.string().max(128).optional(),
  capability: z.string().max(300).optional(),
  /** `operator`, `agent:<name>` or `system`. */
  principal: z.string().max(200).optional(),
  kind: LedgerKind.optional(),
  /**
   * How taskId, requestId, capability and principal match: `exact` (the default) or `contains`,
   * any part of the value, ASCII letters in either case (what the console sends as the operator
   * types a fragment of an id). The kind always matches exactly.
   */
  match: z.enum(['exact', 'contains']).optional(),
  /** Only entries with a greater sequence number. */
  after: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().positive().max(MAX_LEDGER_PAGE).optional(),
});
export type LedgerQuery = z.infer<typeof LedgerQuery>;

export type LedgerMatch = NonNullable<LedgerQuery['match']>;

/** The id fields a text filter applies to, in the order the console shows them. */
export const LEDGER_TEXT_FIELDS = ['requestId', 'taskId', 'capability', 'principal'] as const;

/** Lower-cases ASCII letters only, as SQLite's lower() does, so the gateway and the console agree on `contains`. */
export const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** Whether an entry's field matches a filter value; GET /ledger applies the same rule in SQL (runtime/ledger.ts). */
export function ledgerValueMatches(value: string | null, wanted: string, match: LedgerMatch = 'exact'): boolean {
  if (value === null) return false;
  return match === 'exact' ? value === wanted : asciiLower(value).includes(asciiLower(wanted));
}

export const LedgerPage = z.object({ entries: z.array(LedgerEntry), lastSeq: z.number().int().nonnegative() });
export type LedgerPage = z.infer<typeof LedgerPage>;

/**
 * What verification found broken: an entry `edited` (its content is not its hash), `deleted` (a
 * gap in seq), a `broken_link` (its prevHash is not the hash before it), an entry `forged` (its
 * keyed MAC is missing or wrong: written without ledger.key, however well it chains), a
 * `truncated` tail (the ledger ends before the head its keyed checkpoint sealed), a tail
 * `rewritten` with fresh hashes (the sealed seq holds another entry), or the checkpoint itself
 * missing or tampered with.
 */
export const LedgerProblem = z.enum(['edited', 'deleted', 'broken_link', 'forged', 'truncated', 'rewritten', 'checkpoint_missing', 'checkpoint_tampered']);
export type LedgerProblem = z.infer<typeof LedgerProblem>;

/** How the console and the CLI name each problem. */
export const LEDGER_PROBLEM_NAMES: Record<LedgerProblem, string> = {
  edited: 'edited entry',
  deleted: 'deleted entries',
  broken_link: 'broken link',
  forged: 'forged entry',
  truncated: 'truncated tail',
  rewritten: 'rewritten tail',
  checkpoint_missing: 'checkpoint missing',
  checkpoint_tampered: 'checkpoint tampered with',
};

export const LedgerVerification = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    entries: z.number().int(),
    lastSeq: z.number().int(),
    /** The head the keyed checkpoint vouches for; it trails lastSeq only while a commit is being sealed. */
    sealedSeq: z.number().int(),
    /**
     * Entries #1 to this seq were written before entries carried a keyed MAC, and are verified by
     * the hash chain alone (an entry appended to them by someone without ledger.key, before the
     * upgrade, cannot be told apart); 0 when every entry carries one.
     */
    chainOnlyThrough: z.number().int().nonnegative(),
  }),
  z.object({
    ok: z.literal(false),
    /** Entries that verified before the break. */
    entries: z.number().int(),
    problem: LedgerProblem,
    /** The seq where it breaks: the edited, unlinked or first missing entry, or the head the checkpoint is about. */
    brokenAt: z.number().int(),
    reason: z.string(),
  }),
]);
export type LedgerVerification = z.infer<typeof LedgerVerification>;

export const EvidenceCheckInput = z.strictObject({ requestId: z.string().min(1).max(128), result: z.unknown() });
export const EvidenceCheck = z.object({
  requestId: z.string(),
  /** The call_finished entry holding the digest, when the call is in the ledger. */
  seq: z.number().int().nullable(),
  matches: z.boolean(),
  reason: z.string(),
});
