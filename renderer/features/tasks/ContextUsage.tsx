/**
 * A task's capability context: how many tokens its loaded tool schemas and activated skills
 * take out of the ceiling, and which ones. Admission refuses what does not fit; nothing here is
 * evicted silently.
 */
import type { TaskView } from '../../../shared/tasks';

export function ContextUsage({ context }: { context: NonNullable<TaskView['context']> }) {
  const { inUse, ceiling, items } = context;
  return (
    <div className="context-usage">
      <div className="context-usage__figures">
        <label>
          <span className="muted">Capability context</span>{' '}
          <meter min={0} max={ceiling} value={inUse} high={ceiling * 0.85} optimum={0}>
            {inUse} of {ceiling}
          </meter>
        </label>
        <span data-testid="context-use">
          {inUse.toLocaleString()} / {ceiling.toLocaleString()} tokens
        </span>
      </div>
      {items.length > 0 ? (
        <ul className="context-usage__items" aria-label="In the capability context">
          {items.map((item) => (
            <li key={`${item.id} ${item.scope}`}>
              <code>{item.id}</code> <span className="muted">{item.tokens} tokens, {item.scope === 'step' ? 'this step' : 'until the task ends'}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing loaded or activated yet.</p>
      )}
    </div>
  );
}
