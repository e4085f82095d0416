/**
 * The Agent calls view: what agents did through Capstan, apart from the ledger grid's every
 * entry. One row per call (status, tool, agent, requestId, when, how long, the arguments'
 * digest as the ledger keeps it), live as the ledger grows; a row's requestId opens its ledger
 * entries. Only the newest MAX_ROWS rows are drawn: the ledger has the rest.
 */
import { useMemo, useState } from 'react';
import { agentNameOf } from '../../../shared/principal';
import { useLedger } from '../../state/ledgerStore';
import { useConsoleUi } from '../../state/uiStore';
import { clockTime, dateClockTime, formatDuration, shortHash } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { IdText } from '../../ui/IdText';
import { outcomeLook } from '../ledger/callOutcome';
import { agentCallsOf, agentNames, type AgentCall } from './agentCalls';
import './agentCalls.css';

const MAX_ROWS = 200;
const EVERY_AGENT = '';

export function AgentCallsView() {
  const held = useLedger((ledger) => ledger.entries);
  const loaded = useLedger((ledger) => ledger.loaded);
  const [agent, setAgent] = useState(EVERY_AGENT);
  const calls = agentCallsOf(held);
  const agents = useMemo(() => agentNames(calls), [calls]);
  const matching = useMemo(() => (agent === EVERY_AGENT ? calls : calls.filter((call) => call.principal === agent)), [calls, agent]);
  const shown = matching.slice(0, MAX_ROWS);
  const running = calls.filter((call) => call.state !== 'finished').length;

  return (
    <div className="agent-calls">
      <div className="agent-calls__bar">
        <label className="agent-calls__filter">
          Agent{' '}
          <select value={agent} onChange={(event) => setAgent(event.target.value)}>
            <option value={EVERY_AGENT}>Every agent</option>
            {agents.map((principal) => (
              <option key={principal} value={principal}>
                {agentNameOf(principal)}
              </option>
            ))}
          </select>
        </label>
        <p className="muted" role="status">
          {calls.length.toLocaleString()} agent {calls.length === 1 ? 'call' : 'calls'} in the ledger entries held here
          {running > 0 ? `, ${running} not finished` : ''}; arguments and results as the ledger keeps them, as digests.
          {shown.length < matching.length && ` The newest ${MAX_ROWS} are shown.`}
        </p>
      </div>
      {shown.length === 0 ? (
        <div className="empty-state">
          {loaded ? (
            <p>No agent has called a tool yet. Calls from agents&apos; tokens (over /mcp, HTTP or Harn) appear here as they are made.</p>
          ) : (
            <p className="loading">
              <Icon name="spinner" className="spin" /> Reading the ledger…
            </p>
          )}
        </div>
      ) : (
        <div className="agent-calls__scroll" tabIndex={0} role="region" aria-label="Agent calls, newest first">
          <table className="agent-calls__table">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Tool</th>
                <th scope="col">Agent</th>
                <th scope="col">requestId</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Arguments</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((call) => (
                <AgentCallRow key={call.requestId} call={call} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function AgentCallRow({ call }: { call: AgentCall }) {
  const showLedger = useConsoleUi((ui) => ui.showLedger);
  const duration = call.finished && typeof call.finished.details.durationMs === 'number' ? formatDuration(call.finished.details.durationMs) : '—';
  return (
    <tr data-testid="agent-call" data-request-id={call.requestId}>
      <td>
        <AgentCallStatus call={call} />
      </td>
      <td className="mono">{call.capability ?? '—'}</td>
      <td className="mono">{agentNameOf(call.principal)}</td>
      <td>
        <button
          type="button"
          className="link-button mono agent-calls__request"
          onClick={() => showLedger({ requestId: call.requestId })}
          title={`${call.requestId}: open its ledger entries`}
        >
          <IdText id={call.requestId} />
          <span className="visually-hidden">: open its ledger entries</span>
        </button>
      </td>
      <td className="mono" title={dateClockTime(call.startedAt)}>
        {clockTime(call.startedAt)}
      </td>
      <td className="mono">{duration}</td>
      <td className="mono" title={call.argumentsDigest ?? undefined}>
        {call.argumentsDigest ? shortHash(call.argumentsDigest) : '—'}
      </td>
    </tr>
  );
}

function AgentCallStatus({ call }: { call: AgentCall }) {
  if (call.finished) {
    const look = outcomeLook(call.finished);
    const decided = call.decision === 'approved' ? ' · approved' : '';
    return (
      <span className={`badge call-outcome call-outcome--${look.tone}`}>
        <Icon name={look.icon} />
        {look.label}
        {decided}
      </span>
    );
  }
  if (call.state === 'awaiting_approval') {
    return (
      <span className="badge call-outcome call-outcome--running">
        <Icon name="hourglass" />
        Waiting for approval
      </span>
    );
  }
  return (
    <span className="badge call-outcome call-outcome--running">
      <Icon name="spinner" className="spin" />
      Running…
    </span>
  );
}
