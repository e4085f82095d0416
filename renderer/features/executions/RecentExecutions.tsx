/** Every call made from this window, newest first, kept in memory for this session only. */
import { MAX_EXECUTIONS, useExecutions } from '../../state/executionsStore';
import { ExecutionEntry } from './ExecutionEntry';

export function RecentExecutions() {
  const executions = useExecutions((state) => state.executions);
  const clear = useExecutions((state) => state.clear);
  const latest = executions[0];

  return (
    <section className="executions" aria-labelledby="executions-heading">
      <header className="executions__header">
        <h2 id="executions-heading" className="pane-heading">
          Recent executions
        </h2>
        {executions.length > 0 && (
          <button type="button" className="button button--small button--quiet" onClick={clear}>
            Clear
          </button>
        )}
      </header>
      {/* Announce each finished call once, for operators who are not looking at this panel. */}
      <p className="visually-hidden" aria-live="polite">
        {latest && latest.status !== 'running' ? `${latest.tool} finished: ${latest.status === 'ok' ? 'ok' : latest.error?.code}` : ''}
      </p>
      {executions.length === 0 ? (
        <p className="empty-state muted">
          Nothing run yet. Calls you make here appear with their requestId, so you can find them in the gateway log. The last{' '}
          {MAX_EXECUTIONS} are kept until you close this window.
        </p>
      ) : (
        <ol className="execution-list">
          {executions.map((execution, index) => (
            <ExecutionEntry key={execution.requestId} execution={execution} isNewest={index === 0} />
          ))}
        </ol>
      )}
    </section>
  );
}
