/**
 * Mutating calls whose outcome is unknown (they neither finished nor stopped within the grace
 * period). Until the operator acknowledges each one, the gateway refuses every new mutating
 * call in the session with MUTATION_BLOCKED; reads still run.
 */
import type { TasksView } from '../../../shared/tasks';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { dateTime, shortTaskId } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { useTaskCommand } from './useTasks';

type Unknown = TasksView['sessions'][number]['unknownOutcomes'][number];

export function UnknownOutcomes({ outcomes }: { outcomes: readonly Unknown[] }) {
  return (
    <section className="unknown-outcomes" aria-labelledby="unknown-outcomes-heading">
      <h3 id="unknown-outcomes-heading" className="unknown-outcomes__heading">
        <Icon name="lock" />
        Mutating calls are blocked until you acknowledge {outcomes.length === 1 ? 'this unknown outcome' : `these ${outcomes.length} unknown outcomes`}
      </h3>
      <p>
        These calls may or may not have changed something. Check the systems they touch, then acknowledge each one. Read-only calls keep
        running meanwhile.
      </p>
      <ul className="unknown-outcomes__list">
        {outcomes.map((outcome) => (
          <UnknownOutcomeRow key={outcome.requestId} outcome={outcome} />
        ))}
      </ul>
    </section>
  );
}

function UnknownOutcomeRow({ outcome }: { outcome: Unknown }) {
  const acknowledge = useTaskCommand();
  const error = acknowledge.error && toErrorBody(acknowledge.error);
  return (
    <li aria-label={`${outcome.capability} ${outcome.requestId}`}>
      <code>{outcome.capability}</code> <code className="muted">{outcome.requestId}</code>{' '}
      <span className="muted">
        in {shortTaskId(outcome.taskId)}, {dateTime(outcome.at)}
      </span>
      <button
        type="button"
        className="button button--small button--warning"
        onClick={() => !acknowledge.isPending && acknowledge.mutate({ type: 'acknowledge', id: outcome.taskId, requestId: outcome.requestId })}
        aria-disabled={acknowledge.isPending}
      >
        Acknowledge
      </button>
      {error && <ErrorNotice what="Acknowledge failed" error={error} />}
    </li>
  );
}
