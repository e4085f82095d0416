/**
 * What a call still waiting for its answer shows in Recent executions: the progress its tool
 * reports, live, and a way to stop it. Calls are stopped by cancelling their task (the unit
 * the gateway cancels: it tells every running call, an MCP server's included, to stop), so the
 * button says so; the task is known once the gateway reported progress for the call.
 */
import { toErrorBody } from '../../api/errors';
import type { Execution } from '../../state/executionsStore';
import { useCallProgress } from '../../state/progressStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { shortTaskId } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { CallProgressBar } from '../progress/CallProgressBar';
import { useTaskCommand } from '../tasks/useTasks';

export function RunningCall({ execution }: { execution: Execution }) {
  const report = useCallProgress(execution.requestId);
  const cancel = useTaskCommand();
  if (!report) return null;
  const error = cancel.error && toErrorBody(cancel.error);
  return (
    <div className="running-call">
      <CallProgressBar report={report} label={execution.tool} localStartedAt={execution.startedAt} />
      <button
        type="button"
        className="button button--small button--danger"
        onClick={() => !cancel.isPending && cancel.mutate({ type: 'cancel', id: report.taskId })}
        aria-disabled={cancel.isPending}
        title={`Cancels task ${report.taskId} and every call running in it`}
      >
        <Icon name="stop" />
        {cancel.isPending ? 'Cancelling…' : `Cancel its task (${shortTaskId(report.taskId)})`}
      </button>
      {error && <ErrorNotice what="Cancel failed" error={error} />}
    </div>
  );
}
