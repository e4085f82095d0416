/**
 * Desktop notifications for agents' calls that start waiting, in a browser. The page never asks
 * for the permission by itself: the operator turns them on with "Notify me" in the Approvals
 * view, which asks the browser then (a prompt the operator expects), and may turn them off
 * again; the choice is kept in this browser's localStorage. In the desktop app main raises its
 * own notification for each approval (electron/shell/approvalNotice.ts), so the page raises none
 * there. A notification names the agent, the tool and its risk, never the arguments
 * (notification centres keep what they show), and is taken back once its approval has ended.
 */
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import type { ApprovalView } from '../../../shared/approvals';
import { useTransport } from '../../api/hooks';
import { useConsoleUi } from '../../state/uiStore';

const PREFERENCE_KEY = 'capstan.approvalNotifications';

/** What this browser allows, or `unsupported` where there is no Notification API (or in the desktop app, which notifies from main). */
export type NotificationPermissionState = NotificationPermission | 'unsupported';

const supported = () => typeof window !== 'undefined' && 'Notification' in window;

function storedPreference(): boolean {
  try {
    return localStorage.getItem(PREFERENCE_KEY) === 'on';
  } catch {
    return false;
  }
}

function storePreference(on: boolean): void {
  try {
    localStorage.setItem(PREFERENCE_KEY, on ? 'on' : 'off');
  } catch {
    // Storage refused (a private window's quota): the choice holds until the page closes.
  }
}

interface NotificationChoice {
  /** The operator asked for notifications here (and has not turned them off). */
  wanted: boolean;
  permission: NotificationPermissionState;
  /** Asks the browser (only now, from the operator's click) and turns notifications on if it allows them. */
  enable(): Promise<void>;
  disable(): void;
}

export const useNotificationChoice = create<NotificationChoice>()((set) => ({
  wanted: storedPreference(),
  permission: supported() ? Notification.permission : 'unsupported',
  enable: async () => {
    if (!supported()) return;
    let permission = Notification.permission;
    if (permission === 'default') permission = await Notification.requestPermission();
    const wanted = permission === 'granted';
    if (wanted) storePreference(true);
    set({ permission, wanted });
  },
  disable: () => {
    storePreference(false);
    set({ wanted: false });
  },
}));

/** Whether this page raises the notifications itself: a browser with the API; not the desktop app, whose main does. */
export function usePageNotifies(): boolean {
  return useTransport().kind === 'http' && supported();
}

/**
 * Raises a notification for each approval that starts waiting after the page first read the
 * queue, while the operator wants them and the browser allows them; clicking one brings the
 * window and the queue forward.
 */
export function useApprovalNotifications(pending: readonly ApprovalView[] | undefined): void {
  const pageNotifies = usePageNotifies();
  const wanted = useNotificationChoice((choice) => choice.wanted);
  const permission = useNotificationChoice((choice) => choice.permission);
  const showApprovals = useConsoleUi((ui) => ui.showApprovals);
  const seen = useRef<Set<string> | null>(null);
  const shown = useRef(new Map<string, Notification>());

  useEffect(() => {
    if (!pending) return;
    const waiting = new Set(pending.map((approval) => approval.id));
    // Those already waiting when the page first read the queue are on screen, not news.
    if (seen.current === null) {
      seen.current = waiting;
      return;
    }
    for (const approval of pending) {
      if (seen.current.has(approval.id)) continue;
      seen.current.add(approval.id);
      if (!pageNotifies || !wanted || permission !== 'granted' || Notification.permission !== 'granted') continue;
      const { id, principal, tool } = approval;
      try {
        const notice = new Notification('Approval needed', {
          body: `${principal} asks to run ${tool.name} (${tool.riskLevel} risk). Review it in Approvals.`,
          tag: `capstan-approval-${id}`,
        });
        notice.onclick = () => {
          window.focus();
          showApprovals();
          notice.close();
        };
        shown.current.set(id, notice);
      } catch {
        // A browser that only notifies from a service worker: the header and the title still say it.
      }
    }
    for (const [id, notice] of shown.current) {
      if (waiting.has(id)) continue;
      notice.close();
      shown.current.delete(id);
    }
  }, [pending, pageNotifies, wanted, permission, showApprovals]);

  useEffect(() => {
    const notices = shown.current;
    return () => {
      for (const notice of notices.values()) notice.close();
      notices.clear();
    };
  }, []);
}
