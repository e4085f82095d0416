/**
 * The Approvals view: agents' calls waiting for the operator, oldest first (the order to decide
 * them in), then the recent ones that ended: approved, denied, expired, or withdrawn because
 * their task stopped. Events keep it current; nothing is polled.
 */
import type { ApprovalStatus, ApprovalView } from '../../../shared/approvals';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { clockTime } from '../../ui/format';
import { Icon, type IconName } from '../../ui/Icon';
import { ApprovalCard, span } from './ApprovalCard';
import { useApprovals } from './useApprovals';
import './approvals.css';

export function ApprovalsView() {
  const query = useApprovals();
  if (!query.data) {
    return query.error ? (
      <ErrorNotice what="Could not read the approvals" error={toErrorBody(query.error)} />
    ) : (
      <p className="loading" role="status">
        <Icon name="spinner" className="spin" /> Reading approvals…
      </p>
    );
  }
  const { pending, recent, timeoutMs } = query.data;
  return (
    <div className="approvals-view">
      <section aria-labelledby="approvals-pending-heading" className="approvals-view__section">
        <h3 id="approvals-pending-heading" className="subheading">
          Waiting for you ({pending.length})
        </h3>
        {pending.length === 0 ? (
          <p className="muted">
            No agent is waiting. A call from an agent to a tool that needs confirmation waits here for {span(timeoutMs)}, then fails as
            expired.
          </p>
        ) : (
          pending.map((approval) => <ApprovalCard key={approval.id} approval={approval} />)
        )}
      </section>
      {recent.length > 0 && (
        <section aria-labelledby="approvals-recent-heading" className="approvals-view__section">
          <h3 id="approvals-recent-heading" className="subheading">
            Recent
          </h3>
          <ul className="approvals-recent">
            {recent.map((approval) => (
              <RecentApproval key={approval.id} approval={approval} />
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

const statusLook: Record<Exclude<ApprovalStatus, 'pending'>, { label: string; icon: IconName }> = {
  approved: { label: 'Approved', icon: 'check' },
  denied: { label: 'Denied', icon: 'ban' },
  expired: { label: 'Expired', icon: 'clock' },
  withdrawn: { label: 'Withdrawn', icon: 'stop' },
};

function RecentApproval({ approval }: { approval: ApprovalView }) {
  const showLedger = useConsoleUi((ui) => ui.showLedger);
  const look = statusLook[approval.status as Exclude<ApprovalStatus, 'pending'>];
  return (
    <li className={`approvals-recent__row approvals-recent__row--${approval.status}`} data-approval-id={approval.id}>
      <span className="badge approval-status">
        <Icon name={look.icon} />
        {look.label}
      </span>
      <code>{approval.tool.name}</code>
      <span>{approval.principal}</span>
      {approval.decidedAt && <span className="muted">{clockTime(approval.decidedAt)}</span>}
      {approval.note && <span className="approvals-recent__note">“{approval.note}”</span>}
      {approval.reason && <span className="muted">{approval.reason}</span>}
      <button type="button" className="link-button" onClick={() => showLedger({ requestId: approval.requestId })}>
        {approval.requestId}
      </button>
    </li>
  );
}
