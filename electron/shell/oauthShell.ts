/**
 * What the desktop app gives URL servers' OAuth (providers/mcp/oauth): tokens sealed with
 * Electron's safeStorage (the OS keychain's key) where it is available, and a sign-in's
 * authorization URL opened in the system browser (never in Capstan's own window); the same
 * browser for a page a server asks the operator to visit (URL elicitation, services/serverAsks.ts).
 */
import type { HostOptions } from '../host';
import { isWebAddress } from '../../shared/webAddress';
import type { ElectronApi } from './electronApi';

export function oauthShell({ safeStorage, shell }: Pick<ElectronApi, 'safeStorage' | 'shell'>): Pick<HostOptions, 'oauthEncrypter' | 'presentSignIn' | 'openPage'> {
  return {
    ...(safeStorage?.isEncryptionAvailable()
      ? { oauthEncrypter: { kind: 'safeStorage', encrypt: (plain: string) => safeStorage.encryptString(plain), decrypt: (sealed: Buffer) => safeStorage.decryptString(sealed) } }
      : {}),
    ...(shell
      ? {
          // The gateway checks these addresses first; the system opener acts on any scheme, so it is checked again here.
          presentSignIn: (_server: string, url: string) => void (URL.canParse(url) && isWebAddress(new URL(url)) ? shell.openExternal(url).catch(() => {}) : undefined),
          openPage: (url: string) => void (/^https?:\/\//i.test(url) ? shell.openExternal(url).catch(() => {}) : undefined),
        }
      : {}),
  };
}
