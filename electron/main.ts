/**
 * The Electron entry point, and nothing else: importing any other module starts nothing, so the
 * shell's parts (shell/) and the plain-Node core they share with `capstan serve` are tested alone.
 * It is also the one module that imports Electron: the shell is handed the API (shell/electronApi.ts).
 */
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, nativeTheme, Notification, safeStorage, session, shell } from 'electron';
import { startApp } from './shell/app';

// Packaged, argv is [app, ...flags]; in development it is [electron, main.cjs, ...flags].
const electron = { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, nativeTheme, Notification, session, safeStorage, shell };
void startApp(electron, process.argv.slice(app.isPackaged ? 1 : 2), process.env);
