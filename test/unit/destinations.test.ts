/**
 * http_check's destination policy, as a unit: classification and the allow list only, with a
 * stand-in resolver. Nothing here opens a connection.
 */
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, readConfig } from '../../electron/config';
import { parseAllowEntry } from '../../electron/allowEntry';
import { DestinationPolicy, pinnedLookup, specialRange, type Resolver } from '../../electron/providers/builtin/destinations';
import { CapstanError } from '../../shared/errors';

const never = new AbortController().signal;
/** A resolver that must not be asked: IP literals are checked as they are. */
const noDns: Resolver = () => Promise.reject(new Error('no DNS lookup expected'));
const answers =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

/** What the WHATWG URL parser (the request's own) makes of a host as typed in a URL. */
const hostOf = (typed: string) => new URL(`http://${typed}:8080/path`).hostname;

/** The refusal admit() throws for a URL's host, or undefined when it admits it. */
async function refusal(typed: string, policy = new DestinationPolicy([], noDns)): Promise<CapstanError | undefined> {
  try {
    await policy.admit(hostOf(typed), never);
    return undefined;
  } catch (error) {
    if (error instanceof CapstanError) return error;
    throw error;
  }
}

describe('every spelling of a special address', () => {
  it.each([
    ['127.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0X7F000001', 'loopback'],
    ['2130706433', 'loopback'],
    ['017700000001', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7F.1', 'loopback'],
    ['127.0.0.1.', 'loopback'],
    ['127.0.0.1%2e', 'loopback'],
    ['%31%32%37.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::FFFF:7F00:1]', 'loopback'],
    ['[0:0:0:0:0:ffff:127.0.0.1]', 'loopback'],
    ['[64:ff9b::127.0.0.1]', 'loopback (127.0.0.0/8) embedded in NAT64'],
    ['[2002:7f00:1::]', 'loopback (127.0.0.0/8) embedded in 6to4'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['[::]', 'unspecified'],
    ['10.1', 'private (10.0.0.0/8)'],
    ['192.168.1', 'private (192.168.0.0/16)'],
    ['0xa9fea9fe', 'link-local (169.254.0.0/16)'],
    ['[::ffff:169.254.169.254]', 'link-local (169.254.0.0/16)'],
    ['[FE80::1]', 'link-local (fe80::/10)'],
    ['255.255.255.255', 'limited broadcast'],
    ['[::127.0.0.1]', 'IPv4-compatible'],
  ])('refuses %s as %s, without asking DNS', async (typed, range) => {
    const error = await refusal(typed);
    expect(error?.code).toBe('DESTINATION_REFUSED');
    expect(error?.status).toBe(403);
    expect(error?.details.range).toContain(range);
  });

  it('admits public addresses however they are spelled', async () => {
    for (const typed of ['93.184.216.34', '0x5db8d822', '1.1', '8.8.8.8.', '[2606:4700:4700::1111]', '[::ffff:8.8.8.8]', '[64:ff9b::8.8.8.8]', '[2002:808:808::1]']) {
      expect(await refusal(typed), typed).toBeUndefined();
    }
  });
});

describe('the classifier', () => {
  const publicAddress = undefined;

  it.each([
    // Each IPv4 range at its edges, and its public neighbours.
    ['0.0.0.0', 'unspecified or "this network" (0.0.0.0/8)'],
    ['0.255.255.255', 'unspecified or "this network" (0.0.0.0/8)'],
    ['1.0.0.0', publicAddress],
    ['9.255.255.255', publicAddress],
    ['10.0.0.0', 'private (10.0.0.0/8)'],
    ['10.255.255.255', 'private (10.0.0.0/8)'],
    ['11.0.0.0', publicAddress],
    ['100.63.255.255', publicAddress],
    ['100.64.0.0', 'shared address space (CGNAT) (100.64.0.0/10)'],
    ['100.127.255.255', 'shared address space (CGNAT) (100.64.0.0/10)'],
    ['100.128.0.0', publicAddress],
    ['126.255.255.255', publicAddress],
    ['127.0.0.0', 'loopback (127.0.0.0/8)'],
    ['127.255.255.255', 'loopback (127.0.0.0/8)'],
    ['128.0.0.0', publicAddress],
    ['169.253.255.255', publicAddress],
    ['169.254.0.0', 'link-local (169.254.0.0/16)'],
    ['169.254.255.255', 'link-local (169.254.0.0/16)'],
    ['169.255.0.0', publicAddress],
    ['172.15.255.255', publicAddress],
    ['172.16.0.0', 'private (172.16.0.0/12)'],
    ['172.31.255.255', 'private (172.16.0.0/12)'],
    ['172.32.0.0', publicAddress],
    ['192.0.0.0', 'IETF protocol assignments (192.0.0.0/24)'],
    ['192.0.0.255', 'IETF protocol assignments (192.0.0.0/24)'],
    ['192.0.1.0', publicAddress],
    ['192.0.2.1', 'documentation (192.0.2.0/24)'],
    ['192.88.99.1', 'deprecated 6to4 relay anycast (192.88.99.0/24)'],
    ['192.167.255.255', publicAddress],
    ['192.168.0.0', 'private (192.168.0.0/16)'],
    ['192.168.255.255', 'private (192.168.0.0/16)'],
    ['192.169.0.0', publicAddress],
    ['198.17.255.255', publicAddress],
    ['198.18.0.0', 'benchmarking (198.18.0.0/15)'],
    ['198.19.255.255', 'benchmarking (198.18.0.0/15)'],
    ['198.20.0.0', publicAddress],
    ['198.51.100.7', 'documentation (198.51.100.0/24)'],
    ['203.0.113.7', 'documentation (203.0.113.0/24)'],
    ['223.255.255.255', publicAddress],
    ['224.0.0.0', 'multicast (224.0.0.0/4)'],
    ['239.255.255.255', 'multicast (224.0.0.0/4)'],
    ['240.0.0.0', 'reserved (240.0.0.0/4)'],
    ['255.255.255.254', 'reserved (240.0.0.0/4)'],
    ['255.255.255.255', 'limited broadcast (255.255.255.255/32)'],
    ['93.184.216.34', publicAddress],
    // IPv6: named ranges, embedded IPv4, and everything outside global unicast.
    ['::', 'unspecified (::/128)'],
    ['::1', 'loopback (::1/128)'],
    ['::2', 'IPv4-compatible (deprecated) (::/96)'],
    ['::808:808', 'IPv4-compatible (deprecated) (::/96)'],
    ['::ffff:10.0.0.1', 'private (10.0.0.0/8)'],
    ['::ffff:a00:1', 'private (10.0.0.0/8)'],
    ['::ffff:8.8.8.8', publicAddress],
    ['64:ff9b::c0a8:101', 'private (192.168.0.0/16) embedded in NAT64 64:ff9b::/96'],
    ['64:ff9b::808:808', publicAddress],
    ['64:ff9b:1::1', 'not IPv6 global unicast (outside 2000::/3)'],
    ['100::1', 'not IPv6 global unicast (outside 2000::/3)'],
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not IPv6 global unicast (outside 2000::/3)'],
    ['2000::', publicAddress],
    ['2001::1', 'Teredo (2001::/32)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (2001::/32)'],
    ['2001:2::1', 'benchmarking (2001:2::/48)'],
    ['2001:db8::1', 'documentation (2001:db8::/32)'],
    ['2002:a00:1::', 'private (10.0.0.0/8) embedded in 6to4 2002::/16'],
    ['2002:a9fe:a9fe::1', 'link-local (169.254.0.0/16) embedded in 6to4 2002::/16'],
    ['2002:808:808::1', publicAddress],
    ['2606:4700:4700::1111', publicAddress],
    ['3fff::1', 'documentation (3fff::/20)'],
    ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', publicAddress],
    ['4000::', 'not IPv6 global unicast (outside 2000::/3)'],
    ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not IPv6 global unicast (outside 2000::/3)'],
    ['fc00::', 'unique local (fc00::/7)'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique local (fc00::/7)'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['fe80::1%eth0', 'link-local (fe80::/10)'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local (fe80::/10)'],
    ['fec0::1', 'site-local (deprecated) (fec0::/10)'],
    ['ff02::1', 'multicast (ff00::/8)'],
    ['FF02::1', 'multicast (ff00::/8)'],
    // Not canonical addresses: refused, never taken for public.
    ['127.1', 'not a plain IP address'],
    ['example.com', 'not a plain IP address'],
    ['', 'not a plain IP address'],
  ])('classifies %s as %s', (address, range) => {
    expect(specialRange(address)).toBe(range);
  });
});

describe('a host name', () => {
  it('is resolved once, refused if any of its addresses is special, and the message names neither', async () => {
    const resolve = vi.fn(answers('93.184.216.34', '10.0.0.7'));
    const error = await refusal('secret-host.example', new DestinationPolicy([], resolve));
    expect(error).toMatchObject({ code: 'DESTINATION_REFUSED', details: { host: 'secret-host.example', address: '10.0.0.7', range: 'private (10.0.0.0/8)' } });
    expect(error?.message).toBe(
      'DESTINATION_REFUSED: the address is private (10.0.0.0/8); http_check connects there only if httpCheck.allow in config.json lists the host or a CIDR that covers it',
    );
    expect(resolve).toHaveBeenCalledOnce();
  });

  it('connects to the addresses it checked: a second DNS answer changes nothing', async () => {
    const resolve = vi.fn<Resolver>().mockResolvedValueOnce([{ address: '93.184.216.34', family: 4 }]).mockResolvedValue([{ address: '127.0.0.1', family: 4 }]);
    const addresses = await new DestinationPolicy([], resolve).admit('rebinding.example', never);
    // What Node's socket does with the lookup http_check hands it, both ways it asks.
    const lookup = pinnedLookup(addresses);
    const one = await new Promise((resolve) => lookup('rebinding.example', {}, (_error, address, family) => resolve({ address, family })));
    const all = await new Promise((resolve) => lookup('rebinding.example', { all: true }, (_error, list) => resolve(list)));
    expect(one).toEqual({ address: '93.184.216.34', family: 4 });
    expect(all).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(resolve).toHaveBeenCalledOnce();
  });

  it('that does not resolve fails as DNS does, not as a refusal', async () => {
    const policy = new DestinationPolicy([], () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' })));
    await expect(policy.admit('nowhere.invalid', never)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(new DestinationPolicy([], answers()).admit('empty.example', never)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('stops waiting for DNS when the call is aborted', async () => {
    const controller = new AbortController();
    const pending = new DestinationPolicy([], () => new Promise<LookupAddress[]>(() => {})).admit('slow.example', controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
  });
});

describe('the allow list', () => {
  it('admits an allowed CIDR in any spelling, IPv4-mapped included, and nothing beside it', async () => {
    const policy = new DestinationPolicy(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8'], noDns);
    for (const typed of ['127.1', '0x7f000001', '[::ffff:127.0.0.1]', '10.200.0.1', '[fd12::1]']) expect(await refusal(typed, policy), typed).toBeUndefined();
    for (const typed of ['127.0.0.2', '[::1]', '172.16.0.1', '192.168.0.1', '[fc00::1]']) expect((await refusal(typed, policy))?.code, typed).toBe('DESTINATION_REFUSED');
  });

  it('admits an allowed host name whatever it resolves to, in any case, with or without the trailing dot', async () => {
    const policy = new DestinationPolicy(['intranet.example', '::1'], answers('10.1.2.3', '192.168.0.9'));
    for (const typed of ['intranet.example', 'INTRANET.Example', 'intranet.example.', '[::1]']) expect(await refusal(typed, policy), typed).toBeUndefined();
    expect((await refusal('other.example', policy))?.details).toMatchObject({ address: '10.1.2.3' });
  });

  it.each([
    ['10.0.0.0/8', { address: '10.0.0.0', prefix: 8, family: 'ipv4' }],
    ['fd00::/8', { address: 'fd00::', prefix: 8, family: 'ipv6' }],
    ['[::1]/128', { address: '::1', prefix: 128, family: 'ipv6' }],
    ['127.0.0.1', { address: '127.0.0.1', prefix: 32, family: 'ipv4' }],
    ['::1', { address: '::1', prefix: 128, family: 'ipv6' }],
    ['Intranet.Example', { host: 'intranet.example' }],
    ['build-01.lab.', { host: 'build-01.lab' }],
  ])('reads %s', (entry, parsed) => {
    expect(parseAllowEntry(entry)).toEqual(parsed);
  });

  it.each([
    ['10.0.0.0/33', 'the prefix length must be a whole number from 0 to 32'],
    ['fd00::/129', 'from 0 to 128'],
    ['10.0.0.0/8/8', 'the prefix length'],
    ['10.0.0.0/', 'the prefix length'],
    ['10.0.0.0/-1', 'the prefix length'],
    ['10.0.0/8', '"10.0.0" before the "/" is not an IP address'],
    ['intranet.example/24', 'is not an IP address'],
    ['127.1', 'write it as 127.0.0.1'],
    ['0x7f000001', 'write it as 127.0.0.1'],
    ['*.example.com', 'no ports, paths or wildcards'],
    ['intranet.example:8080', 'no ports'],
    ['http://intranet.example', '"http:" before the "/" is not an IP address'],
    ['', 'not a host name'],
    ['two words', 'not a host name'],
  ])('refuses %s: %s', (entry, reason) => {
    expect(() => parseAllowEntry(entry)).toThrow(reason);
  });

  it('stops the start with the file, the field and the reason when config.json has a bad entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-allow-'));
    try {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['127.0.0.1/32', '10.0.0.0/33'] } }));
      expect(() => readConfig(dir)).toThrow(ConfigError);
      expect(() => readConfig(dir)).toThrow(`${join(dir, 'config.json')}: httpCheck.allow.1: "10.0.0.0/33": the prefix length must be a whole number from 0 to 32`);
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['localhost'], deny: [] } }));
      expect(() => readConfig(dir)).toThrow(/httpCheck/);
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['localhost', '127.0.0.0/8'] } }));
      expect(readConfig(dir).httpCheck).toEqual({ allow: ['localhost', '127.0.0.0/8'] });
      writeFileSync(join(dir, 'config.json'), '{}');
      expect(readConfig(dir).httpCheck).toEqual({ allow: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
