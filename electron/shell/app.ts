/**
 * The desktop app's life: one instance per data folder, the same host and HTTP gateway as
 * `capstan serve`, one hardened window that talks to the host over IPC, and a shutdown that
 * closes the gateway and the store before the app quits.
 */
import { IPC_EVENT_CHANNEL } from '../../shared/ipc';
import type { HttpGateway } from '../transports/http';
import { createIpcDispatcher } from '../transports/ipc';
import { createHost, type Host } from '../host';
import { oauthShell } from './oauthShell';
import { APP_NAME } from '../paths';
import { announce, createLogger, parseServeOptions, startServer } from '../server';
import { RENDERER_DIR } from './appPage';
import { notifyApprovals } from './approvalNotice';
import { approveWithDialog, confirmWithDialog } from './confirmDialog';
import type { ElectronApi } from './electronApi';
import { registerIpc } from './ipcHandlers';
import { installAppMenu } from './menu';
import { restrictPermissions } from './permissions';
import { createMainWindow } from './window';

export interface Shell {
  host: Host;
  gateway: HttpGateway | undefined;
  window(): Electron.BrowserWindow | undefined;
  /** Closes the gateway and the host; the app quits once it resolves. */
  shutdown(): Promise<void>;
}

/**
 * Starts the app with `capstan serve`'s options; Chromium's own flags pass through. Resolves once
 * the window is open, or with undefined when another instance already runs or the start failed:
 * a failure, a bad option included, is shown in an error dialog and the app exits with 1.
 */
export function startApp(electron: ElectronApi, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Shell | undefined> {
  const { app, dialog } = electron;
  return start(electron, args, env).catch((error: unknown) => {
    dialog.showErrorBox(`${APP_NAME} could not start`, error instanceof Error ? error.message : String(error));
    app.exit(1);
    return undefined;
  });
}

async function start(electron: ElectronApi, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Shell | undefined> {
  const { app, BrowserWindow, ipcMain, session } = electron;
  const options = parseServeOptions(args, env, { strict: false });
  // The same folder `capstan serve` uses, set before the lock because Chromium locks per folder.
  app.setName(APP_NAME);
  app.setPath('userData', options.dataDir);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }

  const logger = createLogger(options.logLevel);
  let window: Electron.BrowserWindow | undefined;
  app.on('second-instance', () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  await app.whenReady();

  // Awaited: the host may load providers asynchronously.
  // The window opens with the builtins while skills load; the catalog says which providers are still loading.
  const host = await createHost({ dataDir: app.getPath('userData'), skillsDirs: options.skillsDirs, logger, skillsInBackground: true, ...oauthShell(electron) });
  registerIpc(
    ipcMain,
    createIpcDispatcher({
      handlers: host.handlers,
      logger,
      ask: (review) => confirmWithDialog(electron.dialog, window, review),
      consent: (prompt) => approveWithDialog(electron.dialog, window, prompt),
    }),
    logger,
  );
  restrictPermissions(session.defaultSession);
  // The window works over IPC alone, so a gateway that cannot listen is logged, not fatal.
  const gateway = await startServer(host, { ...options, logger, rendererDir: RENDERER_DIR, anyPortIfTaken: true }).catch((error: unknown) => {
    logger.error({ err: error }, 'the HTTP gateway could not start; the window still works');
    return undefined;
  });
  // The address only: the token reaches a browser through Help → Copy Browser Console URL.
  if (gateway) announce(gateway, host, { withToken: false });
  app.setAboutPanelOptions({ applicationName: APP_NAME, applicationVersion: app.getVersion() });
  installAppMenu(electron, gateway?.consoleUrl);
  window = createMainWindow(electron);
  // Live events reach whichever window is open now.
  host.events.subscribe((event) => {
    if (window && !window.isDestroyed()) window.webContents.send(IPC_EVENT_CHANNEL, event);
  });
  notifyApprovals(electron.Notification, host.events, () => window);

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) window = createMainWindow(electron);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      await gateway?.close().catch((error: unknown) => logger.warn({ err: error }, 'the HTTP gateway did not close cleanly'));
      await host.close();
      logger.info('shut down');
    })());
  // Electron does not wait for async work in will-quit, so quitting waits for the shutdown, then resumes.
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    void shutdown().finally(() => {
      closed = true;
      app.quit();
    });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  return { host, gateway, window: () => window, shutdown };
}
