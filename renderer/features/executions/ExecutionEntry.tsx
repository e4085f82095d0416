/** One call in Recent executions: who, what, how it went, and the gateway's full answer. */
import { useState } from 'react';
import type { Execution } from '../../state/executionsStore';
import { useConsoleUi } from '../../state/uiStore';
import { CopyButton } from '../../ui/CopyButton';
import { errorText } from '../../ui/errorText';
import { formatDuration, shortTaskId } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { formatJson } from '../../ui/JsonBlock';
import { readErrorContent, readMcpResult } from '../results/mcpContent';
import { ResultContent } from '../results/ResultContent';
import { RunningCall } from './RunningCall';
import { VerifyEvidence } from './VerifyEvidence';

function Status({ execution }: { execution: Execution }) {
  if (execution.status === 'running') {
    return (
      <span className="status status--running">
        <Icon name="spinner" className="spin" /> running
      </span>
    );
  }
  if (execution.status === 'ok') {
    return (
      <span className="status status--ok">
        <Icon name="check" /> ok
      </span>
    );
  }
  return (
    <span className="status status--error">
      <Icon name="alert" /> {execution.error?.code ?? 'error'}
    </span>
  );
}

export function ExecutionEntry({ execution, isNewest }: { execution: Execution; isNewest: boolean }) {
  // Only the newest answer is open by itself, so the panel stays short; once the operator opens
  // or closes an entry, it stays that way.
  const [chosen, setChosen] = useState<boolean | null>(null);
  // An MCP result's content is drawn as such (images, text, resources); its JSON then stays closed until asked for.
  const content = execution.response ? readMcpResult(execution.response.result) : execution.error ? readErrorContent(execution.error) : null;
  const open = chosen ?? (isNewest && !content);
  // Refused before it joined a task (unknown tool, bad arguments): no task, and nothing of it in the ledger.
  const { taskId } = execution;
  // A failure is shown as the envelope the gateway sent (or would have, had it answered).
  const answer =
    execution.response ??
    (execution.error ? { ok: false, requestId: execution.requestId, ...(taskId ? { taskId } : {}), error: execution.error } : undefined);
  const json = answer === undefined ? '' : formatJson(answer);
  const showLedger = useConsoleUi((ui) => ui.showLedger);

  return (
    <li className={`execution execution--${execution.status}`} aria-label={`${execution.tool} ${execution.requestId}`}>
      <div className="execution__summary">
        <Status execution={execution} />
        <span className="execution__tool">{execution.tool}</span>
        {execution.confirmed && <span className="badge badge--plain">confirmed</span>}
        <span className="execution__duration" title={execution.durationSource === 'gateway' ? 'Reported by the gateway' : 'Round trip seen by the console'}>
          {execution.durationMs === undefined ? '…' : formatDuration(execution.durationMs)}
        </span>
        <time className="execution__time" dateTime={new Date(execution.startedAt).toISOString()}>
          {new Date(execution.startedAt).toLocaleTimeString()}
        </time>
      </div>
      <div className="execution__request-id">
        <span className="muted">requestId</span> <code data-testid="request-id">{execution.requestId}</code>
        {taskId && (
          <button
            type="button"
            className="button button--small button--quiet"
            onClick={() => showLedger({ requestId: execution.requestId })}
            title="Show this call's ledger entries"
          >
            <Icon name="list" />
            Ledger entries
          </button>
        )}
      </div>
      {taskId && (
        <div className="execution__request-id">
          <span className="muted">task</span>{' '}
          <button type="button" className="link-button" onClick={() => showLedger({ taskId })} title={`Show the ledger entries of ${taskId}`}>
            <code data-testid="task-id">{shortTaskId(taskId)}</code>
          </button>
        </div>
      )}
      {execution.status === 'running' && <RunningCall execution={execution} />}
      {execution.response && <VerifyEvidence requestId={execution.requestId} result={execution.response.result} />}
      {execution.error && (
        <p className="execution__error">{errorText(execution.error)}</p>
      )}
      {content && <ResultContent result={content} label={execution.tool} />}
      {answer !== undefined && (
        <details
          className="execution__json"
          open={open}
          onToggle={(event) => {
            // The event also fires when `open` changes from here; only a change by the operator is a choice.
            if (event.currentTarget.open !== open) setChosen(event.currentTarget.open);
          }}
        >
          <summary>{execution.status === 'ok' ? 'Result JSON' : 'Response JSON'}</summary>
          <div className="execution__json-actions">
            <CopyButton text={json} label="Copy JSON" />
          </div>
          <pre className="json-block" tabIndex={0} aria-label={`${execution.tool} response JSON`}>
            <code>{json}</code>
          </pre>
        </details>
      )}
    </li>
  );
}
