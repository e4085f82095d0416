/** The DNS-rebinding defence: which `Host` and `Origin` headers name this gateway. */
import { isIP } from 'node:net';
import { isLoopbackHost, isWebAddress, LOOPBACK_NAMES } from '../../shared/webAddress';

const WILDCARDS = new Set(['0.0.0.0', '::']);

/**
 * Which `Host` headers name this gateway. A DNS-rebinding page reaches us under its own domain
 * name, so only the bound address, loopback names (when bound to loopback) and, on a wildcard
 * bind, literal IP addresses are accepted.
 */
export function hostMatcher(boundHost: string, port: number): (hostHeader: string | undefined) => boolean {
  const loopback = isLoopbackHost(boundHost);
  // Every request names one of a few hosts: each answer is kept, the URL parser run once per name.
  const answers = new Map<string, boolean>();
  const matches = (hostHeader: string | undefined): boolean => {
    // A name and a port, nothing more: the URL parser would take user info, a path or a query as parts of it, and let them pass.
    if (!hostHeader || /[@/\\?#]/.test(hostHeader)) return false;
    let parsed: URL;
    try {
      parsed = new URL(`http://${hostHeader}`);
    } catch {
      return false;
    }
    if (Number(parsed.port || 80) !== port) return false;
    const name = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (name === boundHost.toLowerCase()) return true;
    if (loopback && LOOPBACK_NAMES.has(name)) return true;
    return WILDCARDS.has(boundHost) && isIP(name) !== 0;
  };
  return (hostHeader) => {
    if (hostHeader === undefined) return false;
    let answer = answers.get(hostHeader);
    if (answer === undefined) {
      answer = matches(hostHeader);
      // Bounded: whoever sends many made-up (or long) names gets them parsed each time, and holds no memory.
      if (answers.size < MAX_HOSTS_KEPT && hostHeader.length <= 255) answers.set(hostHeader, answer);
    }
    return answer;
  };
}

const MAX_HOSTS_KEPT = 64;

export { isLoopbackHost, isWebAddress };

export function allowedOrigin(origin: string, allowedHost: (host: string) => boolean): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && allowedHost(url.host);
  } catch {
    return false;
  }
}
