/**
 * What waits for the operator, as the console holds it: the approvals queue and servers'
 * questions (useAsks.ts). Each is a listing read once (and again whenever the event stream
 * opens), with events and answers patched in between. An item only ever leaves `pending`, so
 * whatever order views arrive in, an ended view wins over a pending one of the same id.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { ApprovalsView, ApprovalView } from '../../../shared/approvals';

export const approvalsQueryKey = ['approvals'] as const;
/** As many ended items as the gateway keeps. */
const RECENT = 50;

interface Waiting {
  id: string;
  status: string;
  requestedAt: string;
  expiresAt: string;
}

interface Listing<View extends Waiting> {
  pending: View[];
  recent: View[];
  timeoutMs: number;
}

/**
 * Merges a newer listing (or one event, as a listing of one: `listingOf`) into the held one. A
 * held pending item the listing does not mention is kept (it may have arrived after the listing
 * was read) until its expiry, by which time its end has arrived as an event or a listing.
 * `endedAt` orders the ended ones, newest first.
 */
export function mergeListing<View extends Waiting>(held: Listing<View> | undefined, fresh: Listing<View>, endedAt: (view: View) => string | null | undefined, now = Date.now()): Listing<View> {
  const ended = new Map<string, View>();
  for (const view of [...(held?.recent ?? []), ...fresh.recent]) ended.set(view.id, view);
  const pending = new Map<string, View>();
  for (const view of held?.pending ?? []) if (Date.parse(view.expiresAt) > now) pending.set(view.id, view);
  for (const view of fresh.pending) pending.set(view.id, view);
  for (const id of ended.keys()) pending.delete(id);
  return {
    pending: [...pending.values()].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt)),
    recent: [...ended.values()].sort((a, b) => (endedAt(b) ?? '').localeCompare(endedAt(a) ?? '')).slice(0, RECENT),
    timeoutMs: fresh.timeoutMs || (held?.timeoutMs ?? 0),
  };
}

/** One item's new state as a listing of one. */
export const listingOf = <View extends Waiting>(view: View): Listing<View> => ({
  pending: view.status === 'pending' ? [view] : [],
  recent: view.status === 'pending' ? [] : [view],
  timeoutMs: 0,
});

export const mergeApprovals = (held: ApprovalsView | undefined, fresh: ApprovalsView, now = Date.now()): ApprovalsView =>
  mergeListing(held, fresh, (view) => view.decidedAt, now);

/** One approval's new state (an event, or the answer to a decision). Before the first listing there is nothing to patch. */
export function applyApproval(client: QueryClient, view: ApprovalView): void {
  client.setQueryData<ApprovalsView>(approvalsQueryKey, (held) => held && mergeApprovals(held, listingOf(view)));
}
