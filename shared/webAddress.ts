/** Which addresses are this machine, and which a server may send a person or a credential to. */

/** The names and addresses of this machine a Host header or URL may give. */
export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '::1']);

/** Whether `host` (a name or an address, without brackets) is this machine: a loopback name or address. */
export const isLoopbackHost = (host: string): boolean => LOOPBACK_NAMES.has(host.toLowerCase()) || host.startsWith('127.');

/**
 * Where credentials or a person may be sent on a server's say-so (an OAuth sign-in page, a
 * revocation endpoint): an https address, or http on this machine (an authorization server run
 * locally). Never `file:`, `smb:`, `search-ms:` and the like, which a system opener would act on.
 * The name is read as the URL parser normalises it: `[::1]` is loopback, `localhost.example` is not.
 */
export function isWebAddress(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''));
}
