/**
 * A native notification for each agent's call that starts waiting for the operator, so an
 * approval is not missed while the window is in the background. It names the agent, the tool
 * and its risk, never the arguments: notification centres keep what they show, and the
 * arguments may hold anything. Clicking it brings the window forward; once the approval has
 * ended (decided, expired, withdrawn) its notification is taken back.
 */
import type { CapstanEvent } from '../../shared/events';
import type { ElectronApi } from './electronApi';

interface Events {
  subscribe(listener: (event: CapstanEvent) => void): () => void;
}

/** Starts notifying; returns the function that stops. Does nothing where the desktop has no notifications. */
export function notifyApprovals(Notification: ElectronApi['Notification'], events: Events, window: () => Electron.BrowserWindow | undefined): () => void {
  if (!Notification.isSupported()) return () => undefined;
  // Held until their approval ends: a notification no one references may be collected, and its click lost.
  const shown = new Map<string, Electron.Notification>();
  return events.subscribe((event) => {
    if (event.type !== 'approval') return;
    const { id, status, principal, tool } = event.approval;
    if (status !== 'pending') {
      shown.get(id)?.close();
      shown.delete(id);
      return;
    }
    const notice = new Notification({ title: 'Approval needed', body: `${principal} asks to run ${tool.name} (${tool.riskLevel} risk). Review it in Approvals.` });
    notice.on('click', () => bringForward(window()));
    shown.set(id, notice);
    notice.show();
  });
}

function bringForward(target: Electron.BrowserWindow | undefined): void {
  if (!target || target.isDestroyed()) return;
  if (target.isMinimized()) target.restore();
  target.show();
  target.focus();
}
