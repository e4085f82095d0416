/**
 * The part of Electron the shell uses, handed in by main.ts. The shell's modules never import the
 * electron package themselves, so they load under plain Node, where tests hand them a stand-in.
 * The types come from Electron's global `Electron` namespace, which is only types.
 */
export type ElectronApi = Pick<
  typeof Electron.CrossProcessExports,
  'app' | 'BrowserWindow' | 'clipboard' | 'dialog' | 'ipcMain' | 'Menu' | 'nativeTheme' | 'Notification' | 'session'
> &
  // Optional: sealing OAuth tokens and opening a sign-in's page in the system browser (oauthShell.ts).
  Partial<Pick<typeof Electron.CrossProcessExports, 'safeStorage' | 'shell'>>;
