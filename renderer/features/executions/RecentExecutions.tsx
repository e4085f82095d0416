/**
 * The operator's own calls, newest first: this page's, and those made with the operator's token
 * elsewhere (`capstan call`, curl). The gateway keeps them (shared/executions.ts), so a reload
 * shows them again; across restarts too when Settings → Run history says so.
 */
import { useMemo, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { ToolContract } from '../../../shared/capability';
import { toErrorBody } from '../../api/errors';
import { useCatalog, useTransport } from '../../api/hooks';
import { useExecutions, type Execution } from '../../state/executionsStore';
import { useConsoleUi } from '../../state/uiStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { ExecutionEntry } from './ExecutionEntry';
import { historyFileName, historyLines } from './exportHistory';
import { callName } from './useExecuteTool';

/**
 * How many runs are drawn at first, and how many more each "Show older" adds. The gateway keeps up
 * to 1,000 of the operator's calls, from curl and scripts too, and each entry is a sizeable piece of
 * DOM (its actions, evidence, result and JSON): drawing a hundred of them as a burst of calls
 * arrives stalled the page for seconds. Export and Clear still take every run.
 */
export const RUNS_SHOWN = 10;

/** The runs as a .jsonl download (Electron shows its save dialog). */
function downloadHistory(executions: readonly Execution[]): void {
  const url = URL.createObjectURL(new Blob(historyLines(executions), { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = historyFileName();
  link.click();
  // The download holds its own reference once it starts.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The catalog's tools by the names calls use (a builtin's name, any tool's id). */
function useToolsByCallName(): ReadonlyMap<string, ToolContract> {
  const capabilities = useCatalog().data?.capabilities;
  return useMemo(() => {
    const tools = new Map<string, ToolContract>();
    for (const { contract } of capabilities ?? []) {
      if (contract.kind !== 'tool') continue;
      tools.set(contract.id, contract);
      tools.set(callName(contract), contract);
    }
    return tools;
  }, [capabilities]);
}

export function RecentExecutions() {
  const executions = useExecutions((state) => state.executions);
  const settings = useExecutions((state) => state.settings);
  const received = useExecutions((state) => state.received);
  const openSettings = useConsoleUi((ui) => ui.setSettingsOpen);
  const tools = useToolsByCallName();
  const transport = useTransport();
  const [confirmingClear, setConfirmingClear] = useState(false);
  const [shown, setShown] = useState(RUNS_SHOWN);
  // Strictly the newest: in a burst most runs are still running, each with its live clock. A call
  // pushed past the window is still in the Tasks view's Running calls, with its Cancel call.
  const drawn = executions.slice(0, shown);
  const older = executions.length - drawn.length;
  const clear = useMutation({
    mutationFn: () => transport.clearExecutions(undefined),
    onSuccess: (view) => {
      received(view, true);
      setConfirmingClear(false);
    },
  });
  const latest = executions[0];
  const kept = settings
    ? `The gateway keeps the last ${settings.maxEntries}, for ${settings.maxAgeDays} days, ${settings.persist ? 'across restarts' : 'until it stops'}.`
    : '';

  return (
    <section className="executions" aria-labelledby="executions-heading">
      <header className="executions__header">
        <h2 id="executions-heading" className="pane-heading">
          Recent executions
        </h2>
        {executions.length > 0 && (
          <div className="executions__tools">
            <button type="button" className="button button--small button--quiet" onClick={() => downloadHistory(executions)} title="Download these runs as JSON lines">
              <Icon name="download" />
              Export
            </button>
            {confirmingClear ? (
              <>
                <button type="button" className="button button--small" onClick={() => setConfirmingClear(false)} autoFocus>
                  Keep
                </button>
                <button type="button" className="button button--small button--danger" onClick={() => !clear.isPending && clear.mutate()}>
                  Clear {executions.length} runs
                </button>
              </>
            ) : (
              <button type="button" className="button button--small button--quiet" onClick={() => setConfirmingClear(true)}>
                Clear…
              </button>
            )}
          </div>
        )}
      </header>
      {clear.error && <ErrorNotice what="Could not clear the history" error={toErrorBody(clear.error)} />}
      {/* Announce each finished call once, for operators who are not looking at this panel. */}
      <p className="visually-hidden" aria-live="polite">
        {latest && latest.status !== 'running' ? `${latest.tool} finished: ${latest.status === 'ok' ? 'ok' : latest.status === 'error' ? latest.error?.code : 'awaiting confirmation'}` : ''}
      </p>
      {executions.length === 0 ? (
        <p className="empty-state muted">
          Nothing run yet. Calls you make here, or with your token from <code>capstan call</code> or curl, appear with their arguments and
          requestId, so you can find them in the gateway log and the ledger. {kept}
        </p>
      ) : (
        <p className="executions__kept muted">
          {kept}{' '}
          <button type="button" className="link-button" onClick={() => openSettings(true)}>
            Change what is kept
          </button>
        </p>
      )}
      {executions.length > 0 && (
        <ol className="execution-list">
          {drawn.map((execution, index) => (
            <ExecutionEntry key={execution.id} execution={execution} isNewest={index === 0} tool={tools.get(execution.tool)} />
          ))}
        </ol>
      )}
      {older > 0 && (
        <button type="button" className="button button--small button--quiet executions__more" onClick={() => setShown((count) => count + RUNS_SHOWN)}>
          Show {Math.min(older, RUNS_SHOWN)} older of {older}
        </button>
      )}
    </section>
  );
}
