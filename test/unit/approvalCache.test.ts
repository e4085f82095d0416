/** The console's approvals queue: listings and events merge so an ended approval never comes back as pending. */
import { describe, expect, it } from 'vitest';
import type { ApprovalsView, ApprovalView } from '../../shared/approvals';
import { mergeApprovals } from '../../renderer/features/approvals/approvalCache';

const NOW = Date.parse('2026-01-01T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();

const approval = (id: string, requestedAt: number, change: Partial<ApprovalView> = {}): ApprovalView => ({
  id,
  requestId: `r-${id}`,
  principal: 'agent:claude',
  sessionId: 'agent:claude',
  taskId: 'task-1',
  tool: { id: 'builtin:http_check', name: 'http_check', title: 'HTTP check', description: 'checks', riskLevel: 'medium', mutating: false },
  arguments: { url: 'http://127.0.0.1/' },
  argumentsDigest: 'd',
  status: 'pending',
  requestedAt: at(requestedAt),
  expiresAt: at(requestedAt + 120),
  ageMs: 0,
  decidedAt: null,
  note: null,
  reason: null,
  ...change,
});
const ended = (id: string, requestedAt: number, decidedAt: number, status: ApprovalView['status'] = 'approved') =>
  approval(id, requestedAt, { status, decidedAt: at(decidedAt) });
const listing = (pending: ApprovalView[], recent: ApprovalView[] = []): ApprovalsView => ({ pending, recent, timeoutMs: 120_000 });
const ids = (views: ApprovalView[]) => views.map((view) => view.id);

describe('the approvals cache', () => {
  it('keeps pending approvals oldest first and ended ones newest first', () => {
    const merged = mergeApprovals(undefined, listing([approval('b', 5), approval('a', 1)], [ended('x', -50, -10), ended('y', -40, -5)]), NOW);
    expect(ids(merged.pending)).toEqual(['a', 'b']);
    expect(ids(merged.recent)).toEqual(['y', 'x']);
  });

  it('lets an end win over a pending view of the same approval, whichever arrives last', () => {
    const afterEvent = mergeApprovals(listing([approval('a', 1)]), listing([], [ended('a', 1, 3, 'denied')]), NOW);
    expect(afterEvent).toMatchObject({ pending: [], recent: [{ id: 'a', status: 'denied' }] });
    // A listing read before the decision answers after it: the approval stays decided.
    const staleListing = mergeApprovals(afterEvent, listing([approval('a', 1)]), NOW);
    expect(staleListing).toMatchObject({ pending: [], recent: [{ id: 'a', status: 'denied' }] });
  });

  it('keeps a pending approval a listing does not know yet, but not past its expiry', () => {
    const held = listing([approval('new', 10), approval('old', -200)]);
    expect(ids(mergeApprovals(held, listing([approval('other', 2)]), NOW).pending)).toEqual(['other', 'new']);
  });

  it('keeps at most 50 ended approvals', () => {
    const many = Array.from({ length: 60 }, (_, index) => ended(`e${index}`, index, index + 1));
    const merged = mergeApprovals(undefined, listing([], many), NOW);
    expect(merged.recent).toHaveLength(50);
    expect(merged.recent[0]!.id).toBe('e59');
  });
});
