/**
 * The Electron main process and preload with `electron` replaced by fakes that record what the
 * shell asks of it (in plain fields: Vitest clears mock calls before each test). The host behind them is real (a temporary data dir), so IPC replies, the
 * confirmation dialog and the loopback HTTP gateway are exercised end to end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ipcChannels, type CapstanBridge } from '../../shared/ipc';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';

type Listener = (...args: unknown[]) => unknown;
type Handler = (event: unknown, payload: unknown) => Promise<unknown>;

const fake = vi.hoisted(() => {
  class Emitter {
    readonly listeners = new Map<string, Listener[]>();
    on(event: string, listener: Listener) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
      return this;
    }
    once(event: string, listener: Listener) {
      return this.on(event, listener);
    }
    emit(event: string, ...args: unknown[]) {
      for (const listener of this.listeners.get(event) ?? []) listener(...args);
    }
  }
  class WebContents extends Emitter {
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
  class BrowserWindow extends Emitter {
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
  const paths = new Map<string, string>();
  /** What the shell did to the app, in order. */
  const journal: string[] = [];
  const app = Object.assign(new Emitter(), {
    isPackaged: false,
    lockAvailable: true,
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
    whenReady: vi.fn(async () => undefined),
    quit: vi.fn(),
    exit: vi.fn(),
    getVersion: () => '0.1.0',
    setAboutPanelOptions: vi.fn(),
  });
  const handlers = new Map<string, Handler>();
  const permissions: { request?: Listener; check?: Listener } = {};
  const webRequestHooks: string[] = [];
  const menus: { template: unknown; installed: boolean }[] = [];
  const exposed: [string, unknown][] = [];
  const errors: unknown[][] = [];
  return {
    journal,
    handlers,
    permissions,
    webRequestHooks,
    menus,
    exposed,
    errors,
    module: {
      app,
      BrowserWindow,
      ipcMain: { handle: (channel: string, handler: Handler) => void handlers.set(channel, handler) },
      session: {
        defaultSession: {
          setPermissionRequestHandler: (handler: Listener) => void (permissions.request = handler),
          setPermissionCheckHandler: (handler: Listener) => void (permissions.check = handler),
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

vi.mock('electron', () => fake.module);

const { app, BrowserWindow, dialog, clipboard, ipcRenderer } = fake.module;

type MainModule = typeof import('../../electron/main');
type Shell = NonNullable<Awaited<MainModule['started']>>;
type MenuItem = { label?: string; role?: string; submenu?: MenuItem[]; click?: () => void; enabled?: boolean };

let dataDir: string;
let main: MainModule;
let shell: Shell;
let target: LoopbackServer;
let printed = '';
const signalListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };

const window = () => {
  const [created] = BrowserWindow.created;
  if (!created) throw new Error('no window was created');
  return created;
};
/** The URL of the page the window loaded, as Chromium reports it to main. */
const loadedPath = () => window().loaded[0] ?? '';
const pageUrl = () => pathToFileURL(loadedPath()).href;
const ourFrame = () => ({ url: `${pageUrl()}#/tools`, parent: null });
const invoke = (channel: string, payload: unknown, senderFrame: unknown = ourFrame()) => {
  const handler = fake.handlers.get(channel);
  if (!handler) throw new Error(`nothing handles ${channel}`);
  return handler({ senderFrame }, payload) as Promise<{ ok: boolean; value?: never; error?: { code: string; message: string } }>;
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'capstan-electron-'));
  vi.stubEnv('CAPSTAN_DATA_DIR', dataDir);
  vi.stubEnv('CAPSTAN_PORT', '0');
  vi.stubEnv('CAPSTAN_TOKEN', 'electron-test-token');
  vi.stubEnv('CAPSTAN_LOG_LEVEL', 'silent');
  target = await startLoopbackServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    printed += String(chunk);
    return true;
  });
  try {
    main = await import('../../electron/main');
    const started = await main.started;
    if (!started) throw new Error(`the shell did not start: ${JSON.stringify(fake.errors)}`);
    shell = started;
  } finally {
    stdout.mockRestore();
  }
});

afterAll(async () => {
  await shell?.shutdown();
  await target?.close();
  // main.ts quits the app on these signals; give the test worker its own behaviour back.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) if (!signalListeners[signal].includes(listener)) process.off(signal, listener);
  }
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  target.hits.length = 0;
  dialog.showMessageBox.mockClear();
});

describe('start-up', () => {
  it('takes the single-instance lock for the data folder before doing anything else', () => {
    // Chromium's lock is per profile folder, so the folder is chosen first.
    expect(fake.journal.slice(0, 2)).toEqual([`setPath userData ${dataDir}`, 'requestSingleInstanceLock']);
    expect(shell.host.dataDir).toBe(dataDir);
  });

  it('focuses the existing window when a second instance starts', () => {
    window().minimized = true;
    app.emit('second-instance', {}, [], '/');
    expect(window().restore).toHaveBeenCalled();
    expect(window().focus).toHaveBeenCalled();
    window().minimized = false;
  });

  it('serves the same host over loopback HTTP and prints its console URL', async () => {
    const { gateway } = shell;
    if (!gateway) throw new Error('no HTTP gateway');
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed).toContain(`Capstan console: ${gateway.consoleUrl}`);
    expect(gateway.consoleUrl).toContain('electron-test-token');

    // A note written over IPC is found over HTTP: one host behind both.
    const added = await invoke('capstan:callTool', { tool: 'note_add', arguments: { title: 'IPC note', body: 'written through the window' } });
    expect(added).toMatchObject({ ok: true, value: { ok: true } });
    const response = await fetch(`${gateway.url}/tools/call`, {
      method: 'POST',
      headers: { authorization: 'Bearer electron-test-token', 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'note_search', arguments: { query: 'window' } }),
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('IPC note');
  });

  it('quits at once when another instance holds the lock', async () => {
    vi.resetModules();
    const windowsBefore = BrowserWindow.created.length;
    const handlersBefore = new Map(fake.handlers);
    app.lockAvailable = false;
    try {
      const second: MainModule = await import('../../electron/main');
      expect(await second.started).toBeUndefined();
    } finally {
      app.lockAvailable = true;
    }
    expect(app.quit).toHaveBeenCalledOnce();
    expect(BrowserWindow.created).toHaveLength(windowsBefore);
    expect(fake.handlers).toEqual(handlersBefore);
  });
});

describe('the window', () => {
  it('runs the page isolated and sandboxed, without Node', () => {
    const { webPreferences } = window().options;
    expect(webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(webPreferences.nodeIntegrationInSubFrames).not.toBe(true);
    expect(webPreferences.allowRunningInsecureContent).not.toBe(true);
    expect(webPreferences.webviewTag).not.toBe(true);
    expect(webPreferences.experimentalFeatures).not.toBe(true);
  });

  it('loads the built console next to the preload, both beside main', () => {
    const { preload } = window().options.webPreferences as { preload: string };
    const indexHtml = loadedPath();
    expect(window().loaded).toHaveLength(1);
    expect(basename(preload)).toBe('preload.cjs');
    expect(indexHtml).toBe(join(dirname(preload), 'renderer', 'index.html'));
  });

  it('leaves the page’s Content-Security-Policy alone', () => {
    // The policy is the meta tag in index.html; main installs nothing that could replace or weaken it.
    expect(fake.webRequestHooks).toEqual([]);
    expect(window().options.webPreferences.webSecurity).toBe(true);
  });

  it('blocks navigation away from the console, but lets it reload itself', () => {
    const navigate = (url: string) => {
      const event = { url, preventDefault: vi.fn() };
      window().webContents.emit('will-navigate', event, url);
      return event.preventDefault.mock.calls.length > 0;
    };
    expect(navigate('https://attacker.example/')).toBe(true);
    expect(navigate('http://127.0.0.1:7077/')).toBe(true);
    expect(navigate('file:///etc/passwd')).toBe(true);
    expect(navigate(pathToFileURL(join(dirname(loadedPath()), 'other.html')).href)).toBe(true);
    expect(navigate(`${pageUrl()}#/settings`)).toBe(false);
  });

  it('denies window.open and webviews', () => {
    const open = window().webContents.windowOpenHandler;
    expect(open?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(open?.({ url: pageUrl() })).toEqual({ action: 'deny' });
    const attach = { preventDefault: vi.fn() };
    window().webContents.emit('will-attach-webview', attach, {}, {});
    expect(attach.preventDefault).toHaveBeenCalled();
  });

  it('denies every permission except the console writing the clipboard', () => {
    const request = fake.permissions.request as (
      contents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: { requestingUrl: string; isMainFrame: boolean },
    ) => void;
    const check = fake.permissions.check as (
      contents: unknown,
      permission: string,
      origin: string,
      details: { requestingUrl?: string; isMainFrame: boolean },
    ) => boolean;
    const requested = (permission: string, requestingUrl: string) => {
      let granted: boolean | undefined;
      request({}, permission, (answer) => (granted = answer), { requestingUrl, isMainFrame: true });
      return granted;
    };
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'usb']) {
      expect(requested(permission, pageUrl()), permission).toBe(false);
      expect(check({}, permission, 'file:///', { requestingUrl: pageUrl(), isMainFrame: true }), permission).toBe(false);
    }
    expect(requested('clipboard-sanitized-write', pageUrl())).toBe(true);
    expect(check({}, 'clipboard-sanitized-write', 'file:///', { requestingUrl: pageUrl(), isMainFrame: true })).toBe(true);
    expect(requested('clipboard-sanitized-write', 'https://attacker.example/')).toBe(false);
    expect(check({}, 'clipboard-sanitized-write', 'file:///', { isMainFrame: true })).toBe(false);
  });

  it('has an app menu with quit, editing, reload, devtools, zoom, window and help', () => {
    const [menu] = fake.menus;
    expect(menu?.installed).toBe(true);
    const template = menu?.template as MenuItem[];
    const roles = (items: MenuItem[] | undefined): string[] => (items ?? []).flatMap((item) => [item.role ?? '', ...roles(item.submenu)]);
    expect(template.map((item) => item.label ?? item.role)).toEqual(['File', 'editMenu', 'View', 'windowMenu', 'help']);
    expect(roles(template)).toEqual(expect.arrayContaining(['quit', 'reload', 'toggleDevTools', 'resetZoom', 'zoomIn', 'zoomOut', 'about']));

    const copy = template.find((item) => item.role === 'help')?.submenu?.find((item) => item.label === 'Copy Browser Console URL');
    expect(copy?.enabled).toBe(true);
    copy?.click?.();
    expect(clipboard.writeText).toHaveBeenCalledWith(shell.gateway?.consoleUrl);

    const mac = main.menuTemplate(undefined, 'darwin');
    expect(mac[0]).toEqual({ role: 'appMenu' });
    expect(mac.find((item) => item.role === 'help')?.submenu).toEqual([expect.objectContaining({ enabled: false })]);
  });

  it('quits when its window closes, except on macOS', () => {
    app.quit.mockClear();
    app.emit('window-all-closed');
    expect(app.quit).toHaveBeenCalledTimes(process.platform === 'darwin' ? 0 : 1);
  });
});

describe('IPC', () => {
  it('forwards the host\'s live events to the window', () => {
    const before = window().webContents.sent.length;
    shell.host.catalog.setEnabled('skills', false);
    shell.host.catalog.setEnabled('skills', true);
    expect(window().webContents.sent.slice(before)).toEqual([
      ['capstan:event', expect.objectContaining({ type: 'catalog', provider: 'skills', reason: 'disabled' })],
      ['capstan:event', expect.objectContaining({ type: 'catalog', provider: 'skills', reason: 'enabled' })],
    ]);
  });

  it('handles every shared channel', () => {
    expect([...fake.handlers.keys()].sort()).toEqual([...ipcChannels].sort());
  });

  it('refuses other pages, frames and destroyed frames with FORBIDDEN_ORIGIN, running nothing', async () => {
    const before = await invoke('capstan:getSettings', undefined);
    for (const senderFrame of [
      { url: 'https://attacker.example/', parent: null },
      { url: 'http://127.0.0.1:7077/', parent: null },
      { url: 'about:blank', parent: null },
      { url: pageUrl(), parent: { url: pageUrl() } },
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

  it('lists the 8 builtin tools to our page', async () => {
    const reply = await invoke('capstan:listTools', undefined);
    expect(reply.ok).toBe(true);
    const { tools } = reply.value as unknown as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['device_inspect', 'http_check', 'local_status', 'note_add', 'note_search', 'time_now', 'todo_add', 'todo_list'].sort(),
    );
  });

  describe('a call that needs confirmation', () => {
    const args = () => ({ url: `${target.url}/release`, method: 'GET' });

    it('shows a native dialog over the window and runs once the operator approves', async () => {
      dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
      const reply = await invoke('capstan:callTool', { tool: 'http_check', arguments: args(), requestId: 'tool-registry-e1' });
      expect(reply).toMatchObject({ ok: true, value: { ok: true, requestId: 'tool-registry-e1', result: { status: 200 } } });
      expect(target.hits).toEqual([{ method: 'GET', url: '/release' }]);

      expect(dialog.showMessageBox).toHaveBeenCalledOnce();
      const [parent, options] = dialog.showMessageBox.mock.calls[0] as [unknown, { message: string; detail: string; buttons: string[]; defaultId: number; cancelId: number }];
      expect(parent).toBe(window());
      expect(options.message).toContain('http_check');
      expect(options.detail).toContain('Risk: medium');
      expect(options.detail).toContain(JSON.stringify(args(), null, 2));
      expect(options.buttons[options.defaultId]).toBe('Cancel');
      expect(options.cancelId).toBe(options.defaultId);
    });

    it('does not run when the operator cancels', async () => {
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      const reply = await invoke('capstan:callTool', { tool: 'http_check', arguments: args() });
      expect(reply).toMatchObject({ ok: true, value: { ok: false, error: { code: 'CONFIRMATION_REQUIRED', message: expect.stringContaining('declined') } } });
      expect(dialog.showMessageBox).toHaveBeenCalledOnce();
      expect(target.hits).toEqual([]);
    });

    it('ignores a confirmation the page sends and still asks the operator', async () => {
      const issued = await fetch(`${shell.gateway?.url}/tools/call`, {
        method: 'POST',
        headers: { authorization: 'Bearer electron-test-token', 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'http_check', arguments: args() }),
      });
      const { error } = (await issued.json()) as { error: { challenge: { id: string } } };
      dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
      const reply = await invoke('capstan:callTool', { tool: 'http_check', arguments: args(), confirmation: error.challenge.id });
      expect(dialog.showMessageBox).toHaveBeenCalledOnce();
      expect(reply).toMatchObject({ ok: true, value: { ok: false, error: { code: 'CONFIRMATION_REQUIRED' } } });
      expect(target.hits).toEqual([]);
    });
  });
});

describe('the preload', () => {
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

describe('options shared with capstan serve', () => {
  it('reads flags first, then the environment, and leaves Chromium’s flags alone', () => {
    const options = main.readShellOptions(['--enable-logging', '--port', '8123', '--data-dir', '/srv/capstan', '--skills-dir', '/srv/a', '--skills-dir', '/srv/b', 'extra'], {
      CAPSTAN_PORT: '9000',
      CAPSTAN_TOKEN: 'from-env',
    });
    expect(options).toMatchObject({ port: 8123, dataDir: '/srv/capstan', skillsDirs: ['/srv/a', '/srv/b'], token: 'from-env', logLevel: 'info' });
    expect(main.readShellOptions([], { CAPSTAN_PORT: '9000' }).port).toBe(9000);
    expect(main.readShellOptions([], { CAPSTAN_PORT: 'many' }).port).toBe(main.DEFAULT_PORT);
    expect(main.readShellOptions([], {}).token).toMatch(/^[\w-]{32}$/);
  });
});

describe('quitting', () => {
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
