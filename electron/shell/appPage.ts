/**
 * Where the built app sits and which page is Capstan's own. main.cjs, preload.cjs and renderer/
 * are built side by side into dist/, so the paths are relative to the running bundle.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isTrustedSender } from '../transports/ipc';

export const PRELOAD_PATH = join(__dirname, 'preload.cjs');
export const RENDERER_DIR = join(__dirname, 'renderer');
export const INDEX_HTML = join(RENDERER_DIR, 'index.html');
/** The one page allowed to navigate, call IPC and write the clipboard. */
export const APP_URL = pathToFileURL(INDEX_HTML).href;

/** True for Capstan's own page, whatever its hash or query. */
export const isAppPage = (url: string): boolean => isTrustedSender(url, APP_URL);
