/**
 * The Electron entry point, and nothing else: importing any other module starts nothing, so the
 * shell's parts (shell/) and the plain-Node core they share with `capstan serve` are tested alone.
 */
import { app } from 'electron';
import { startApp } from './shell/app';

// Packaged, argv is [app, ...flags]; in development it is [electron, main.cjs, ...flags].
void startApp(process.argv.slice(app.isPackaged ? 1 : 2), process.env);
