/** The facts of one task that every task view shows: id, times, catalog generation, dependency. */
import type { TaskView } from '../../../shared/tasks';
import { CopyButton } from '../../ui/CopyButton';
import { dateTime, shortTaskId } from '../../ui/format';

export function TaskFacts({ task, predecessorTitle }: { task: TaskView; predecessorTitle: string | undefined }) {
  return (
    <dl className="task-facts">
      <div>
        <dt>Id</dt>
        <dd>
          <code title={task.id} data-testid="task-id">
            {shortTaskId(task.id)}
          </code>
          <CopyButton text={task.id} label="Copy id" />
        </dd>
      </div>
      <div>
        <dt>{task.startedAt ? 'Started' : 'Submitted'}</dt>
        <dd>{dateTime(task.startedAt ?? task.createdAt)}</dd>
      </div>
      {task.endedAt && (
        <div>
          <dt>Ended</dt>
          <dd>{dateTime(task.endedAt)}</dd>
        </div>
      )}
      <div>
        <dt>Catalog generation</dt>
        <dd data-testid="task-catalog-generation">{task.catalogGeneration ?? <span className="muted">no snapshot yet</span>}</dd>
      </div>
      {task.predecessorId && (
        <div>
          <dt>After</dt>
          <dd>
            {predecessorTitle ?? <code>{shortTaskId(task.predecessorId)}</code>}
            {task.requiresSuccess && <span className="muted"> (only if it succeeds)</span>}
          </dd>
        </div>
      )}
    </dl>
  );
}
