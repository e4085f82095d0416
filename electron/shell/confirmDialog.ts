/** The operator's confirmation in the desktop app: a native dialog the page can neither draw nor answer. */
import { dialog, type BrowserWindow } from 'electron';
import { confirmationPrompt, type ConfirmationRequest } from '../gateway/ipc';

export async function confirmWithDialog(parent: BrowserWindow | undefined, request: ConfirmationRequest): Promise<boolean> {
  const { options, approveId } = confirmationPrompt(request);
  const { response } =
    parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
  return approveId !== undefined && response === approveId;
}
