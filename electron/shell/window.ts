/** The console's window: isolated, sandboxed, without Node, and unable to leave Capstan's page. */
import { APP_NAME } from '../paths';
import { INDEX_HTML, PRELOAD_PATH, isAppPage } from './appPage';
import type { ElectronApi } from './electronApi';

export function createMainWindow({ app, BrowserWindow, nativeTheme }: Pick<ElectronApi, 'app' | 'BrowserWindow' | 'nativeTheme'>): Electron.BrowserWindow {
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
      // An installed app opens no DevTools, so no one can be talked into pasting script into a
      // page that holds the bridge to the host. Development builds keep them.
      devTools: !app.isPackaged,
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
export function hardenContents(contents: Electron.WebContents): void {
  contents.on('will-navigate', (event) => {
    if (!isAppPage(event.url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
