/** One call in Recent executions: what it sent, how it went, the gateway's full answer, and what to do with it again. */
import { memo, useState } from 'react';
import type { ToolContract } from '../../../shared/capability';
import type { Execution } from '../../state/executionsStore';
import { useConsoleUi } from '../../state/uiStore';
import { CopyButton } from '../../ui/CopyButton';
import { errorText } from '../../ui/errorText';
import { formatDuration, shortTaskId } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { formatJson } from '../../ui/JsonBlock';
import { readErrorContent, readMcpResult } from '../results/mcpContent';
import { ProtocolLink } from '../providers/ProtocolLink';
import { ResultContent } from '../results/ResultContent';
import { RunActions } from './RunActions';
import { RunningCall } from './RunningCall';
import { VerifyEvidence } from './VerifyEvidence';

/** The longest arguments shown inline; the whole JSON is in Copy as curl and the export. */
const SHOWN_ARGUMENTS = 240;

/** One formatter for every entry: toLocaleTimeString builds one per call, which a burst of runs pays for each. */
const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** A challenge nobody answered: declined in the dialog, or left to expire. Nothing ran. */
export const notConfirmed = (execution: Execution, now = Date.now()) =>
  execution.status === 'awaiting_confirmation' &&
  (execution.declined === true || (execution.confirmationExpiresAt !== undefined && Date.parse(execution.confirmationExpiresAt) <= now));

function Status({ execution }: { execution: Execution }) {
  if (execution.status === 'awaiting_confirmation') {
    // Not a refusal: the gateway asked for a confirmation, and the call has not run.
    return (
      <span className="status status--pending" title="The gateway asked for the operator's confirmation; the call did not run">
        <Icon name="lock" /> {notConfirmed(execution) ? 'not confirmed' : 'awaiting confirmation'}
      </span>
    );
  }
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

/**
 * Memoized: each executions event brings only the runs that changed (the store keeps the others'
 * objects), so the entries that did not change are not drawn again.
 */
export const ExecutionEntry = memo(function ExecutionEntry({
  execution,
  isNewest,
  tool,
}: {
  execution: Execution;
  isNewest: boolean;
  tool: ToolContract | undefined;
}) {
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
  const args = JSON.stringify(execution.arguments);

  return (
    <li className={`execution execution--${execution.status}`} aria-label={`${execution.tool} ${execution.requestId}`}>
      <div className="execution__summary">
        <Status execution={execution} />
        <span className="execution__tool">{execution.tool}</span>
        {execution.confirmed && (
          <span className="badge badge--plain" title="The operator confirmed this call before it ran">
            confirmed
          </span>
        )}
        {/* A call waiting for its confirmation has not run: no duration to show. */}
        {execution.status !== 'awaiting_confirmation' && (
          <span className="execution__duration" title={execution.durationSource === 'gateway' ? 'Reported by the gateway' : 'Round trip seen by the console'}>
            {execution.durationMs === undefined ? '…' : formatDuration(execution.durationMs)}
          </span>
        )}
        <time className="execution__time" dateTime={new Date(execution.startedAt).toISOString()}>
          {timeOfDay.format(execution.startedAt)}
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
        <ProtocolLink capability={execution.tool} requestId={execution.requestId} />
      </div>
      {execution.response?.traceId && (
        <div className="execution__request-id">
          <span className="muted" title="The call's W3C trace id: its OpenTelemetry trace, and the one MCP servers were sent">
            trace
          </span>{' '}
          <code data-testid="trace-id">{execution.response.traceId}</code>
        </div>
      )}
      {taskId && (
        <div className="execution__request-id">
          <span className="muted">task</span>{' '}
          <button type="button" className="link-button" onClick={() => showLedger({ taskId })} title={`Show the ledger entries of ${taskId}`}>
            <code data-testid="task-id">{shortTaskId(taskId)}</code>
          </button>
        </div>
      )}
      <div className="execution__arguments">
        <span className="muted">arguments</span>{' '}
        {execution.omittedBytes !== undefined ? (
          <span className="muted">not kept: with the result, {execution.omittedBytes} bytes of JSON, over the history&apos;s limit</span>
        ) : (
          <code data-testid="execution-arguments" title={args.length > SHOWN_ARGUMENTS ? args : undefined}>
            {args.length > SHOWN_ARGUMENTS ? `${args.slice(0, SHOWN_ARGUMENTS)}…` : args}
          </code>
        )}
      </div>
      <RunActions execution={execution} tool={tool} />
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
});
