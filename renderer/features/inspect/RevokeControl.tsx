/**
 * Revoke or restore a capability. Revoking is global and immediate (the gateway refuses the
 * capability in every task, whatever snapshot holds it), so the operator states the intent
 * twice: the first button only opens a confirmation saying exactly what will happen.
 */
import { useState } from 'react';
import { useSetCapabilityRevoked } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { errorText } from '../../ui/errorText';
import { Icon } from '../../ui/Icon';

export function RevokeControl({ id, revoked }: { id: string; revoked: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const change = useSetCapabilityRevoked();
  const verb = revoked ? 'Restore' : 'Revoke';

  return (
    <div className="revoke">
      {confirming ? (
        <div className={`notice ${revoked ? 'notice--read-only' : 'notice--error'} revoke__confirm`} role="group" aria-label={`Confirm: ${verb.toLowerCase()} ${id}`}>
          <Icon name={revoked ? 'check' : 'ban'} />
          <div className="revoke__text">
            {revoked ? (
              <p>
                Restore <code>{id}</code>? It becomes available again to this console, to tasks and to models, within their grants.
              </p>
            ) : (
              <p>
                Revoke <code>{id}</code>? The gateway will refuse it everywhere at once: this console, every task (calls fail with{' '}
                <code>CAPABILITY_REVOKED</code>) and model discovery, until you restore it.
              </p>
            )}
            <div className="revoke__actions">
              {/* Cancel first and focused: the safe choice is the default one. */}
              <button type="button" className="button" onClick={() => setConfirming(false)} autoFocus>
                Cancel
              </button>
              <button
                type="button"
                className={`button button--primary ${revoked ? '' : 'button--danger-solid'}`}
                disabled={change.isPending}
                onClick={() => change.mutate({ id, revoked: !revoked }, { onSuccess: () => setConfirming(false) })}
              >
                {change.isPending ? `${verb === 'Revoke' ? 'Revoking' : 'Restoring'}…` : `${verb} ${id}`}
              </button>
            </div>
          </div>
        </div>
      ) : (
        <button type="button" className={`button ${revoked ? '' : 'button--danger'}`} onClick={() => setConfirming(true)}>
          <Icon name={revoked ? 'check' : 'ban'} />
          {verb}…
        </button>
      )}
      {change.error && (
        <p className="notice notice--error" role="alert">
          Could not {verb.toLowerCase()}: {errorText(toErrorBody(change.error))}
        </p>
      )}
    </div>
  );
}
