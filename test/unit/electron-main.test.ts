/**
 * The Electron shell, part by part, handed a fake of Electron's API that records what the shell
 * asks of it (in plain fields: Vitest clears mock calls before each test). Importing a shell module
 * starts nothing, so the window, permissions, menu, IPC handlers and preload are each tested on
 * their own; one started app then checks how they are put together. The hosts behind them are real
 * (temporary data dirs), so IPC replies, the confirmation dialog and the loopback HTTP gateway run
 * end to end.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserWindow as ElectronWindow, Session } from 'electron';
import { Ajv } from 'ajv';
import type { Configuration } from 'electron-builder';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ipcChannels, type CapstanBridge } from '../../shared/ipc';
import { createIpcDispatcher } from '../../electron/transports/ipc';
import { startApp, type Shell } from '../../electron/shell/app';
import type { ElectronApi } from '../../electron/shell/electronApi';
import { APP_URL } from '../../electron/shell/appPage';
import { notifyApprovals } from '../../electron/shell/approvalNotice';
import { EventBus } from '../../electron/services/events';
import type { ApprovalView } from '../../shared/approvals';
import { approveWithDialog, confirmWithDialog } from '../../electron/shell/confirmDialog';
import { registerIpc } from '../../electron/shell/ipcHandlers';
import { menuTemplate } from '../../electron/shell/menu';
import { restrictPermissions } from '../../electron/shell/permissions';
import { createMainWindow } from '../../electron/shell/window';
import { BUILTIN } from '../support/builtins';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { CLI } from '../support/serveProcess';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';

type Handler = (event: unknown, payload: unknown) => Promise<unknown>;
type Listener = (...args: unknown[]) => unknown;

const fake = await vi.hoisted(async () => {
  const { EventEmitter } = await import('node:events');
  class WebContents extends EventEmitter {
    /** What main sent the page, as [channel, payload]. */
    readonly sent: unknown[][] = [];
    send(channel: string, payload: unknown) {
      this.sent.push([channel, payload]);
    }
    windowOpenHandler: ((details: { url: string }) => unknown) | undefined;
    setWindowOpenHandler(handler: (details: { url: string }) => unknown) {
      this.windowOpenHandler = handler;
    }
  }
  class BrowserWindow extends EventEmitter {
    static readonly created: BrowserWindow[] = [];
    static getAllWindows = () => BrowserWindow.created;
    readonly webContents = new WebContents();
    readonly loaded: string[] = [];
    readonly loadFile = async (path: string) => void this.loaded.push(path);
    readonly show = vi.fn();
    readonly focus = vi.fn();
    readonly restore = vi.fn();
    minimized = false;
    constructor(readonly options: { webPreferences: Record<string, unknown> } & Record<string, unknown>) {
      super();
      BrowserWindow.created.push(this);
    }
    isMinimized = () => this.minimized;
    isDestroyed = () => false;
  }
  /** A desktop notification: records what it says, whether it is showing, and takes clicks. */
  class Notification extends EventEmitter {
    static readonly created: Notification[] = [];
    static supported = true;
    static isSupported = () => Notification.supported;
    showing = false;
    constructor(readonly options: { title: string; body: string }) {
      super();
      Notification.created.push(this);
    }
    show() {
      this.showing = true;
    }
    close() {
      this.showing = false;
    }
  }
  const paths = new Map<string, string>();
  /** What the app was asked to do, in order. */
  const journal: string[] = [];
  const app = Object.assign(new EventEmitter(), {
    lockAvailable: true,
    /** Electron's own flag: true in an installed build. */
    isPackaged: false,
    setName: vi.fn(),
    setPath: (name: string, value: string) => {
      journal.push(`setPath ${name} ${value}`);
      paths.set(name, value);
    },
    getPath: (name: string) => paths.get(name) ?? `/nonexistent/${name}`,
    requestSingleInstanceLock: () => {
      journal.push('requestSingleInstanceLock');
      return app.lockAvailable;
    },
    whenReady: async () => undefined,
    quit: vi.fn(),
    exit: vi.fn(),
    getVersion: () => '0.1.0',
    setAboutPanelOptions: vi.fn(),
  });
  const handlers = new Map<string, Handler>();
  const permissionChecks: Listener[] = [];
  const webRequestHooks: string[] = [];
  const menus: { template: unknown; installed: boolean }[] = [];
  const exposed: [string, unknown][] = [];
  const errors: unknown[][] = [];
  return {
    journal,
    handlers,
    permissionChecks,
    webRequestHooks,
    menus,
    exposed,
    errors,
    module: {
      app,
      BrowserWindow,
      Notification,
      ipcMain: { handle: (channel: string, handler: Handler) => void handlers.set(channel, handler) },
      session: {
        defaultSession: {
          setPermissionRequestHandler: () => undefined,
          setPermissionCheckHandler: (handler: Listener) => void permissionChecks.push(handler),
          webRequest: new Proxy({}, { get: (_target, hook: string) => () => void webRequestHooks.push(hook) }),
        },
      },
      dialog: {
        showMessageBox: vi.fn(async (..._args: unknown[]) => ({ response: 0, checkboxChecked: false })),
        showErrorBox: (...args: unknown[]) => void errors.push(args),
      },
      Menu: {
        buildFromTemplate: (template: unknown) => {
          const menu = { template, installed: false };
          menus.push(menu);
          return menu;
        },
        setApplicationMenu: (menu: { installed: boolean }) => void (menu.installed = true),
      },
      nativeTheme: { shouldUseDarkColors: false },
      clipboard: { writeText: vi.fn() },
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void exposed.push([key, api]) },
      ipcRenderer: { invoke: vi.fn(), send: vi.fn(), on: vi.fn(), removeListener: vi.fn() },
    },
  };
});

// The shell is handed the fake (as main.ts hands it Electron); only the preload imports 'electron'.
vi.mock('electron', () => fake.module);

const { app, BrowserWindow, Notification, dialog, clipboard, ipcRenderer } = fake.module;
/** The stand-in handed to the shell, as main.ts hands it the real Electron. */
const electron = fake.module as unknown as ElectronApi;
type FakeWindow = InstanceType<typeof BrowserWindow>;
type MenuItem = { label?: string; role?: string; submenu?: MenuItem[]; click?: () => void; enabled?: boolean };
type Reply = { ok: boolean; value?: never; error?: { code: string; message: string } };

/** A frame of Capstan's own page, as Chromium reports it to main. */
const ourFrame = () => ({ url: `${APP_URL}#/tools`, parent: null });
/** Calls a channel as Electron would, on the handlers registered in `registry`. */
const invokeOn = (registry: Map<string, Handler>, channel: string, payload: unknown, senderFrame: unknown = ourFrame()) => {
  const handler = registry.get(channel);
  if (!handler) throw new Error(`nothing handles ${channel}`);
  return handler({ senderFrame }, payload) as Promise<Reply>;
};

let target: LoopbackServer;

beforeAll(async () => {
  target = await startLoopbackServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});

afterAll(async () => {
  await target?.close();
});

beforeEach(() => {
  target.hits.length = 0;
  dialog.showMessageBox.mockClear();
});

describe('the window', () => {
  let window: FakeWindow;
  const loadedPath = () => window.loaded[0] ?? '';

  beforeAll(() => {
    window = createMainWindow(electron) as unknown as FakeWindow;
  });

  it('runs the page isolated and sandboxed, without Node', () => {
    const { webPreferences } = window.options;
    expect(webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(webPreferences.nodeIntegrationInSubFrames).not.toBe(true);
    expect(webPreferences.allowRunningInsecureContent).not.toBe(true);
    expect(webPreferences.webviewTag).not.toBe(true);
    expect(webPreferences.experimentalFeatures).not.toBe(true);
  });

  it('has DevTools in development builds only', () => {
    expect(window.options.webPreferences.devTools).toBe(true);
    app.isPackaged = true;
    try {
      const installed = createMainWindow(electron) as unknown as FakeWindow;
      expect(installed.options.webPreferences.devTools).toBe(false);
    } finally {
      app.isPackaged = false;
    }
  });

  it('loads the built console next to the preload, and that page is the trusted one', () => {
    const { preload } = window.options.webPreferences as { preload: string };
    expect(window.loaded).toHaveLength(1);
    expect(basename(preload)).toBe('preload.cjs');
    expect(loadedPath()).toBe(join(dirname(preload), 'renderer', 'index.html'));
    expect(pathToFileURL(loadedPath()).href).toBe(APP_URL);
  });

  it('blocks navigation away from the console, but lets it reload itself', () => {
    const navigate = (url: string) => {
      const event = { url, preventDefault: vi.fn() };
      window.webContents.emit('will-navigate', event, url);
      return event.preventDefault.mock.calls.length > 0;
    };
    expect(navigate('https://attacker.example/')).toBe(true);
    expect(navigate('http://127.0.0.1:7077/')).toBe(true);
    expect(navigate('file:///etc/passwd')).toBe(true);
    expect(navigate(pathToFileURL(join(dirname(loadedPath()), 'other.html')).href)).toBe(true);
    expect(navigate(`${APP_URL}#/settings`)).toBe(false);
  });

  it('denies window.open and webviews', () => {
    const open = window.webContents.windowOpenHandler;
    expect(open?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(open?.({ url: APP_URL })).toEqual({ action: 'deny' });
    const attach = { preventDefault: vi.fn() };
    window.webContents.emit('will-attach-webview', attach, {}, {});
    expect(attach.preventDefault).toHaveBeenCalled();
  });
});

describe('the packaged app', () => {
  const config = parseYaml(readFileSync(new URL('../../build/electron-builder.yml', import.meta.url), 'utf8')) as Configuration;

  it('flips every Electron fuse a packaged Capstan can do without', () => {
    // Every fuse named, by electron-builder's own option names: a new one fails to compile here.
    const fuses = {
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      enableCookieEncryption: true,
      // The window loads index.html's ES modules from file://, which needs Electron's file privileges.
      grantFileProtocolExtraPrivileges: true,
      loadBrowserProcessSpecificV8Snapshot: false,
    } satisfies Required<Omit<NonNullable<Configuration['electronFuses']>, 'resetAdHocDarwinSignature'>>;
    expect(config.electronFuses).toEqual(fuses);
    // onlyLoadAppFromAsar needs an asar, electron-builder's default.
    expect(config.asar ?? true).toBe(true);
  });

  it('is a configuration electron-builder accepts, by its own schema', () => {
    // The schema electron-builder itself checks its configuration with.
    const schemaPath = createRequire(createRequire(import.meta.url).resolve('electron-builder')).resolve('app-builder-lib/scheme.json');
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
  });

  it('leaves source maps out of the package', () => {
    expect(config.files).toContain('!**/*.map');
  });
});

describe('permissions', () => {
  it('denies every permission except the console writing the clipboard', () => {
    let request: Parameters<Session['setPermissionRequestHandler']>[0] = null;
    let check: Parameters<Session['setPermissionCheckHandler']>[0] = null;
    restrictPermissions({
      setPermissionRequestHandler: (handler: typeof request) => void (request = handler),
      setPermissionCheckHandler: (handler: typeof check) => void (check = handler),
    } as unknown as Session);
    const requested = (permission: string, requestingUrl: string) => {
      let granted: boolean | undefined;
      request?.({} as never, permission as never, (answer) => (granted = answer), { requestingUrl, isMainFrame: true } as never);
      return granted;
    };
    const checked = (permission: string, requestingUrl?: string) =>
      check?.({} as never, permission as never, 'file:///', { requestingUrl, isMainFrame: true } as never);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'usb']) {
      expect(requested(permission, APP_URL), permission).toBe(false);
      expect(checked(permission, APP_URL), permission).toBe(false);
    }
    expect(requested('clipboard-sanitized-write', APP_URL)).toBe(true);
    expect(checked('clipboard-sanitized-write', APP_URL)).toBe(true);
    expect(requested('clipboard-sanitized-write', 'https://attacker.example/')).toBe(false);
    expect(checked('clipboard-sanitized-write')).toBe(false);
  });
});

/** An approval as the gateway publishes it. */
const approvalView = (id: string, status: ApprovalView['status']): ApprovalView => ({
  id,
  requestId: `r-${id}`,
  principal: 'agent:claude',
  sessionId: 'agent:claude',
  taskId: 'task-1',
  tool: { id: 'builtin:http_check', name: 'http_check', title: 'HTTP check', description: 'checks', riskLevel: 'medium', mutating: false },
  arguments: { url: 'https://secret-host.example/?token=s3cr3t' },
  argumentsDigest: 'd',
  status,
  requestedAt: new Date().toISOString(),
  expiresAt: new Date().toISOString(),
  ageMs: 0,
  decidedAt: null,
  note: null,
  reason: null,
});

describe('approval notifications', () => {
  it('raises one for each new approval, naming the agent and the tool but never the arguments, and takes it back when it ends', () => {
    const events = new EventBus();
    const window = new BrowserWindow({ webPreferences: {} });
    window.minimized = true;
    const before = Notification.created.length;
    const stop = notifyApprovals(electron.Notification, events, () => window as unknown as ElectronWindow);
    events.publish({ type: 'approval', approval: approvalView('a1', 'pending') });
    const [notice] = Notification.created.slice(before);
    expect(notice?.showing).toBe(true);
    expect(notice?.options.title).toBe('Approval needed');
    expect(notice?.options.body).toContain('agent:claude asks to run http_check (medium risk)');
    expect(JSON.stringify(notice?.options)).not.toMatch(/secret-host|s3cr3t/);

    notice?.emit('click');
    expect(window.restore).toHaveBeenCalled();
    expect(window.focus).toHaveBeenCalled();

    events.publish({ type: 'approval', approval: approvalView('a1', 'approved') });
    expect(notice?.showing).toBe(false);
    // Other events, and approvals that end, raise nothing.
    events.publish({ type: 'approval', approval: approvalView('a2', 'expired') });
    expect(Notification.created.length).toBe(before + 1);
    stop();
    events.publish({ type: 'approval', approval: approvalView('a3', 'pending') });
    expect(Notification.created.length).toBe(before + 1);
  });

  it('does nothing where the desktop has no notifications', () => {
    const events = new EventBus();
    Notification.supported = false;
    try {
      const before = Notification.created.length;
      notifyApprovals(electron.Notification, events, () => undefined);
      events.publish({ type: 'approval', approval: approvalView('b1', 'pending') });
      expect(Notification.created.length).toBe(before);
    } finally {
      Notification.supported = true;
    }
  });
});

describe('the menu', () => {
  it('has quit, editing, reload, devtools, zoom, window and help, and copies the browser console URL', () => {
    const url = 'http://127.0.0.1:7077/#token=menu';
    const template = menuTemplate(electron, url, { platform: 'linux', packaged: false }) as MenuItem[];
    const roles = (items: MenuItem[] | undefined): string[] => (items ?? []).flatMap((item) => [item.role ?? '', ...roles(item.submenu)]);
    expect(template.map((item) => item.label ?? item.role)).toEqual(['File', 'editMenu', 'View', 'windowMenu', 'help']);
    expect(roles(template)).toEqual(expect.arrayContaining(['quit', 'reload', 'toggleDevTools', 'resetZoom', 'zoomIn', 'zoomOut', 'about']));

    const copy = template.find((item) => item.role === 'help')?.submenu?.find((item) => item.label === 'Copy Browser Console URL');
    expect(copy?.enabled).toBe(true);
    copy?.click?.();
    expect(clipboard.writeText).toHaveBeenCalledWith(url);
  });

  it('follows macOS conventions there, and disables the copy without a gateway', () => {
    const mac = menuTemplate(electron, undefined, { platform: 'darwin' }) as MenuItem[];
    expect(mac[0]).toEqual({ role: 'appMenu' });
    expect(mac.find((item) => item.role === 'help')?.submenu).toEqual([expect.objectContaining({ enabled: false })]);
  });

  it('offers DevTools only when the app is not packaged, as its window has none then', () => {
    const roles = (items: MenuItem[] | undefined): string[] => (items ?? []).flatMap((item) => [item.role ?? '', ...roles(item.submenu)]);
    expect(roles(menuTemplate(electron, undefined, { platform: 'linux', packaged: true }) as MenuItem[])).not.toContain('toggleDevTools');
    // Unless told, it asks Electron.
    expect(roles(menuTemplate(electron, undefined, { platform: 'linux' }) as MenuItem[])).toContain('toggleDevTools');
    app.isPackaged = true;
    try {
      expect(roles(menuTemplate(electron, undefined, { platform: 'linux' }) as MenuItem[])).not.toContain('toggleDevTools');
    } finally {
      app.isPackaged = false;
    }
  });
});

describe('IPC', () => {
  const handlers = new Map<string, Handler>();
  const invoke = (channel: string, payload: unknown, senderFrame?: unknown) => invokeOn(handlers, channel, payload, senderFrame);
  let gateway: TestGateway;
  let parent: FakeWindow;

  beforeAll(async () => {
    // http_check's target is a loopback server, which its destination policy refuses unless allowed.
    gateway = await startTestGateway({ config: { httpCheck: { allow: ['127.0.0.1/32'] } } });
    parent = new BrowserWindow({ webPreferences: {} });
    const { host } = gateway;
    const confirm = (request: Parameters<typeof confirmWithDialog>[2]) => confirmWithDialog(electron.dialog, parent as unknown as ElectronWindow, request);
    const consent = (prompt: Parameters<typeof approveWithDialog>[2]) => approveWithDialog(electron.dialog, parent as unknown as ElectronWindow, prompt);
    registerIpc(
      { handle: (channel, handler) => void handlers.set(channel, handler as Handler) },
      createIpcDispatcher({ handlers: host.handlers, logger: host.logger, ask: confirm, consent }),
      host.logger,
    );
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it('handles every shared channel', () => {
    expect([...handlers.keys()].sort()).toEqual([...ipcChannels].sort());
  });

  it('refuses other pages, frames and destroyed frames with FORBIDDEN_ORIGIN, running nothing', async () => {
    const before = await invoke('capstan:getSettings', undefined);
    for (const senderFrame of [
      { url: 'https://attacker.example/', parent: null },
      { url: 'http://127.0.0.1:7077/', parent: null },
      { url: 'about:blank', parent: null },
      { url: APP_URL, parent: { url: APP_URL } },
      null,
    ]) {
      const saved = await invoke('capstan:saveSettings', { whitelist: ['http_check'] }, senderFrame);
      expect(saved, JSON.stringify(senderFrame)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_ORIGIN' } });
      const called = await invoke('capstan:callTool', { tool: 'http_check', arguments: { url: target.url } }, senderFrame);
      expect(called).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_ORIGIN' } });
    }
    expect(await invoke('capstan:getSettings', undefined)).toEqual(before);
    expect(dialog.showMessageBox).not.toHaveBeenCalled();
    expect(target.hits).toEqual([]);
  });

  it('answers a bad payload from our page with BAD_REQUEST', async () => {
    expect(await invoke('capstan:callTool', { tool: 'time_now', arguments: 'now' })).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
    expect(await invoke('capstan:saveSettings', { whitelist: [1, 2] })).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('lists the builtin tools to our page', async () => {
    const reply = await invoke('capstan:listTools', undefined);
    expect(reply.ok).toBe(true);
    const { tools } = reply.value as unknown as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name).sort()).toEqual([...BUILTIN.names].sort());
  });

  describe('a call that needs confirmation', () => {
    const args = () => ({ url: `${target.url}/release`, method: 'GET' });

    it('shows a native dialog over the window and runs once the operator approves', async () => {
      dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
      const reply = await invoke('capstan:callTool', { tool: 'http_check', arguments: args(), requestId: 'tool-registry-e1' });
      expect(reply).toMatchObject({ ok: true, value: { ok: true, requestId: 'tool-registry-e1', result: { status: 200 } } });
      expect(target.hits).toEqual([{ method: 'GET', url: '/release' }]);

      expect(dialog.showMessageBox).toHaveBeenCalledOnce();
      const [shownOver, options] = dialog.showMessageBox.mock.calls[0] as [unknown, { message: string; detail: string; buttons: string[]; defaultId: number; cancelId: number }];
      expect(shownOver).toBe(parent);
      expect(options.message).toContain('http_check');
      expect(options.detail).toContain('Risk: medium');
      expect(options.detail).toContain(JSON.stringify(args(), null, 2));
      expect(options.buttons[options.defaultId]).toBe('Cancel');
      expect(options.cancelId).toBe(options.defaultId);
    });

    it('does not run when the operator cancels', async () => {
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      const reply = await invoke('capstan:callTool', { tool: 'http_check', arguments: args() });
      expect(reply).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_REQUIRED', message: expect.stringContaining('declined') } });
      expect(dialog.showMessageBox).toHaveBeenCalledOnce();
      expect(target.hits).toEqual([]);
    });

    it('ignores a confirmation the page sends and still asks the operator', async () => {
      const issued = await gateway.call({ tool: 'http_check', arguments: args() });
      const challenge = (issued.body.error as { challenge: { id: string } }).challenge;
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      const reply = await invoke('capstan:callTool', { tool: 'http_check', arguments: args(), confirmation: challenge.id });
      expect(dialog.showMessageBox).toHaveBeenCalledOnce();
      expect(reply).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_REQUIRED' } });
      expect(target.hits).toEqual([]);
    });
  });

  describe('a change the window may not make on its own word', () => {
    type Shown = { title: string; message: string; detail: string; buttons: string[]; defaultId: number; cancelId: number };
    const shown = (call = 0) => dialog.showMessageBox.mock.calls[call]![1] as Shown;
    const servers = async () => ((await invoke('capstan:listMcpServers', undefined)).value as unknown as { servers: { name: string }[] }).servers.map((server) => server.name);
    // Saved disabled, so approving it starts nothing in the test.
    const entry = { command: process.execPath, args: ['--version'], env: { API_TOKEN: 'sk-live-0123456789abcdef' }, enabled: false };

    it('saves an MCP server only once the operator approves it in the native dialog, which shows the program it would start', async () => {
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      expect(await invoke('capstan:saveMcpServer', { name: 'injected', entry })).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_DENIED' } });
      expect(await servers()).not.toContain('injected');
      const asked = shown();
      expect(asked).toMatchObject({ title: 'Save MCP server', message: 'Save the MCP server "injected"?', buttons: ['Cancel', 'Save'] });
      expect(asked.buttons[asked.defaultId]).toBe('Cancel');
      expect(asked.cancelId).toBe(asked.defaultId);
      expect(asked.detail).toContain(`Program: ${JSON.stringify(process.execPath)}\nArguments: "--version"`);
      expect(asked.detail).toContain('Environment: API_TOKEN = [secret, 24 characters]');
      expect(asked.detail).not.toContain('sk-live');

      dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
      expect(await invoke('capstan:saveMcpServer', { name: 'injected', entry })).toMatchObject({ ok: true });
      expect(await servers()).toContain('injected');
      expect(await invoke('capstan:removeMcpServer', { name: 'injected' })).toMatchObject({ ok: true });
      expect(dialog.showMessageBox).toHaveBeenCalledTimes(2);
    });

    it('hands out an agent token only once the operator approves it', async () => {
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      expect(await invoke('capstan:createAgent', { name: 'exfiltrated' })).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_DENIED' } });
      expect(gateway.host.agents.list().map((agent) => agent.name)).not.toContain('exfiltrated');
      expect(shown()).toMatchObject({ title: 'Create agent token', message: 'Create an agent token for "exfiltrated"?' });
    });

    it('cannot approve a change too long to read in the dialog, and shows what it is with stand-ins for hidden characters', async () => {
      dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
      const padded = { ...entry, args: ['--version', 'x'.repeat(5000)] };
      expect(await invoke('capstan:saveMcpServer', { name: 'padded', entry: padded })).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_DENIED' } });
      expect(shown().buttons).toEqual(['Cancel']);
      expect(await servers()).not.toContain('padded');
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      await invoke('capstan:startHarnRun', { script: '/tmp/safe\u202Egnp.harn' });
      expect(shown(1).message).not.toContain('\u202E');
    });

    it('asks one change at a time: another the window sends while the dialog is up is refused, not queued', async () => {
      let answer!: (value: { response: number; checkboxChecked: boolean }) => void;
      dialog.showMessageBox.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
      const first = invoke('capstan:createAgent', { name: 'first-of-two' });
      await vi.waitFor(() => expect(dialog.showMessageBox).toHaveBeenCalledOnce());
      expect(await invoke('capstan:createAgent', { name: 'second-of-two' })).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_DENIED', message: expect.stringContaining('another change awaits') } });
      answer({ response: 0, checkboxChecked: false });
      expect(await first).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_DENIED' } });
      expect(dialog.showMessageBox).toHaveBeenCalledOnce();
    });

    it('asks nothing for reads, nor for changes that only take access away', async () => {
      expect(await invoke('capstan:getSettings', undefined)).toMatchObject({ ok: true });
      expect(await invoke('capstan:setProviderEnabled', { provider: 'skills', enabled: false })).toMatchObject({ ok: true });
      expect(await invoke('capstan:setCapabilityRevoked', { id: 'builtin:time_now', revoked: true })).toMatchObject({ ok: true });
      expect(dialog.showMessageBox).not.toHaveBeenCalled();
      dialog.showMessageBox.mockResolvedValue({ response: 1, checkboxChecked: false });
      expect(await invoke('capstan:setCapabilityRevoked', { id: 'builtin:time_now', revoked: false })).toMatchObject({ ok: true });
      expect(await invoke('capstan:setProviderEnabled', { provider: 'skills', enabled: true })).toMatchObject({ ok: true });
      dialog.showMessageBox.mockResolvedValue({ response: 0, checkboxChecked: false });
      expect(dialog.showMessageBox.mock.calls.map(([, options]) => (options as Shown).title)).toEqual(['Restore capability', 'Enable provider']);
    });
  });

  describe('an agent’s call waiting for approval', () => {
    let agentToken: string;
    beforeAll(() => {
      agentToken = gateway.host.agents.create('ipc-agent').token;
    });
    const agentCall = (path: string) =>
      fetch(`${gateway.url}/tools/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'http_check', arguments: { url: `${target.url}${path}` } }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
    const pending = async () => {
      for (;;) {
        const [first] = gateway.host.approvals.list().pending;
        if (first) return first;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    it('is approved from the page only once the operator confirms in the native dialog', async () => {
      const call = agentCall('/agent');
      const { id } = await pending();
      // The operator cancels the system dialog: nothing is decided, the call still waits.
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      expect(await invoke('capstan:decideApproval', { id, decision: 'approve' })).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_REQUIRED', message: expect.stringContaining('still waits') } });
      expect(gateway.host.approvals.list().pending.map((approval) => approval.id)).toEqual([id]);
      const [, options] = dialog.showMessageBox.mock.calls[0] as [unknown, { title: string; message: string; detail: string; buttons: string[] }];
      expect(options).toMatchObject({ title: 'Approve agent call', message: expect.stringContaining('agent:ipc-agent'), buttons: ['Cancel', 'Approve http_check'] });
      expect(options.detail).toContain(`${target.url}/agent`);

      dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
      expect(await invoke('capstan:decideApproval', { id, decision: 'approve' })).toMatchObject({ ok: true, value: { id, status: 'approved' } });
      expect(await call).toMatchObject({ status: 200, body: { ok: true } });
      expect(target.hits).toEqual([{ method: 'HEAD', url: '/agent' }]);
    });

    it('is denied from the page without a second question', async () => {
      const call = agentCall('/denied');
      const { id } = await pending();
      expect(await invoke('capstan:decideApproval', { id, decision: 'deny', note: 'no' })).toMatchObject({ ok: true, value: { status: 'denied' } });
      expect(dialog.showMessageBox).not.toHaveBeenCalled();
      expect(await call).toMatchObject({ status: 403, body: { error: { code: 'CONFIRMATION_DENIED' } } });
      expect(target.hits).toEqual([]);
    });
  });

  describe('through the preload', () => {
    let bridge: CapstanBridge;

    beforeAll(async () => {
      await import('../../electron/preload');
      expect(fake.exposed).toHaveLength(1);
      const [[key, api]] = fake.exposed as [[string, CapstanBridge]];
      expect(key).toBe('capstan');
      bridge = api;
      // Deliver invocations to main's handlers as Electron would, from our page.
      ipcRenderer.invoke.mockImplementation((channel: string, payload: unknown) => invoke(channel, payload));
    });

    it('exposes invoke and onEvent, and nothing of Electron', () => {
      expect(Object.keys(bridge)).toEqual(['invoke', 'onEvent']);
      expect(Object.values(bridge).every((value) => typeof value === 'function')).toBe(true);
      expect(Object.values(bridge)).not.toContain(ipcRenderer);
    });

    it('hands the page live events without the IPC event object, and stops on request', () => {
      const received: unknown[] = [];
      const stop = bridge.onEvent((event) => received.push(event));
      const [channel, forward] = ipcRenderer.on.mock.lastCall as [string, (event: unknown, payload: unknown) => void];
      expect(channel).toBe('capstan:event');
      const payload = { type: 'catalog', catalogGeneration: 3, provider: 'skills', reason: 'changed' };
      forward({ sender: 'the IpcRenderer itself' }, payload);
      expect(received).toEqual([payload]);
      stop();
      expect(ipcRenderer.removeListener).toHaveBeenCalledWith('capstan:event', forward);
    });

    it('reaches main over the shared channels', async () => {
      const reply = await bridge.invoke('callTool', { tool: 'time_now', requestId: 'tool-registry-preload' });
      expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('capstan:callTool', { tool: 'time_now', requestId: 'tool-registry-preload' });
      expect(reply).toMatchObject({ ok: true, value: { ok: true, requestId: 'tool-registry-preload' } });
    });

    it('refuses anything that is not an operation without sending it', async () => {
      ipcRenderer.invoke.mockClear();
      for (const name of ['shell:openExternal', 'constructor', '__proto__']) {
        const reply = await bridge.invoke(name as never, undefined as never);
        expect(reply).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      }
      expect(ipcRenderer.invoke).not.toHaveBeenCalled();
    });
  });
});

describe('the app', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let shell: Shell;
  let window: FakeWindow;
  let printed = '';
  const signalListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  const invoke = (channel: string, payload: unknown) => invokeOn(fake.handlers, channel, payload);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-electron-'));
    // The same variables as `capstan serve`; port 0 keeps the test off 7077.
    env = { CAPSTAN_DATA_DIR: dataDir, CAPSTAN_PORT: '0', CAPSTAN_TOKEN: 'electron-test-token-0123', CAPSTAN_LOG_LEVEL: 'silent' };
    const windowsBefore = BrowserWindow.created.length;
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed += String(chunk);
      return true;
    });
    try {
      // Chromium's own flags share the command line and are left alone.
      const started = await startApp(electron, ['--enable-logging', '--disable-gpu'], env);
      if (!started) throw new Error(`the app did not start: ${JSON.stringify(fake.errors)}`);
      shell = started;
    } finally {
      stdout.mockRestore();
    }
    const [opened] = BrowserWindow.created.slice(windowsBefore);
    if (!opened) throw new Error('no window was created');
    window = opened;
  });

  afterAll(async () => {
    await shell?.shutdown();
    // The app quits on these signals; give the test worker its own behaviour back.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) if (!signalListeners[signal].includes(listener)) process.off(signal, listener);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes the single-instance lock for the data folder before doing anything else', () => {
    // Chromium's lock is per profile folder, so the folder is chosen first.
    expect(fake.journal.slice(0, 2)).toEqual([`setPath userData ${dataDir}`, 'requestSingleInstanceLock']);
    expect(shell.host.dataDir).toBe(dataDir);
  });

  it('focuses the existing window when a second instance starts', () => {
    window.minimized = true;
    app.emit('second-instance', {}, [], '/');
    expect(window.restore).toHaveBeenCalled();
    expect(window.focus).toHaveBeenCalled();
    window.minimized = false;
  });

  it('opens the hardened console window and leaves the page’s Content-Security-Policy alone', () => {
    expect(shell.window()).toBe(window);
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(pathToFileURL(window.loaded[0] ?? '').href).toBe(APP_URL);
    expect(window.webContents.listenerCount('will-navigate')).toBe(1);
    // The policy is the meta tag in index.html; main installs nothing that could replace or weaken it.
    expect(fake.webRequestHooks).toEqual([]);
    // Its session's permissions are the restricted ones tested above.
    const [check] = fake.permissionChecks;
    expect(fake.permissionChecks).toHaveLength(1);
    expect(check?.({}, 'media', 'file:///', { requestingUrl: APP_URL, isMainFrame: true })).toBe(false);
    expect(check?.({}, 'clipboard-sanitized-write', 'file:///', { requestingUrl: APP_URL, isMainFrame: true })).toBe(true);
  });

  it('serves the same host over loopback HTTP and prints its address, never its token', async () => {
    const { gateway } = shell;
    if (!gateway) throw new Error('no HTTP gateway');
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed).toBe(`Capstan console: ${gateway.url}/\n`);
    expect(gateway.consoleUrl).toContain('electron-test-token-0123');

    // A note written over IPC is found over HTTP: one host behind both.
    const added = await invoke('capstan:callTool', { tool: 'note_add', arguments: { title: 'IPC note', body: 'written through the window' } });
    expect(added).toMatchObject({ ok: true, value: { ok: true } });
    const response = await fetch(`${gateway.url}/tools/call`, {
      method: 'POST',
      headers: { authorization: 'Bearer electron-test-token-0123', 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'note_search', arguments: { query: 'window' } }),
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('IPC note');
  });

  it('handles every shared channel, asking for confirmation over its window', async () => {
    expect([...fake.handlers.keys()].sort()).toEqual([...ipcChannels].sort());
    dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
    await invoke('capstan:callTool', { tool: 'http_check', arguments: { url: target.url } });
    expect(dialog.showMessageBox.mock.calls[0]?.[0]).toBe(window);
    expect(target.hits).toEqual([]);
  });

  it('forwards the host\'s live events to the window', () => {
    const before = window.webContents.sent.length;
    shell.host.catalog.setEnabled('skills', false);
    shell.host.catalog.setEnabled('skills', true);
    expect(window.webContents.sent.slice(before)).toEqual([
      ['capstan:event', expect.objectContaining({ type: 'catalog', provider: 'skills', reason: 'disabled' })],
      ['capstan:event', expect.objectContaining({ type: 'catalog', provider: 'skills', reason: 'enabled' })],
    ]);
  });

  it('raises a native notification when an agent’s call starts waiting for approval', () => {
    const before = Notification.created.length;
    shell.host.events.publish({ type: 'approval', approval: approvalView('app-1', 'pending') });
    expect(Notification.created.slice(before).map((notice) => notice.options.title)).toEqual(['Approval needed']);
  });

  it('installs its menu, whose copy item gives this gateway’s console URL', () => {
    const menu = fake.menus.at(-1);
    expect(menu?.installed).toBe(true);
    const template = menu?.template as MenuItem[];
    expect(template.map((item) => item.label ?? item.role)).toEqual(expect.arrayContaining(['File', 'editMenu', 'View', 'windowMenu', 'help']));
    const copy = template.find((item) => item.role === 'help')?.submenu?.find((item) => item.label === 'Copy Browser Console URL');
    expect(copy?.enabled).toBe(true);
    copy?.click?.();
    expect(clipboard.writeText).toHaveBeenLastCalledWith(shell.gateway?.consoleUrl);
  });

  it('quits when its window closes, except on macOS', () => {
    app.quit.mockClear();
    app.emit('window-all-closed');
    expect(app.quit).toHaveBeenCalledTimes(process.platform === 'darwin' ? 0 : 1);
  });

  it('quits at once when another instance holds the lock', async () => {
    app.quit.mockClear();
    const windowsBefore = BrowserWindow.created.length;
    const handlersBefore = new Map(fake.handlers);
    app.lockAvailable = false;
    try {
      expect(await startApp(electron, [], env)).toBeUndefined();
    } finally {
      app.lockAvailable = true;
    }
    expect(app.quit).toHaveBeenCalledOnce();
    expect(BrowserWindow.created).toHaveLength(windowsBefore);
    expect(fake.handlers).toEqual(handlersBefore);
  });

  it('refuses a data folder another Capstan holds (`capstan serve` passes Electron\'s lock) in its error dialog, leaving that one running', async () => {
    app.exit.mockClear();
    const windowsBefore = BrowserWindow.created.length;
    // This shell's host holds dataDir, as a `capstan serve` on the same folder would.
    expect(await startApp(electron, [], env)).toBeUndefined();
    expect(fake.errors.at(-1)).toEqual([
      'Capstan could not start',
      `cannot run a gateway: ${dataDir} is in use by another Capstan (process ${process.pid}, gateway ${shell.gateway?.url}); stop it first, or give another --data-dir (or CAPSTAN_DATA_DIR)`,
    ]);
    expect(app.exit.mock.calls).toEqual([[1]]);
    expect(BrowserWindow.created).toHaveLength(windowsBefore);
    expect(await invoke('capstan:callTool', { tool: 'time_now', arguments: {} })).toMatchObject({ ok: true, value: { ok: true } });
    // The refused attempt left the hold as it was: another process still cannot take the folder.
    const serve = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], { encoding: 'utf8', timeout: 20_000 });
    expect(serve.status).toBe(1);
    expect(serve.stderr).toContain(`${dataDir} is in use by another Capstan`);
  });

  it('refuses a bad option in its error dialog, before touching the data folder', async () => {
    const journalBefore = fake.journal.length;
    app.exit.mockClear();
    expect(await startApp(electron, ['--port', 'seventy'], env)).toBeUndefined();
    expect(await startApp(electron, [], { ...env, CAPSTAN_PORT: 'many' })).toBeUndefined();
    expect(await startApp(electron, [], { ...env, CAPSTAN_TOKEN: 'short-token' })).toBeUndefined();
    expect(fake.errors.slice(-3)).toEqual([
      ['Capstan could not start', '--port must be an integer from 0 to 65535, got "seventy"'],
      ['Capstan could not start', 'CAPSTAN_PORT must be an integer from 0 to 65535, got "many"'],
      ['Capstan could not start', 'CAPSTAN_TOKEN: the token must be at least 16 characters, got 11'],
    ]);
    expect(app.exit.mock.calls).toEqual([[1], [1], [1]]);
    expect(fake.journal).toHaveLength(journalBefore);
  });

  it('waits for the gateway and the store to close before the app quits', async () => {
    const { gateway } = shell;
    app.quit.mockClear();
    const event = { preventDefault: vi.fn() };
    app.emit('will-quit', event);
    expect(event.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalledOnce());
    await expect(fetch(`${gateway?.url}/tools`)).rejects.toThrow();
    expect(() => shell.host.db.prepare('select 1')).toThrow();

    // The second will-quit, from that app.quit(), goes through.
    const again = { preventDefault: vi.fn() };
    app.emit('will-quit', again);
    expect(again.preventDefault).not.toHaveBeenCalled();
  });
});

describe('the system browser', () => {
  it('opens a sign-in’s authorization page and a page a server asked the operator to visit, with shell.openExternal', async () => {
    const { oauthShell } = await import('../../electron/shell/oauthShell');
    const opened: string[] = [];
    const parts = oauthShell({ shell: { openExternal: async (url: string) => void opened.push(url) } as unknown as ElectronApi['shell'], safeStorage: undefined });
    parts.presentSignIn!('tracker', 'https://auth.example/authorize?state=s');
    parts.openPage!('https://example.com/consent');
    expect(opened).toEqual(['https://auth.example/authorize?state=s', 'https://example.com/consent']);
    // Without a shell (a desktop without one), neither is offered: the console shows the address instead.
    expect(oauthShell({ shell: undefined, safeStorage: undefined })).toEqual({});
  });
});
