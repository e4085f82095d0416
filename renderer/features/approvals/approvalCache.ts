/**
 * The approvals queue as the console holds it: GET /approvals read once (and again whenever the
 * event stream opens), `approval` events and decisions' answers patched in between. An approval
 * only ever leaves `pending`, so whatever order views arrive in, an ended view wins over a
 * pending one of the same id.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { ApprovalsView, ApprovalView } from '../../../shared/approvals';

export const approvalsQueryKey = ['approvals'] as const;
/** As many ended approvals as the gateway keeps. */
const RECENT = 50;

/**
 * Merges a newer listing (or one event, as a listing of one) into the held view. A held pending
 * approval the listing does not mention is kept (it may have arrived after the listing was
 * read) until its expiry, by which time its end has arrived as an event or a listing.
 */
export function mergeApprovals(held: ApprovalsView | undefined, fresh: ApprovalsView, now = Date.now()): ApprovalsView {
  const ended = new Map<string, ApprovalView>();
  for (const view of [...(held?.recent ?? []), ...fresh.recent]) ended.set(view.id, view);
  const pending = new Map<string, ApprovalView>();
  for (const view of held?.pending ?? []) if (Date.parse(view.expiresAt) > now) pending.set(view.id, view);
  for (const view of fresh.pending) pending.set(view.id, view);
  for (const id of ended.keys()) pending.delete(id);
  return {
    pending: [...pending.values()].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt)),
    recent: [...ended.values()].sort((a, b) => (b.decidedAt ?? '').localeCompare(a.decidedAt ?? '')).slice(0, RECENT),
    timeoutMs: fresh.timeoutMs || (held?.timeoutMs ?? 0),
  };
}

/** One approval's new state (an event, or the answer to a decision). Before the first listing there is nothing to patch. */
export function applyApproval(client: QueryClient, view: ApprovalView): void {
  client.setQueryData<ApprovalsView>(approvalsQueryKey, (held) =>
    held && mergeApprovals(held, { pending: view.status === 'pending' ? [view] : [], recent: view.status === 'pending' ? [] : [view], timeoutMs: 0 }),
  );
}
