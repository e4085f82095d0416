/**
 * The Electron main process: the same host as `capstan serve`, one hardened window that talks to
 * it over IPC, and the loopback HTTP gateway so curl and scripts reach the same host. Kept thin on
 * purpose: everything that can run without Electron lives beside it and is tested under plain Node.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  nativeTheme,
  session,
  type IpcMain,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
  type Session,
  type WebContents,
} from 'electron';
import pino from 'pino';
import { operations, type OperationName } from '../shared/api';
import { IPC_EVENT_CHANNEL, ipcChannel } from '../shared/ipc';
import { startHttpGateway, type HttpGateway } from './gateway/http';
import { confirmationPrompt, createIpcDispatcher, isTrustedSender, type ConfirmationRequest, type IpcDispatcher } from './gateway/ipc';
import { createHost, type Host } from './host';
import type { Logger } from './logger';
import { APP_NAME, defaultDataDir } from './paths';

/** main.cjs, preload.cjs and renderer/ are built side by side into dist/. */
export const PRELOAD_PATH = join(__dirname, 'preload.cjs');
export const INDEX_HTML = join(__dirname, 'renderer', 'index.html');
/** The one page allowed to navigate, call IPC and write the clipboard. */
export const APP_URL = pathToFileURL(INDEX_HTML).href;

export const DEFAULT_PORT = 7077;

export interface ShellOptions {
  port: number;
  token: string;
  dataDir: string;
  skillsDirs: string[];
  logLevel: string;
}

/**
 * The same options as `capstan serve` (flags, then environment), so `npm start -- --port 0`
 * means one thing whether Electron or the browser fallback answers. Unknown flags belong to
 * Chromium and are left alone.
 */
export function readShellOptions(args: string[], env: NodeJS.ProcessEnv): ShellOptions {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      token: { type: 'string' },
      'data-dir': { type: 'string' },
      'skills-dir': { type: 'string', multiple: true },
      'log-level': { type: 'string' },
    },
    strict: false,
    allowPositionals: true,
  });
  const text = (value: string | boolean | undefined) => (typeof value === 'string' && value !== '' ? value : undefined);
  const port = Number(text(values.port) ?? env.CAPSTAN_PORT ?? DEFAULT_PORT);
  return {
    port: Number.isInteger(port) && port >= 0 && port <= 65535 ? port : DEFAULT_PORT,
    token: text(values.token) ?? env.CAPSTAN_TOKEN ?? randomBytes(24).toString('base64url'),
    dataDir: text(values['data-dir']) ?? defaultDataDir(env),
    skillsDirs: (values['skills-dir'] ?? []).filter((dir): dir is string => typeof dir === 'string' && dir !== ''),
    logLevel: text(values['log-level']) ?? env.CAPSTAN_LOG_LEVEL ?? 'info',
  };
}

export function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow({
    title: APP_NAME,
    width: 1280,
    height: 800,
    minWidth: 900,
    minHeight: 600,
    show: false,
    // Painted before the page loads, so a dark desktop does not flash white.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#15171c' : '#ffffff',
    webPreferences: {
      preload: PRELOAD_PATH,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    },
  });
  hardenContents(window.webContents);
  window.once('ready-to-show', () => window.show());
  // The page's CSP is the meta tag Vite writes into index.html; file:// has no headers to weaken it.
  // A page that fails to load still gets its window shown: an invisible running app helps no one.
  window.loadFile(INDEX_HTML).catch(() => window.show());
  return window;
}

/** The page may only reload itself: no navigation elsewhere, no new windows, no webviews. */
export function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => {
    if (!isTrustedSender(event.url, APP_URL)) event.preventDefault();
  });
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * Every permission is refused except writing the clipboard from Capstan's own page, which the
 * console's Copy buttons need; Chromium checks before it requests, so both handlers answer.
 */
export function restrictPermissions(target: Session): void {
  const allowed = (permission: string, requestingUrl: string | undefined) =>
    permission === 'clipboard-sanitized-write' && requestingUrl !== undefined && isTrustedSender(requestingUrl, APP_URL);
  target.setPermissionRequestHandler((_contents, permission, callback, details) => callback(allowed(permission, details.requestingUrl)));
  target.setPermissionCheckHandler((_contents, permission, _origin, details) => allowed(permission, details.requestingUrl));
}

/** Only the top frame of Capstan's own page may call; anything else gets FORBIDDEN_ORIGIN. */
export function registerIpc(ipc: Pick<IpcMain, 'handle'>, dispatcher: IpcDispatcher, logger: Logger): void {
  for (const operation of Object.keys(operations) as OperationName[]) {
    const channel = ipcChannel(operation);
    ipc.handle(channel, async (event: IpcMainInvokeEvent, payload: unknown) => {
      const frame = event.senderFrame;
      if (!frame || frame.parent !== null || !isTrustedSender(frame.url, APP_URL)) {
        logger.warn({ channel, senderUrl: frame?.url ?? null }, 'refused IPC from an untrusted frame');
        return { ok: false, error: { code: 'FORBIDDEN_ORIGIN', message: 'FORBIDDEN_ORIGIN: only Capstan’s own page may call the gateway' } };
      }
      return dispatcher(operation, payload);
    });
  }
}

/** The operator's confirmation: a native dialog the page can neither draw nor answer. */
export async function confirmWithDialog(parent: BrowserWindow | undefined, request: ConfirmationRequest): Promise<boolean> {
  const { options, approveId } = confirmationPrompt(request);
  const { response } =
    parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
  return approveId !== undefined && response === approveId;
}

export function menuTemplate(consoleUrl: string | undefined, platform: NodeJS.Platform = process.platform): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  return [
    ...(mac ? [{ role: 'appMenu' } as const] : []),
    { label: 'File', submenu: [mac ? { role: 'close' } : { role: 'quit' }] },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        { role: 'forceReload' },
        { role: 'toggleDevTools' },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        {
          // The same host answers a browser on loopback; the URL carries this run's token.
          label: 'Copy Browser Console URL',
          enabled: consoleUrl !== undefined,
          click: () => consoleUrl && clipboard.writeText(consoleUrl),
        },
        ...(mac ? [] : [{ type: 'separator' } as const, { role: 'about' } as const]),
      ],
    },
  ];
}

/** The loopback gateway on the chosen port, or any free one when that port is taken. */
async function startGateway(host: Host, options: ShellOptions, logger: pino.Logger): Promise<HttpGateway> {
  const start = (port: number) =>
    startHttpGateway({ handlers: host.handlers, events: host.events, ledger: host.ledger, logger, token: options.token, host: '127.0.0.1', port, rendererDir: join(__dirname, 'renderer') });
  try {
    return await start(options.port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || options.port === 0) throw error;
    logger.warn({ port: options.port }, 'port in use; the HTTP gateway takes any free port instead');
    return start(0);
  }
}

export interface Shell {
  host: Host;
  gateway: HttpGateway | undefined;
  window(): BrowserWindow | undefined;
  /** Closes the gateway and the host; the app quits once it resolves. */
  shutdown(): Promise<void>;
}

async function start(): Promise<Shell | undefined> {
  const options = readShellOptions(process.argv.slice(app.isPackaged ? 1 : 2), process.env);
  // The same folder `capstan serve` uses, set before the lock because Chromium locks per folder.
  app.setName(APP_NAME);
  app.setPath('userData', options.dataDir);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }

  const logger = pino({ level: options.logLevel, base: undefined }, pino.destination(2));
  let window: BrowserWindow | undefined;
  app.on('second-instance', () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  await app.whenReady();

  // Awaited: the host may load providers asynchronously.
  const host = await createHost({ dataDir: app.getPath('userData'), skillsDirs: options.skillsDirs, logger });
  registerIpc(ipcMain, createIpcDispatcher({ handlers: host.handlers, logger, confirm: (request) => confirmWithDialog(window, request) }), logger);
  restrictPermissions(session.defaultSession);
  // The window works over IPC alone, so a gateway that cannot listen is logged, not fatal.
  const gateway = await startGateway(host, options, logger).catch((error: unknown) => {
    logger.error({ err: error }, 'the HTTP gateway could not start; the window still works');
    return undefined;
  });
  if (gateway) {
    process.stdout.write(`Capstan console: ${gateway.consoleUrl}\n`);
    logger.info({ url: gateway.url, dataDir: host.dataDir }, 'gateway listening');
  }
  app.setAboutPanelOptions({ applicationName: APP_NAME, applicationVersion: app.getVersion() });
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(gateway?.consoleUrl)));
  window = createMainWindow();
  // Live events reach whichever window is open now.
  host.events.subscribe((event) => {
    if (window && !window.isDestroyed()) window.webContents.send(IPC_EVENT_CHANNEL, event);
  });

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) window = createMainWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      await gateway?.close().catch((error: unknown) => logger.warn({ err: error }, 'the HTTP gateway did not close cleanly'));
      host.close();
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

/** Resolves once the window is open (or undefined when another instance already runs). */
export const started: Promise<Shell | undefined> = start().catch((error: unknown) => {
  dialog.showErrorBox(`${APP_NAME} could not start`, error instanceof Error ? error.message : String(error));
  app.exit(1);
  return undefined;
});
