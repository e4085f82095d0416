/**
 * The grammar of one `httpCheck.allow` entry in config.json (a CIDR, an IP address or an exact
 * host name), read where the config is read and where http_check checks a destination
 * (providers/builtin/destinations.ts).
 */
import { isIP } from 'node:net';

export type Family = 'ipv4' | 'ipv6';
export const familyOf = (address: string): Family | undefined => (({ 4: 'ipv4', 6: 'ipv6' }) as const)[isIP(address) as 4 | 6];

export type AllowEntry = { host: string } | { address: string; prefix: number; family: Family };

export const withoutBrackets = (host: string) => host.replace(/^\[(.*)\]$/, '$1');
export const withoutTrailingDot = (host: string) => host.replace(/\.$/, '');

/**
 * Reads one `httpCheck.allow` entry: a CIDR (`10.0.0.0/8`, `fd00::/8`), an IP address (a /32 or
 * /128) or an exact host name (no wildcards). Throws with the reason, for config.json's error.
 * Addresses must be written canonically, so the file says plainly what it allows.
 */
export function parseAllowEntry(entry: string): AllowEntry {
  const [written = '', prefix, ...rest] = entry.split('/');
  const address = withoutBrackets(written);
  const family = familyOf(address);
  if (prefix !== undefined || rest.length) {
    if (!family) throw new Error(`"${written}" before the "/" is not an IP address`);
    const max = family === 'ipv4' ? 32 : 128;
    if (rest.length || !/^\d{1,3}$/.test(prefix ?? '') || Number(prefix) > max) throw new Error(`the prefix length must be a whole number from 0 to ${max}`);
    return { address, prefix: Number(prefix), family };
  }
  if (family) return { address, prefix: family === 'ipv4' ? 32 : 128, family };
  let host: string;
  try {
    host = new URL(`http://${entry}/`).hostname;
  } catch {
    throw new Error('not a host name, an IP address or a CIDR');
  }
  if (familyOf(withoutBrackets(host))) throw new Error(`an IP address in an unusual spelling: write it as ${withoutBrackets(host)}`);
  if (host !== entry.toLowerCase() || !/^[a-z0-9_.-]+$/.test(host)) throw new Error('not a host name, an IP address or a CIDR (no ports, paths or wildcards)');
  return { host: withoutTrailingDot(host) };
}

/**
 * What an operator should hear about an allow list at start and in Diagnostics: an entry that
 * allows every address of a family (`0.0.0.0/0`, `::/0`) undoes http_check's destination
 * policy, private and loopback addresses included.
 */
export function wideOpenAllowances(entries: readonly string[]): string[] {
  return entries.flatMap((entry) => {
    const parsed = parseAllowEntry(entry);
    if (!('prefix' in parsed) || parsed.prefix !== 0) return [];
    return [`httpCheck.allow "${entry}" lets http_check reach every ${parsed.family === 'ipv4' ? 'IPv4' : 'IPv6'} address, this machine and its private network included: name the hosts or ranges it needs instead`];
  });
}
