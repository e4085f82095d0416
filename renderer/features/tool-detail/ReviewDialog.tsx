/**
 * The explicit review-and-confirm step for tools that need confirmation: the operator sees the
 * tool, its risk and the exact arguments before anything is sent. The gateway still checks the
 * confirmation; this dialog is the operator's decision, not the defence.
 */
import type { ToolDescriptor } from '../../../shared/api';
import { useTransport } from '../../api/hooks';
import { ToolReviewRows } from '../../ui/ToolReviewRows';
import { Dialog } from '../../ui/Dialog';
import { formatJson } from '../../ui/JsonBlock';
import { callName } from '../executions/useExecuteTool';

interface ReviewDialogProps {
  tool: ToolDescriptor;
  /** null while closed. */
  args: Record<string, unknown> | null;
  onCancel(): void;
  onConfirm(args: Record<string, unknown>): void;
}

export function ReviewDialog({ tool, args, onCancel, onConfirm }: ReviewDialogProps) {
  const transport = useTransport();
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
          <button type="button" className="button button--primary button--warning" onClick={() => args && onConfirm(args)}>
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
              <code>{formatJson(args ?? {})}</code>
            </pre>
          </dd>
        </div>
      </dl>
      <p className="muted">
        {tool.description}{' '}
        {transport.kind === 'ipc'
          ? 'Capstan will ask you once more in a system dialog before it runs.'
          : 'The gateway binds this confirmation to these exact arguments; it is single-use and expires after a minute.'}
      </p>
    </Dialog>
  );
}
