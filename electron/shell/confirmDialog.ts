/** The operator's confirmation in the desktop app: a native dialog the page can neither draw nor answer. */
import type { CallReview } from '../../shared/approvals';
import { confirmationPrompt } from '../transports/ipc';
import type { ConfirmationPrompt } from '../transports/ipcConsent';
import type { ElectronApi } from './electronApi';

/** A tool call to confirm, or an agent's call to approve. */
export function confirmWithDialog(dialog: ElectronApi['dialog'], parent: Electron.BrowserWindow | undefined, request: CallReview): Promise<boolean> {
  return approveWithDialog(dialog, parent, confirmationPrompt(request));
}

/** Shows the prompt; true only when the operator chose its approving button. */
export async function approveWithDialog(dialog: ElectronApi['dialog'], parent: Electron.BrowserWindow | undefined, { options, approveId }: ConfirmationPrompt): Promise<boolean> {
  const { response } =
    parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
  return approveId !== undefined && response === approveId;
}
