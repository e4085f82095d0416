/** Where Capstan keeps its data: the OS's per-user app-data folder, as Electron's userData is. */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const APP_NAME = 'Capstan';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.CAPSTAN_DATA_DIR) return env.CAPSTAN_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}
