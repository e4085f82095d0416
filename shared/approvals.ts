/**
 * Approvals as clients see them. An agent never confirms its own call: a call from an agent to
 * a tool that needs confirmation waits here until the operator approves or denies it, or until
 * it expires or its task stops. `GET /approvals` lists them, `POST /approvals/<id>` decides one,
 * and every change is an `approval` event.
 */
import { z } from 'zod';
import { RiskLevel } from './capability';

/** `pending` until one of the others; each end is recorded in the ledger (`approval_decided`). */
export const ApprovalStatus = z.enum(['pending', 'approved', 'denied', 'expired', 'withdrawn']);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/** A tool as the operator reviews it before it runs: what a confirmation dialog, an approval and a Harn permission show. */
export const ReviewedTool = z.object({ id: z.string(), name: z.string(), title: z.string(), description: z.string(), riskLevel: RiskLevel, mutating: z.boolean() });
export type ReviewedTool = z.infer<typeof ReviewedTool>;

/**
 * One call put to the operator, whichever way it is asked (the Electron dialog, the approvals
 * queue, a Harn permission): who calls, in which task, the tool and exactly the arguments it runs with.
 */
export interface CallReview {
  requestId: string;
  /** Whose call it is: `operator`, or `agent:<name>` (an agent token, a Harn script). */
  principal: string;
  taskId: string;
  sessionId: string;
  tool: ReviewedTool;
  arguments: Record<string, unknown>;
}

export const ApprovalView = z.object({
  id: z.string(),
  requestId: z.string(),
  /** Who asked: `agent:<name>`. */
  principal: z.string(),
  sessionId: z.string(),
  taskId: z.string(),
  /** The tool as the call's task saw it: the review shows what will run. */
  tool: ReviewedTool,
  /** Exactly the arguments an approval runs the call with. */
  arguments: z.record(z.string(), z.unknown()),
  /** SHA-256 of their canonical JSON: an approval may name it to say "these, and no others". */
  argumentsDigest: z.string(),
  status: ApprovalStatus,
  requestedAt: z.string(),
  expiresAt: z.string(),
  /** How long it had waited when this view was made. */
  ageMs: z.number().int().nonnegative(),
  decidedAt: z.string().nullable(),
  /** The operator's note with a decision, which a denied agent is told. */
  note: z.string().nullable(),
  /** Why it ended without a decision (expired, or its task stopped). */
  reason: z.string().nullable(),
});
export type ApprovalView = z.infer<typeof ApprovalView>;

export const ApprovalsView = z.object({
  /** Oldest first: the order they should be decided in. */
  pending: z.array(ApprovalView),
  /** The latest that ended, newest first (the gateway keeps the last 50 in memory). */
  recent: z.array(ApprovalView),
  /** How long an approval waits before it expires (config.json `approvals.timeoutMs`). */
  timeoutMs: z.number().int(),
});
export type ApprovalsView = z.infer<typeof ApprovalsView>;

export const ApprovalDecisionInput = z.strictObject({
  id: z.string().min(1).max(100),
  decision: z.enum(['approve', 'deny']),
  note: z.string().max(1000).optional(),
  /** When given, the approval holds only if the call's arguments have exactly this digest (what the operator reviewed). */
  argumentsDigest: z.string().max(128).optional(),
});
export type ApprovalDecisionInput = z.infer<typeof ApprovalDecisionInput>;
