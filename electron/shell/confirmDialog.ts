/** The operator's confirmation in the desktop app: a native dialog the page can neither draw nor answer. */
import type { CallReview } from '../../shared/approvals';
import { confirmationPrompt } from '../transports/ipc';
import type { ElectronApi } from './electronApi';

export async function confirmWithDialog(
  dialog: ElectronApi['dialog'],
  parent: Electron.BrowserWindow | undefined,
  request: CallReview,
): Promise<boolean> {
  const { options, approveId } = confirmationPrompt(request);
  const { response } =
    parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
  return approveId !== undefined && response === approveId;
}
