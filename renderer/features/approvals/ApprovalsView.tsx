/**
 * The Approvals view: agents' calls waiting for the operator, oldest first (the order to decide
 * them in), then the recent ones that ended: approved (with what the call did), denied, expired,
 * or withdrawn because their task stopped. Events keep it current; nothing is polled. Opened
 * from the header's indicator or with `a`, it brings the oldest approval into view, Approve and
 * Deny included, and focuses it.
 */
import { useLayoutEffect, useRef, type RefObject } from 'react';
import type { ApprovalStatus, ApprovalView } from '../../../shared/approvals';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { clockTime } from '../../ui/format';
import { Icon, type IconName } from '../../ui/Icon';
import { ApprovalCard, span } from './ApprovalCard';
import { ApprovalOutcome } from './ApprovalOutcome';
import { APPROVALS_SHORTCUT } from './ApprovalsIndicator';
import { NotifyControl } from './NotifyControl';
import { useApprovals } from './useApprovals';
import { isAgentAsk, useAsks } from './useAsks';
import { AskAnswer } from '../tool-detail/AskAnswer';
import './approvals.css';

export function ApprovalsView() {
  const query = useApprovals();
  const view = useRef<HTMLDivElement>(null);
  useOldestInView(view, query.data !== undefined);
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
    <div className="approvals-view" ref={view}>
      <AgentCallQuestions />
      <section aria-labelledby="approvals-pending-heading" className="approvals-view__section">
        <div className="approvals-view__top">
          <h3 id="approvals-pending-heading" className="subheading">
            Waiting for you ({pending.length})
          </h3>
          <NotifyControl />
        </div>
        {pending.length === 0 ? (
          <p className="muted">
            No agent is waiting. A call from an agent to a tool that needs confirmation waits here for {span(timeoutMs)}, then fails as
            expired. When one waits, the header says so; press <kbd>{APPROVALS_SHORTCUT.toUpperCase()}</kbd> from anywhere but a text field
            to come here.
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

/**
 * What servers ask during agents' calls (elicitation, sampling): beside the agents' calls, for the
 * operator to answer, since Capstan never answers for a person. Shown only while one waits.
 */
function AgentCallQuestions() {
  const asks = useAsks();
  const waiting = asks.data?.pending.filter(isAgentAsk) ?? [];
  if (waiting.length === 0) return null;
  return (
    <section aria-labelledby="approvals-asks-heading" className="approvals-view__section">
      <h3 id="approvals-asks-heading" className="subheading">
        Questions from servers during agents&apos; calls ({waiting.length})
      </h3>
      {waiting.map((ask) => (
        <div key={ask.id} className="approval">
          <AskAnswer ask={ask} headingLevel={3} />
        </div>
      ))}
    </section>
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
      {approval.status === 'approved' ? <ApprovalOutcome requestId={approval.requestId} /> : <span className="muted">did not run</span>}
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

/**
 * Each time the operator asks for the queue (approvalsRequested grows), the oldest approval is
 * scrolled to the top of the dock and focused. When the dock, open, is too short to show it down
 * to Approve and Deny, it is maximized (Restore gives the detail pane back).
 */
/** The last request handled, kept across the view's mounts: the request that opens the dock comes before the view exists. */
let handledRequest = 0;

function useOldestInView(view: RefObject<HTMLDivElement | null>, ready: boolean): void {
  const requested = useConsoleUi((ui) => ui.approvalsRequested);
  const setDockSize = useConsoleUi((ui) => ui.setDockSize);
  useLayoutEffect(() => {
    if (!ready || handledRequest === requested) return;
    const root = view.current;
    if (!root) return;
    handledRequest = requested;
    const card = root.querySelector<HTMLElement>('.approval');
    if (!card) return;
    const panel = root.closest<HTMLElement>('.dock__panel');
    const decide = card.querySelector<HTMLElement>('.approval__decide');
    card.focus({ preventScroll: true });
    const fits = () => {
      if (!panel) return true;
      panel.scrollTop += card.getBoundingClientRect().top - panel.getBoundingClientRect().top - 8;
      return !decide || decide.getBoundingClientRect().bottom <= panel.getBoundingClientRect().bottom;
    };
    if (!fits()) {
      setDockSize('maximized');
      // The panel takes its new height on the next layout.
      requestAnimationFrame(() => void fits());
    }
  }, [requested, ready, view, setDockSize]);
}
