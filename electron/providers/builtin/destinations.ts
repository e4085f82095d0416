/**
 * Where http_check may connect: public addresses, plus whatever `httpCheck.allow` in config.json
 * names. Everything else (loopback, private, link-local, CGNAT, multicast, unspecified and the
 * other special-purpose ranges) is refused, so a confirmed call cannot be turned against the
 * machine Capstan runs on or its network.
 *
 * Spellings are not parsed here. The WHATWG URL parser has already turned `127.1`, `0x7f000001`,
 * `2130706433`, `017700000001`, `127.0.0.1.` and `[::FFFF:127.0.0.1]` into one canonical form,
 * and it is the same parser the request uses, so what is checked is what is reached. Ranges are
 * matched by Node's `net.BlockList`, which also matches IPv4 rules against IPv4-mapped IPv6
 * (`::ffff:a.b.c.d`). A name is resolved once, every address it resolves to is checked, and the
 * connection is handed those checked addresses (`pinnedLookup`), so a second DNS answer cannot
 * move it elsewhere (DNS rebinding).
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { CapstanError } from '../../../shared/errors';
import { familyOf, parseAllowEntry, withoutBrackets, withoutTrailingDot, type Family } from '../../allowEntry';


/** IANA's special-purpose IPv4 ranges that are not globally reachable, plus multicast and broadcast. */
const SPECIAL_IPV4: readonly [cidr: string, name: string][] = [
  ['0.0.0.0/8', 'unspecified or "this network"'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'limited broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

/**
 * IPv6 ranges with a name an operator recognizes. Anything else outside global unicast
 * (2000::/3) is refused too, below; these only make the refusal say what the address is.
 * IPv4-compatible addresses (::a.b.c.d) are refused whatever they embed: deprecated since
 * RFC 4291 and unused. Teredo is refused because its real IPv4 destination is obfuscated.
 */
const SPECIAL_IPV6: readonly [cidr: string, name: string][] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
];

interface Range {
  /** What the refusal says, e.g. `loopback (127.0.0.0/8)`. */
  label: string;
  list: BlockList;
}

function blockList(subnets: readonly [address: string, prefix: number, family: Family][]): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of subnets) list.addSubnet(address, prefix, family);
  return list;
}

function splitCidr(cidr: string): [address: string, prefix: number] {
  const [address = '', prefix = ''] = cidr.split('/');
  return [address, Number(prefix)];
}

/**
 * NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address that a gateway or relay
 * connects to: each IPv4 range is refused there too, labelled with what it embeds.
 */
function embeddings(cidr: string, name: string): Range[] {
  const [v4, prefix] = splitCidr(cidr);
  const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
  return [
    { label: `${name} (${cidr}) embedded in NAT64 64:ff9b::/96`, list: blockList([[`64:ff9b::${v4}`, 96 + prefix, 'ipv6']]) },
    { label: `${name} (${cidr}) embedded in 6to4 2002::/16`, list: blockList([[`2002:${hex(a, b)}:${hex(c, d)}::`, 16 + prefix, 'ipv6']]) },
  ];
}

const RANGES: readonly Range[] = [
  ...SPECIAL_IPV4.map(([cidr, name]) => ({ label: `${name} (${cidr})`, list: blockList([[...splitCidr(cidr), 'ipv4']]) })),
  ...SPECIAL_IPV6.map(([cidr, name]) => ({ label: `${name} (${cidr})`, list: blockList([[...splitCidr(cidr), 'ipv6']]) })),
  ...SPECIAL_IPV4.flatMap(([cidr, name]) => embeddings(cidr, name)),
];

/** Where public IPv6 lives: global unicast, and the IPv4-mapped and NAT64 forms of public IPv4. */
const GLOBAL_IPV6 = blockList([
  ['2000::', 3, 'ipv6'],
  ['::ffff:0:0', 96, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
]);

/** Matches every address BlockList can read; one it cannot read must not pass as "not special". */
const READABLE = blockList([
  ['0.0.0.0', 0, 'ipv4'],
  ['::', 0, 'ipv6'],
]);

/**
 * The special-purpose range an IP address belongs to, e.g. `loopback (127.0.0.0/8)`, or
 * undefined for a public address. Takes a canonical address (from the URL parser or DNS);
 * anything that is not one is refused rather than guessed at.
 */
export function specialRange(address: string): string | undefined {
  const family = familyOf(address);
  if (!family || !READABLE.check(address, family)) return 'not a plain IP address';
  const range = RANGES.find(({ list }) => list.check(address, family));
  if (range) return range.label;
  if (family === 'ipv6' && !GLOBAL_IPV6.check(address, 'ipv6')) return 'not IPv6 global unicast (outside 2000::/3)';
  return undefined;
}

/** At least one address: what a check connects to. */
export type Addresses = readonly [LookupAddress, ...LookupAddress[]];
const isNonEmpty = (addresses: readonly LookupAddress[]): addresses is Addresses => addresses.length > 0;

/** Answers every address of a name, as `dns.lookup` with `all: true` does. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true });

/** Settles like `promise`, or rejects with the signal's reason when it aborts first (DNS lookups cannot be cancelled). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class DestinationPolicy {
  #hosts = new Set<string>();
  #subnets = new BlockList();

  /** `allow` holds config.json's `httpCheck.allow` entries, already validated there. */
  constructor(
    allow: readonly string[] = [],
    private readonly resolve: Resolver = systemResolver,
  ) {
    this.allow(allow);
  }

  /** Replaces the allow list (config.json edited while the gateway runs); a check already past it is not affected. */
  allow(allow: readonly string[]): void {
    const hosts = new Set<string>();
    const subnets = new BlockList();
    for (const entry of allow.map(parseAllowEntry)) {
      if ('host' in entry) hosts.add(entry.host);
      else subnets.addSubnet(entry.address, entry.prefix, entry.family);
    }
    this.#hosts = hosts;
    this.#subnets = subnets;
  }

  /**
   * Resolves a URL's hostname once and returns the addresses a connection may use, or throws
   * DESTINATION_REFUSED. A name is refused if any of its addresses is: the connection may go to
   * any of them (happy eyeballs, fallback), and a name that mixes a public address with an
   * internal one is exactly what a rebinding attacker would serve. A host name in the allow list
   * is trusted whatever it resolves to; an allowed CIDR covers its addresses whatever the name.
   * Errors carry the host, address and range as details, never in the message, which is logged.
   */
  async admit(hostname: string, signal: AbortSignal): Promise<Addresses> {
    const host = withoutBrackets(hostname);
    const family = isIP(host);
    const addresses = family ? [{ address: host, family }] : await abortable(this.resolve(host), signal);
    if (!isNonEmpty(addresses)) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
    if (this.#hosts.has(withoutTrailingDot(host))) return addresses;
    for (const { address } of addresses) {
      const range = this.#subnets.check(address, familyOf(address) ?? 'ipv6') ? undefined : specialRange(address);
      if (range) {
        throw new CapstanError(
          'DESTINATION_REFUSED',
          `the address is ${range}; http_check connects there only if httpCheck.allow in config.json lists the host or a CIDR that covers it`,
          { host: hostname, address, range },
        );
      }
    }
    return addresses;
  }
}

/**
 * A `lookup` for http(s).request that answers with addresses already checked, so the connection
 * cannot go anywhere a second DNS answer would send it. Node asks for `all` when it races
 * IPv4 and IPv6 (autoSelectFamily), else for one address.
 */
export function pinnedLookup(addresses: Addresses): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [...addresses]);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}
