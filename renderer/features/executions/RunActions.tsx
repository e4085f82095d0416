/**
 * What an operator does with a past run: run it again (its tool's form filled with the same
 * arguments, to check or change before Execute), or take it to a terminal as curl or `capstan call`.
 */
import type { ToolContract } from '../../../shared/capability';
import { useTransport } from '../../api/hooks';
import { setDraft } from '../../state/argumentDrafts';
import type { Execution } from '../../state/executionsStore';
import { useConsoleUi } from '../../state/uiStore';
import { CopyButton } from '../../ui/CopyButton';
import { Icon } from '../../ui/Icon';
import { cliCommand, curlCommand, type RunToCopy } from './commands';

export function RunActions({ execution, tool }: { execution: Execution; tool: ToolContract | undefined }) {
  const transport = useTransport();
  const select = useConsoleUi((ui) => ui.select);
  // Arguments too large to keep cannot be sent again from here.
  if (execution.omittedBytes !== undefined) return null;
  const run: RunToCopy = {
    tool: execution.tool,
    arguments: execution.arguments,
    sessionId: execution.sessionId,
    // The catalog says; a tool gone from it needed confirmation if this run had to be confirmed.
    needsConfirmation: tool?.needConfirm ?? (execution.confirmed || execution.status === 'awaiting_confirmation'),
  };
  // In the desktop app the page speaks IPC, so the command names the HTTP gateway by $CAPSTAN_URL.
  const baseUrl = transport.kind === 'http' ? window.location.origin : undefined;

  const rerun = () => {
    if (!tool) return;
    setDraft(tool.id, execution.arguments);
    select(tool.id);
    // The form is drawn on the next frame; bring it to the operator.
    requestAnimationFrame(() => document.getElementById('tool-detail-heading')?.scrollIntoView({ block: 'nearest' }));
  };

  return (
    <div className="execution__actions">
      <button
        type="button"
        className="button button--small"
        onClick={rerun}
        disabled={!tool}
        title={tool ? `Fill ${tool.name}'s form with these arguments again, to run it from there` : `${execution.tool} is not in the catalog now`}
      >
        <Icon name="refresh" />
        Re-run
      </button>
      <CopyButton text={curlCommand(run, baseUrl)} label="Copy as curl" />
      <CopyButton text={cliCommand(run)} label="Copy as CLI" />
    </div>
  );
}
