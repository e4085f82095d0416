/** The application menu: the usual roles, plus a way to the same console in a browser. */
import type { ElectronApi } from './electronApi';

type MenuApi = Pick<ElectronApi, 'app' | 'clipboard' | 'Menu'>;

export function installAppMenu(electron: MenuApi, consoleUrl: string | undefined): void {
  electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(menuTemplate(electron, consoleUrl)));
}

export interface MenuOptions {
  platform?: NodeJS.Platform;
  /** An installed build: no DevTools item, as its window has no DevTools (window.ts). */
  packaged?: boolean;
}

export function menuTemplate(
  { app, clipboard }: Omit<MenuApi, 'Menu'>,
  consoleUrl: string | undefined,
  { platform = process.platform, packaged = app.isPackaged }: MenuOptions = {},
): Electron.MenuItemConstructorOptions[] {
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
        ...(packaged ? [] : [{ role: 'toggleDevTools' } as const]),
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
