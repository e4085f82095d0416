/**
 * Agents' calls waiting for the operator, where they cannot be missed: the header says how many
 * and how long the oldest has waited ("2 approvals · oldest 1 min") and opens the queue; the
 * document title reads `(2) Capstan`, so a background tab shows it too; a desktop notification
 * when one arrives (approvalNotifications.ts); and the `a` key opens the queue from anywhere
 * but a text field.
 */
import { useEffect } from 'react';
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';
import { useNow } from '../../ui/useNow';
import { useApprovalNotifications } from './approvalNotifications';
import { useApprovals } from './useApprovals';
import { isAgentAsk, useAsks } from './useAsks';
import './approvals.css';

/** The key that opens the Approvals queue, as `aria-keyshortcuts` and the docs write it. */
export const APPROVALS_SHORTCUT = 'a';

/** "12 s", then whole minutes ("1 min"): the header's figure changes at a glance, not every second past a minute. */
export function waitSpan(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min`;
}

const BASE_TITLE = 'Capstan';

export function ApprovalsIndicator() {
  const pending = useApprovals().data?.pending;
  // A server's question during an agent's call waits in Approvals too, and is counted with them.
  const questions = useAsks().data?.pending.filter(isAgentAsk) ?? [];
  const showApprovals = useConsoleUi((ui) => ui.showApprovals);
  const waiting = (pending?.length ?? 0) + questions.length;
  useApprovalNotifications(pending);
  useApprovalsShortcut(showApprovals);

  useEffect(() => {
    document.title = waiting > 0 ? `(${waiting}) ${BASE_TITLE}` : BASE_TITLE;
  }, [waiting]);
  useEffect(() => () => void (document.title = BASE_TITLE), []);

  const oldest = [pending?.[0]?.requestedAt, questions[0]?.requestedAt].filter((at): at is string => at !== undefined).sort()[0];
  return (
    <>
      {/* Announced when the number changes, not as the oldest's clock ticks. */}
      <span className="visually-hidden" role="status">
        {waiting > 0
          ? questions.length > 0
            ? `${waiting} ${waiting === 1 ? 'thing waits' : 'things wait'} for you in Approvals: ${pending?.length ?? 0} agent ${(pending?.length ?? 0) === 1 ? 'call' : 'calls'}, ${questions.length} ${questions.length === 1 ? 'question' : 'questions'} from servers`
            : `${waiting} agent ${waiting === 1 ? 'call waits' : 'calls wait'} for your approval`
          : ''}
      </span>
      {oldest && (
        <button
          type="button"
          className="button button--attention approvals-indicator"
          onClick={showApprovals}
          aria-keyshortcuts={APPROVALS_SHORTCUT}
          title={`Agents' calls waiting for your approval: open the queue (${APPROVALS_SHORTCUT.toUpperCase()})`}
          data-testid="approvals-indicator"
        >
          <Icon name="hourglass" />
          <span className="count-badge">{waiting}</span>
          <span className="approvals-indicator__what">{waiting === 1 ? 'approval' : 'approvals'}</span>
          <OldestWait requestedAt={oldest} />
        </button>
      )}
    </>
  );
}

/** Its own component: the clock re-renders this span each second, not the header. */
function OldestWait({ requestedAt }: { requestedAt: string }) {
  const now = useNow();
  return (
    <span className="approvals-indicator__wait">
      <span className="approvals-indicator__oldest">· oldest </span>
      {waitSpan(now - Date.parse(requestedAt))}
    </span>
  );
}

const TYPING = 'input, textarea, select, [contenteditable]:not([contenteditable="false"])';

/**
 * `a` opens the Approvals queue from anywhere on the page, like `/` for the search: not where
 * it is text (a field, an editable region), not with a modifier held, not while a dialog is
 * open (its content is all the operator is working in).
 */
function useApprovalsShortcut(showApprovals: () => void): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== APPROVALS_SHORTCUT || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const target = event.target instanceof Element ? event.target : null;
      if (target?.closest(TYPING) || document.querySelector('dialog[open]')) return;
      event.preventDefault();
      showApprovals();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [showApprovals]);
}
