/**
 * A connected provider's health (MCP servers): its state in words and icon, why it failed,
 * when it is tried again (ticking) with Retry now, the protocol it speaks, and the last lines
 * of its stderr in a bounded block that scrolls by keyboard too.
 */
import type { ProviderStatus } from '../../../shared/capability';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { clockTime, dateTime } from '../../ui/format';
import { Icon, type IconName } from '../../ui/Icon';
import { useNow } from '../../ui/useNow';
import { formatSpan } from '../progress/progressFigures';
import { StderrTail } from './StderrTail';
import { useReconnectProvider } from './useMcpServers';

const looks: Record<ProviderStatus['state'], { label: string; icon: IconName }> = {
  ready: { label: 'Ready', icon: 'check' },
  connecting: { label: 'Connecting', icon: 'spinner' },
  failed: { label: 'Failed', icon: 'alert' },
  disabled: { label: 'Disabled', icon: 'pause' },
  sign_in_required: { label: 'Sign-in needed', icon: 'lock' },
};

export function StatusBadge({ status }: { status: ProviderStatus }) {
  const look = looks[status.state];
  return (
    <span className={`badge status-badge status-badge--${status.state}`} data-status={status.state}>
      <Icon name={look.icon} className={status.state === 'connecting' ? 'spin' : ''} />
      {look.label}
    </span>
  );
}

export function ProviderStatusView({ name, status }: { name: string; status: ProviderStatus }) {
  const reconnect = useReconnectProvider();
  const failed = status.state === 'failed';
  const error = reconnect.error && toErrorBody(reconnect.error);
  return (
    <div className="provider-status">
      {status.reason && (
        <p className={`provider-status__reason ${failed ? 'provider-status__reason--failed' : ''}`} data-testid="status-reason">
          {failed ? <Icon name="alert" /> : null} {status.reason}
        </p>
      )}
      <p className="provider-status__facts muted">
        {looks[status.state].label} since <time dateTime={status.since}>{dateTime(status.since)}</time>
        {status.protocolVersion && (
          <>
            {' · '}protocol <code data-testid="protocol-version">{status.protocolVersion}</code>
          </>
        )}
      </p>
      {(failed || status.state === 'connecting') && (
        <div className="provider-status__retry">
          {failed && status.retryAt && <NextAttempt at={status.retryAt} />}
          <button
            type="button"
            className="button button--small"
            onClick={() => !reconnect.isPending && reconnect.mutate(name)}
            aria-disabled={reconnect.isPending}
          >
            <Icon name={reconnect.isPending ? 'spinner' : 'refresh'} className={reconnect.isPending ? 'spin' : ''} />
            Retry now
          </button>
        </div>
      )}
      {error && <ErrorNotice what="Could not reconnect" error={error} />}
      {status.stderr.length > 0 && <StderrTail name={name} lines={status.stderr} open={failed} />}
    </div>
  );
}

function NextAttempt({ at }: { at: string }) {
  const now = useNow(1000);
  const inMs = Date.parse(at) - now;
  return (
    <span className="provider-status__next" data-testid="retry-at">
      <Icon name="clock" /> Next attempt at <time dateTime={at}>{clockTime(at).slice(0, 8)}</time>
      {inMs > 0 ? ` (in ${formatSpan(inMs)})` : ' (due now)'}
    </span>
  );
}
