/**
 * One agent's call waiting for the operator, with the same review as the console's own
 * confirmation (the tool, its risk, the exact arguments) and who asks, where, and for how long
 * still. Approve runs the call once with these arguments; the decision names their digest, so
 * the gateway holds it for exactly what is shown here.
 */
import { useId, useState } from 'react';
import type { ApprovalView } from '../../../shared/approvals';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { ToolReviewRows } from '../../ui/ToolReviewRows';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { shortTaskId } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { formatJson } from '../../ui/JsonBlock';
import { visibleText } from '../../../shared/visibleText';
import { useNow } from '../../ui/useNow';
import { useDecideApproval } from './useApprovals';

/** "12 s", "3 min 5 s": how long, at a glance. */
export function span(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
}

/** The tool as the call names it: a builtin by its name, any other by its id, so one server's tool never passes for another's or a builtin. */
export const reviewedName = (tool: ApprovalView['tool']) => (tool.id.startsWith('builtin:') ? tool.name : tool.id);

export function ApprovalCard({ approval }: { approval: ApprovalView }) {
  const now = useNow();
  const decide = useDecideApproval();
  const [note, setNote] = useState('');
  const noteId = useId();
  const showLedger = useConsoleUi((ui) => ui.showLedger);
  const { id, tool, principal, sessionId, taskId, requestId, argumentsDigest } = approval;
  const left = Date.parse(approval.expiresAt) - now;
  const error = decide.error && toErrorBody(decide.error);
  const send = (decision: 'approve' | 'deny') => {
    if (decide.isPending) return;
    decide.mutate({ id, decision, argumentsDigest, ...(note.trim() ? { note: note.trim() } : {}) });
  };

  return (
    // Focusable by script: opening the queue from the header or with `a` brings the oldest here.
    <article className="approval" aria-label={`${principal} asks to run ${reviewedName(tool)}`} data-approval-id={id} tabIndex={-1}>
      <header className="approval__header">
        <Icon name="hourglass" />
        <span>
          <strong>{principal}</strong> asks to run <code className="review__tool">{reviewedName(tool)}</code>
        </span>
        <span className="muted approval__clock" title={`Requested ${approval.requestedAt}, expires ${approval.expiresAt}`}>
          asked {span(now - Date.parse(approval.requestedAt))} ago · {left > 0 ? `expires in ${span(left)}` : 'expiring'}
        </span>
      </header>
      <dl className="review">
        <ToolReviewRows shownName={reviewedName(tool)} title={tool.title} riskLevel={tool.riskLevel} mutating={tool.mutating} />
        <div className="review__row">
          <dt>Where</dt>
          <dd>
            session <code>{sessionId}</code>, task{' '}
            <button type="button" className="link-button" onClick={() => showLedger({ taskId })} title={taskId}>
              {shortTaskId(taskId)}
            </button>
            , request{' '}
            <button type="button" className="link-button" onClick={() => showLedger({ requestId })}>
              {requestId}
            </button>
          </dd>
        </div>
        <div className="review__row review__row--block">
          <dt>Arguments, exactly as they will be sent</dt>
          <dd>
            <pre className="json-block" tabIndex={0} aria-label="Arguments JSON" data-testid="approval-arguments">
              {/* Exactly as sent, and as they read: a right-to-left override or a zero-width character shows as what it is. */}
              <code>{visibleText(formatJson(approval.arguments), { keepNewlines: true })}</code>
            </pre>
          </dd>
        </div>
      </dl>
      <p className="muted">{visibleText(tool.description, { keepNewlines: true })}</p>
      <div className="approval__decide">
        <label htmlFor={noteId} className="approval__note">
          Note for the agent (optional)
          <input id={noteId} className="input" value={note} maxLength={1000} onChange={(event) => setNote(event.target.value)} />
        </label>
        {/* Deny comes first: the safe choice is the nearer one. */}
        <button type="button" className="button" onClick={() => send('deny')} aria-disabled={decide.isPending}>
          <Icon name="ban" />
          Deny
        </button>
        <button type="button" className="button button--primary button--warning" onClick={() => send('approve')} aria-disabled={decide.isPending}>
          <Icon name="check" />
          Approve and run
        </button>
      </div>
      {error && <ErrorNotice what="The decision was not taken" error={error} />}
    </article>
  );
}
