/**
 * http_check with its destination policy, against a loopback server only: the resolver is a
 * stand-in, so no name is looked up and no packet leaves 127.0.0.0/8.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolArgumentError } from '../../electron/catalog/tool';
import { DestinationPolicy, type Resolver } from '../../electron/providers/builtin/destinations';
import { httpCheckTool } from '../../electron/providers/builtin/httpCheck';
import { CapstanError } from '../../shared/errors';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';

let server: LoopbackServer;
const hosts: (string | undefined)[] = [];

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    hosts.push(req.headers.host);
    res.writeHead(204, { server: 'loopback-test' });
    res.end();
  });
});
afterAll(() => server.close());
afterEach(() => {
  server.hits.length = 0;
  hosts.length = 0;
});

const port = () => new URL(server.url).port;
const check = (policy: DestinationPolicy, url: string) =>
  httpCheckTool(policy).run({ url }, { signal: new AbortController().signal, requestId: 'unit' }) as Promise<Record<string, unknown>>;

describe('http_check', () => {
  it('refuses a loopback server by default, in every spelling, before connecting', async () => {
    const policy = new DestinationPolicy([], () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]));
    for (const host of ['127.0.0.1', '127.1', '0x7f000001', '2130706433', '017700000001', '[::ffff:127.0.0.1]', '[::1]', 'named.test']) {
      const refused = await check(policy, `http://${host}:${port()}/health`).catch((error: unknown) => error);
      expect(refused, host).toBeInstanceOf(CapstanError);
      expect(refused, host).toMatchObject({ code: 'DESTINATION_REFUSED' });
    }
    expect(server.hits).toEqual([]);
  });

  it('resolves a name once and connects to the address it checked, sending the name as Host', async () => {
    // Were the request to look the name up again, it would go to 127.0.0.2, where nothing listens.
    const resolve = vi
      .fn<Resolver>()
      .mockResolvedValueOnce([{ address: '127.0.0.1', family: 4 }])
      .mockResolvedValue([{ address: '127.0.0.2', family: 4 }]);
    const result = await check(new DestinationPolicy(['127.0.0.0/8'], resolve), `http://checked.test:${port()}/health`);
    expect(result).toMatchObject({ reachable: true, status: 204, address: '127.0.0.1' });
    expect(resolve).toHaveBeenCalledOnce();
    expect(resolve).toHaveBeenCalledWith('checked.test');
    expect(server.hits).toEqual([{ method: 'HEAD', url: '/health' }]);
    expect(hosts).toEqual([`checked.test:${port()}`]);
  });

  it('refuses credentials in the URL as an argument problem that names no value', async () => {
    const refused = await check(new DestinationPolicy(['127.0.0.0/8']), `http://operator:hunter2@127.0.0.1:${port()}/`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ToolArgumentError);
    expect(refused).toMatchObject({ field: 'url' });
    expect(String((refused as Error).message)).not.toContain('hunter2');
    expect(server.hits).toEqual([]);
  });

  it('refuses a URL the WHATWG parser rejects (an IPv6 zone, say) as an argument problem', async () => {
    const refused = await check(new DestinationPolicy(['::1', 'fe80::/10']), 'http://[fe80::1%25lo]:80/').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ToolArgumentError);
    expect(refused).toMatchObject({ field: 'url' });
  });
});
