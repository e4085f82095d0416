/** The operator's confirmation in the desktop app: a native dialog the page can neither draw nor answer. */
import { confirmationPrompt, type ConfirmationRequest } from '../transports/ipc';
import type { ElectronApi } from './electronApi';

export async function confirmWithDialog(
  dialog: ElectronApi['dialog'],
  parent: Electron.BrowserWindow | undefined,
  request: ConfirmationRequest,
): Promise<boolean> {
  const { options, approveId } = confirmationPrompt(request);
  const { response } =
    parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
  return approveId !== undefined && response === approveId;
}
