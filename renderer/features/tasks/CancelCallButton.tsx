/**
 * Cancels one running call, not its task (`POST /calls/<requestId>/cancel`): the call is told to
 * stop and gets the grace period; the task runs on. The answer says how the call ended.
 */
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { useCancelCall } from './useTasks';

export function CancelCallButton({ requestId, tool, mutating }: { requestId: string; tool: string; mutating: boolean }) {
  const cancel = useCancelCall();
  const error = cancel.error && toErrorBody(cancel.error);
  const ended = cancel.data?.status;
  return (
    <div className="cancel-call">
      <button
        type="button"
        className="button button--small button--danger"
        onClick={() => !cancel.isPending && cancel.mutate(requestId)}
        aria-disabled={cancel.isPending}
        aria-label={`Cancel call ${tool} (${requestId})`}
        title={`Stops this call alone; its task runs on.${mutating ? ' It writes data: if it does not stop within the grace period its outcome is unknown and further writes wait for an acknowledgement.' : ''}`}
      >
        <Icon name="stop" />
        {cancel.isPending ? 'Cancelling call…' : 'Cancel call'}
      </button>
      {ended && ended !== 'cancelled' && (
        <p className="muted" role="status">
          {ended === 'outcome_unknown' ? 'It did not stop within the grace period: its outcome is unknown.' : `It ended first (${ended}).`}
        </p>
      )}
      {error && <ErrorNotice what="Cancel call failed" error={error} />}
    </div>
  );
}
