/**
 * One MCP server's log (`notifications/message`): the lines the gateway kept, newest at the
 * bottom, growing live; a filter for the levels shown (in the page) and the level the server
 * is asked to send (`logging/setLevel`, on the gateway, for every connection after too).
 */
import { useLayoutEffect, useRef, useState } from 'react';
import { LOG_LEVELS, atLeast, type LogLevel, type ServerLogLine } from '../../../shared/serverLog';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { useServerLog, useSetServerLogLevel } from './useServerLog';
import './serverTalk.css';

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

export function ServerLogPanel({ name, onBack }: { name: string; onBack(): void }) {
  const log = useServerLog(name);
  const setLevel = useSetServerLogLevel(name);
  const [shown, setShown] = useState<LogLevel>('debug');
  const lines = (log.data?.lines ?? []).filter((line) => atLeast(line.level, shown));
  const block = useRef<HTMLDivElement>(null);
  // Whether the operator was reading the end when lines arrived: then the end stays in view (a live tail).
  const following = useRef(true);
  const last = lines.at(-1)?.seq ?? 0;
  useLayoutEffect(() => {
    const list = block.current;
    if (list && following.current) list.scrollTop = list.scrollHeight;
  }, [last, shown]);

  return (
    <section className="server-talk" aria-labelledby="server-log-heading">
      <h3 id="server-log-heading" className="section-heading">
        Log of <code>{name}</code>
      </h3>
      <div className="server-talk__bar">
        <label className="server-talk__field">
          Show
          <select value={shown} onChange={(event) => setShown(event.target.value as LogLevel)} data-testid="log-filter">
            {LOG_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level} and above
              </option>
            ))}
          </select>
        </label>
        <label className="server-talk__field">
          The server sends
          <select
            value={log.data?.level ?? ''}
            disabled={setLevel.isPending || log.data?.supported === false}
            onChange={(event) => setLevel.mutate(event.target.value as LogLevel)}
            data-testid="log-level"
          >
            <option value="" disabled>
              its own choice
            </option>
            {LOG_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level} and above
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="link-button" onClick={onBack}>
          Back to the providers
        </button>
      </div>
      {log.data?.supported === false && <p className="muted">This server did not declare logging: it sends no log lines, and takes no level.</p>}
      {log.data?.supported === null && <p className="muted">The server is not connected; the lines below are the ones kept from before.</p>}
      {setLevel.error && <ErrorNotice what="The server did not take the level" error={toErrorBody(setLevel.error)} />}
      {log.error && <ErrorNotice what="Could not read the log" error={toErrorBody(log.error)} />}
      <div
        ref={block}
        className="server-log"
        role="log"
        aria-live="polite"
        aria-label={`Log lines of ${name}`}
        tabIndex={0}
        data-testid="server-log"
        onScroll={(event) => {
          const list = event.currentTarget;
          following.current = list.scrollHeight - list.scrollTop - list.clientHeight < 4;
        }}
      >
        <ol className="server-log__lines">
          {lines.map((line) => (
            <LogLine key={line.seq} line={line} />
          ))}
        </ol>
      </div>
      <p className="muted server-talk__count">
        {lines.length === 0 ? (log.isPending ? 'Reading the log…' : 'No lines at these levels yet; new ones appear here as the server sends them.') : `${lines.length} line${lines.length === 1 ? '' : 's'} shown`}
        {log.data && log.data.dropped > 0 ? `; ${log.data.dropped} older ones were dropped (the gateway keeps the last 500)` : ''}
      </p>
    </section>
  );
}

function LogLine({ line }: { line: ServerLogLine }) {
  return (
    <li className={`server-log__line server-log__line--${atLeast(line.level, 'error') ? 'error' : atLeast(line.level, 'warning') ? 'warning' : 'plain'}`}>
      <time dateTime={line.at}>{timeOfDay.format(new Date(line.at))}</time> <span className="server-log__level">{line.level}</span>
      {line.logger && <span className="muted"> [{line.logger}]</span>} <span className="server-log__data">{line.data}</span>
    </li>
  );
}
