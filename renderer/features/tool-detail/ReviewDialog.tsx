/**
 * The explicit review-and-confirm step for tools that need confirmation: the operator sees the
 * tool, its risk and the exact arguments before anything is sent. The gateway still checks the
 * confirmation; this dialog is the operator's decision, not the defence.
 */
import { useId } from 'react';
import type { ToolDescriptor } from '../../../shared/api';
import type { ArgumentProblem } from '../../../shared/argumentRules';
import { useTransport } from '../../api/hooks';
import { ToolReviewRows } from '../../ui/ToolReviewRows';
import { Dialog } from '../../ui/Dialog';
import { formatJson } from '../../ui/JsonBlock';
import { callName } from '../executions/useExecuteTool';
import { visibleText } from '../../../shared/visibleText';

interface ReviewDialogProps {
  tool: ToolDescriptor;
  /** null while closed. */
  args: Record<string, unknown> | null;
  /**
   * What the page's check finds wrong with args (argumentCheck.ts). The form opens the dialog
   * only with valid arguments; this guards the moment after, when the schema may have changed.
   * Confirm is off while there is any, since the gateway would refuse the call.
   */
  problems?: readonly ArgumentProblem[];
  onCancel(): void;
  onConfirm(args: Record<string, unknown>): void;
}

export function ReviewDialog({ tool, args, problems = [], onCancel, onConfirm }: ReviewDialogProps) {
  const transport = useTransport();
  const problemsId = useId();
  const invalid = problems.length > 0;
  return (
    <Dialog
      open={args !== null}
      onClose={onCancel}
      className="review-dialog"
      title="Review and confirm this call"
      footer={
        <>
          {/* Cancel comes first and takes focus: the safe choice is the default one. */}
          <button type="button" className="button" onClick={onCancel} autoFocus>
            Cancel
          </button>
          <button
            type="button"
            className="button button--primary button--warning"
            disabled={invalid}
            aria-describedby={invalid ? problemsId : undefined}
            onClick={() => args && !invalid && onConfirm(args)}
          >
            Confirm and run
          </button>
        </>
      }
    >
      <dl className="review">
        {/* The name the call is sent with: an MCP tool's full id, so the server is never in doubt. */}
        <ToolReviewRows shownName={callName(tool)} title={tool.title} riskLevel={tool.riskLevel} mutating={tool.mutating} />
        <div className="review__row review__row--block">
          <dt>Arguments, exactly as they will be sent</dt>
          <dd>
            <pre className="json-block" aria-label="Arguments JSON" data-testid="review-arguments">
              <code>{visibleText(formatJson(args ?? {}), { keepNewlines: true })}</code>
            </pre>
          </dd>
        </div>
      </dl>
      {invalid && (
        <div id={problemsId} className="notice notice--error review__problems" role="alert">
          <p>
            <strong>These arguments would be refused</strong>, so they cannot be confirmed. Cancel and fix them:
          </p>
          <ul>
            {problems.map((problem) => (
              <li key={`${problem.field} ${problem.message}`}>
                <code>{problem.field}</code> {problem.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="muted">
        {visibleText(tool.description, { keepNewlines: true })}{' '}
        {transport.kind === 'ipc'
          ? 'Capstan will ask you once more in a system dialog before it runs.'
          : 'The gateway binds this confirmation to these exact arguments; it is single-use and expires after a minute.'}
      </p>
    </Dialog>
  );
}
