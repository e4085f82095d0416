/**
 * A Harn run inside its task's view: what ran (script, Harn's name and version, whether it takes
 * steers), how it ended, and its live lines: stderr, the script's messages and output, tool calls,
 * logs, progress, plans, Harn's agent events and extension updates (skills, search, workers…),
 * and each host request it made (with the call's requestId, to find it in the ledger). The log is
 * bounded like the gateway's (the last 500 lines) and scrolls by keyboard; it follows new lines
 * while the operator is at its end.
 */
import { useLayoutEffect, useRef } from 'react';
import type { HarnUpdate, HarnUpdateKind } from '../../../../shared/harn';
import { toErrorBody } from '../../../api/errors';
import { ErrorNotice } from '../../../ui/ErrorNotice';
import { useHarnRun, useHarnRuns } from './useHarnRuns';
import './harn.css';

const kindLabels: Record<HarnUpdateKind, string> = {
  status: 'run',
  stderr: 'stderr',
  message: 'message',
  thought: 'thought',
  tool_call: 'tool',
  plan: 'plan',
  log: 'log',
  progress: 'progress',
  host: 'host',
  permission: 'permission',
  protocol: 'protocol',
  output: 'output',
  agent: 'agent',
  harn: 'harn',
};

/** Renders nothing for a task that is not a Harn run. */
export function HarnRunPanel({ taskId }: { taskId: string }) {
  const runs = useHarnRuns();
  const isRun = runs.data?.runs.some((run) => run.taskId === taskId) ?? false;
  const run = useHarnRun(taskId, isRun);
  if (!isRun) return null;
  if (!run.data) return run.error ? <ErrorNotice what="Could not read the Harn run" error={toErrorBody(run.error)} /> : null;
  const { script, agent, steerable, outcome, updates, dropped } = run.data;
  return (
    <section className="harn-run" aria-label="Harn run">
      <h4 className="subheading">Harn run</h4>
      <p className="harn-run__facts">
        <code title={script}>{script}</code>
        {agent && (
          <span className="muted">
            {' '}
            · {agent.name} {agent.version}
          </span>
        )}
        <span className="muted"> · {steerable ? 'takes steers (session/inject)' : 'takes no steers'}</span>
      </p>
      {outcome && (
        <p className={`harn-run__outcome harn-run__outcome--${outcome.state}`} role="status">
          <strong>{outcome.state}</strong>: {outcome.reason}
        </p>
      )}
      <HarnLines lines={updates} dropped={dropped} />
    </section>
  );
}

function HarnLines({ lines, dropped }: { lines: readonly HarnUpdate[]; dropped: number }) {
  const box = useRef<HTMLOListElement>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    if (box.current && atEnd.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines]);
  if (lines.length === 0) return <p className="muted">No output yet.</p>;
  return (
    <>
      {dropped > 0 && <p className="muted">{dropped} earlier lines are no longer kept.</p>}
      <ol
        ref={box}
        className="harn-run__lines"
        role="log"
        aria-label="Harn run output"
        tabIndex={0}
        onScroll={(event) => {
          const { scrollTop, scrollHeight, clientHeight } = event.currentTarget;
          atEnd.current = scrollHeight - scrollTop - clientHeight < 8;
        }}
      >
        {lines.map((line) => (
          <li key={line.seq} className={`harn-line harn-line--${line.kind}`} data-kind={line.kind}>
            <span className="harn-line__kind">{kindLabels[line.kind]}</span>
            {line.status && <span className={`harn-line__status harn-line__status--${line.status}`}>{line.status}</span>}
            <span className="harn-line__text">{line.text}</span>
            {line.requestId && <code className="harn-line__request muted">{line.requestId}</code>}
          </li>
        ))}
      </ol>
    </>
  );
}
