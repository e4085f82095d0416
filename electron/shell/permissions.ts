/**
 * Every permission is refused except writing the clipboard from Capstan's own page, which the
 * console's Copy buttons need; Chromium checks before it requests, so both handlers answer.
 */
import { isAppPage } from './appPage';

export function restrictPermissions(target: Electron.Session): void {
  const allowed = (permission: string, requestingUrl: string | undefined) =>
    permission === 'clipboard-sanitized-write' && requestingUrl !== undefined && isAppPage(requestingUrl);
  target.setPermissionRequestHandler((_contents, permission, callback, details) => callback(allowed(permission, details.requestingUrl)));
  target.setPermissionCheckHandler((_contents, permission, _origin, details) => allowed(permission, details.requestingUrl));
}
