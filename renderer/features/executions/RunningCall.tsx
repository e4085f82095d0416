/**
 * What a call still waiting for its answer shows in Recent executions: its progress as its tool
 * reports it, or else its elapsed time against its deadline (the tool's timeout), live, and
 * Cancel call, which stops this call alone (`POST /calls/<requestId>/cancel`); its task runs on.
 * Both appear once the gateway has the call's start on record (the task view lists it).
 */
import type { Execution } from '../../state/executionsStore';
import { useCallProgress } from '../../state/progressStore';
import { CallProgressBar } from '../progress/CallProgressBar';
import { CallClock } from '../tasks/CallClock';
import { CancelCallButton } from '../tasks/CancelCallButton';
import { useRunningCall } from '../tasks/useTasks';

export function RunningCall({ execution }: { execution: Execution }) {
  const report = useCallProgress(execution.requestId);
  const running = useRunningCall(execution.requestId);
  if (!report && !running) return null;
  return (
    <div className="running-call">
      {report ? (
        <CallProgressBar report={report} label={execution.tool} localStartedAt={execution.startedAt} />
      ) : (
        running && <CallClock call={running.call} label={execution.tool} localStartedAt={execution.startedAt} />
      )}
      <CancelCallButton requestId={execution.requestId} tool={execution.tool} mutating={running?.call.mutating ?? false} />
    </div>
  );
}
