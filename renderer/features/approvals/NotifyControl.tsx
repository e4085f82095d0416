/**
 * The operator's way to desktop notifications of new approvals in a browser: "Notify me" asks the
 * browser's permission then, and only then; once on, "Turn off" stops them. A browser that blocks
 * them is said so. In the desktop app main notifies by itself, which this says instead.
 */
import { useTransport } from '../../api/hooks';
import { Icon } from '../../ui/Icon';
import { useNotificationChoice, usePageNotifies } from './approvalNotifications';

export function NotifyControl() {
  const desktop = useTransport().kind === 'ipc';
  const pageNotifies = usePageNotifies();
  const { wanted, permission, enable, disable } = useNotificationChoice();
  if (desktop) return <span className="muted approvals-notify">The app notifies you of each new approval.</span>;
  if (!pageNotifies) return null;
  if (permission === 'denied') {
    return <span className="muted approvals-notify">This browser blocks notifications from this page; allow them in its site settings to be notified.</span>;
  }
  if (wanted && permission === 'granted') {
    return (
      <span className="approvals-notify" data-testid="approvals-notify">
        <span className="muted">Desktop notifications on</span>
        <button type="button" className="button button--small button--quiet" onClick={disable}>
          Turn off<span className="visually-hidden"> notifications of new approvals</span>
        </button>
      </span>
    );
  }
  return (
    <span className="approvals-notify" data-testid="approvals-notify">
      <button
        type="button"
        className="button button--small"
        onClick={() => void enable()}
        title="A desktop notification when an agent's call starts waiting for you (the browser asks you first)"
      >
        <Icon name="hourglass" />
        Notify me<span className="visually-hidden"> of new approvals</span>
      </button>
    </span>
  );
}
