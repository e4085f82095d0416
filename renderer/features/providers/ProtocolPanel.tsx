/**
 * One MCP server's protocol view: the last JSON-RPC messages both ways, newest first, read again
 * while it is open. Each message shows its direction, kind, method, id, size and (for an answer)
 * how long it took; opened, its JSON. A message that belongs to a call names the call's
 * requestId: it filters the view to that call, and leads to the call's ledger entries.
 */
import { useDeferredValue, useState } from 'react';
import type { ProtocolMessage } from '../../../shared/protocolLog';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { formatJson } from '../../ui/JsonBlock';
import { useProtocolLog } from './useServerLog';
import './serverTalk.css';

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hour12: false });

export function ProtocolPanel({ name, requestId: initial, onBack }: { name: string; requestId: string | null; onBack(): void }) {
  const [search, setSearch] = useState('');
  const q = useDeferredValue(search.trim());
  const [requestId, setRequestId] = useState(initial);
  const [paused, setPaused] = useState(false);
  const showLedgerOnly = useConsoleUi((ui) => ui.showLedger);
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  // The ledger is in the dock, under this drawer: the drawer makes way for it.
  const showLedger = (filter: { requestId: string }) => {
    openPanel(null);
    showLedgerOnly(filter);
  };
  const view = useProtocolLog(name, q, requestId, !paused);
  const messages = [...(view.data?.messages ?? [])].reverse();

  return (
    <section className="server-talk" aria-labelledby="protocol-heading">
      <h3 id="protocol-heading" className="section-heading">
        Protocol messages of <code>{name}</code>
      </h3>
      <div className="server-talk__bar">
        <label className="server-talk__field server-talk__field--grow">
          Search
          <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} placeholder="method, id, text…" data-testid="protocol-search" />
        </label>
        <button type="button" className="button button--small" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          <Icon name={paused ? 'play' : 'pause'} />
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" className="link-button" onClick={onBack}>
          Back to the providers
        </button>
      </div>
      {requestId && (
        <p className="server-talk__call" data-testid="protocol-call">
          The messages of call <code>{requestId}</code>{' '}
          <button type="button" className="button button--small button--quiet" onClick={() => showLedger({ requestId })}>
            <Icon name="list" />
            Ledger entries
          </button>{' '}
          <button type="button" className="link-button" onClick={() => setRequestId(null)}>
            Show every message
          </button>
        </p>
      )}
      {view.error && <ErrorNotice what="Could not read the protocol messages" error={toErrorBody(view.error)} />}
      <p className="muted server-talk__count" role="status">
        {view.isPending
          ? 'Reading the messages…'
          : `${messages.length} message${messages.length === 1 ? '' : 's'}${q ? ' matching' : ''}, newest first${paused ? ' (paused)' : ''}`}
        {view.data && view.data.dropped > 0 ? `; ${view.data.dropped} older ones were dropped (the gateway keeps the last 500)` : ''}
      </p>
      <ol className="protocol-list" aria-label={`Protocol messages of ${name}`} data-testid="protocol-messages">
        {messages.map((message) => (
          <MessageRow key={message.seq} message={message} onCall={setRequestId} onLedger={(id) => showLedger({ requestId: id })} />
        ))}
      </ol>
    </section>
  );
}

function MessageRow({ message, onCall, onLedger }: { message: ProtocolMessage; onCall(requestId: string): void; onLedger(requestId: string): void }) {
  const out = message.direction === 'out';
  return (
    <li className={`protocol-message protocol-message--${message.kind}`} data-seq={message.seq}>
      <details>
        <summary>
          <span className="protocol-message__direction" title={out ? 'Capstan to the server' : 'The server to Capstan'}>
            <span aria-hidden="true">{out ? '→' : '←'}</span>
            <span className="visually-hidden">{out ? 'sent' : 'received'}</span>
          </span>{' '}
          <span className="badge badge--plain">{message.kind}</span> <code>{message.method ?? '—'}</code>
          {message.id !== null && <span className="muted"> #{message.id}</span>}
          <span className="protocol-message__figures">
            {message.durationMs !== null && <span>{Math.round(message.durationMs)} ms</span>}
            <span>{message.size} B</span>
            <time dateTime={message.at}>{timeOfDay.format(new Date(message.at))}</time>
          </span>
          {message.requestId && (
            <span className="protocol-message__request">
              {' '}
              call <code>{message.requestId}</code>
            </span>
          )}
        </summary>
        {message.requestId && (
          <p className="protocol-message__links">
            <button type="button" className="link-button" onClick={() => onCall(message.requestId!)}>
              Only this call&apos;s messages
            </button>{' '}
            <button type="button" className="link-button" onClick={() => onLedger(message.requestId!)}>
              This call&apos;s ledger entries
            </button>
          </p>
        )}
        <pre className="json-block" tabIndex={0} aria-label={`Message ${message.seq} as JSON`}>
          <code>{pretty(message.json)}</code>
        </pre>
      </details>
    </li>
  );
}

/** The message indented, when it is whole JSON (a cut one is shown as it came). */
function pretty(json: string): string {
  try {
    return formatJson(JSON.parse(json));
  } catch {
    return json;
  }
}
