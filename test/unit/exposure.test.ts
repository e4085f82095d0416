/**
 * Settings that open the gateway wider than loopback are accepted, but the operator hears about
 * them at start and in Diagnostics: the classifiers behind that, and the diagnostic through a real
 * gateway (on loopback: these tests never bind or reach another address).
 */
import { describe, expect, it } from 'vitest';
import { wideOpenAllowances } from '../../electron/allowEntry';
import { hostMatcher, isLoopbackHost } from '../../electron/transports/origin';
import type { Diagnostic } from '../../shared/capability';
import { startTestGateway } from '../support/gateway';

describe('wide-open settings', () => {
  it('names httpCheck.allow entries that allow every address of a family, and only those', () => {
    expect(wideOpenAllowances(['0.0.0.0/0', '::/0', '10.0.0.0/8', '127.0.0.1', 'intranet.example', '0.0.0.0/1'])).toEqual([
      expect.stringContaining('"0.0.0.0/0" lets http_check reach every IPv4 address'),
      expect.stringContaining('"::/0" lets http_check reach every IPv6 address'),
    ]);
  });

  it('tells loopback binds from the others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', 'LOCALHOST']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', 'fe80::1']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('names this gateway by its Host header alone, the same answer every time it is asked (answers are kept for a few names)', () => {
    const loopback = hostMatcher('127.0.0.1', 4100);
    const wildcard = hostMatcher('0.0.0.0', 4100);
    const good = ['127.0.0.1:4100', 'localhost:4100', 'LOCALHOST:4100', '[::1]:4100'];
    const bad = ['evil.example:4100', '127.0.0.1:4101', '127.0.0.1', '127.0.0.1:4100@evil.example', 'localhost:4100/x', '', `${'a'.repeat(300)}:4100`];
    // Many made-up names first: the kept answers fill up, and nothing changes for the names that follow.
    for (let n = 0; n < 100; n += 1) expect(loopback(`made-up-${n}.example:4100`)).toBe(false);
    for (const round of [1, 2]) {
      for (const host of good) expect(loopback(host), `${host} (${round})`).toBe(true);
      for (const host of bad) expect(loopback(host), `${host} (${round})`).toBe(false);
      expect(loopback(undefined)).toBe(false);
      // A wildcard bind takes literal addresses, never names other than its own.
      expect(wildcard('192.0.2.7:4100'), `round ${round}`).toBe(true);
      expect(wildcard('localhost:4100'), `round ${round}`).toBe(false);
    }
  });

  it('puts a wide-open allow list in GET /diagnostics, filed under the gateway', async () => {
    const gw = await startTestGateway({ config: { httpCheck: { allow: ['::/0'] } } });
    try {
      const { diagnostics } = (await (await gw.request('/diagnostics')).json()) as { diagnostics: Diagnostic[] };
      expect(diagnostics).toContainEqual({ provider: 'gateway', path: null, line: null, capability: null, reason: expect.stringContaining('"::/0"') });
    } finally {
      await gw.stop();
    }
  });
});
