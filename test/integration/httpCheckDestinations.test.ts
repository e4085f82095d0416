/**
 * http_check's destination policy through the real gateway: POST /tools/call, the confirmation
 * round trip, then the refusal or the check. Every target is a loopback server: refusals are
 * shown only with spellings of loopback, so a broken policy would still reach nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';

let target: LoopbackServer;
beforeAll(async () => {
  target = await startLoopbackServer();
});
afterAll(() => target.close());

const port = () => new URL(target.url).port;

/** Calls http_check the way a client must: ask, get a challenge, re-send with it. */
async function confirmedCheck(gw: TestGateway, url: string, requestId?: string) {
  const args = { url, method: 'GET' };
  const asked = await gw.call({ tool: 'http_check', arguments: args, ...(requestId ? { requestId } : {}) });
  expect(asked.status).toBe(428);
  const { id } = asked.body.error?.challenge as { id: string };
  return gw.call({ tool: 'http_check', arguments: args, confirmation: id, ...(requestId ? { requestId } : {}) });
}

describe('by default', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.stop());

  it.each(['127.0.0.1', '127.1', '0x7f000001', '2130706433', '017700000001', '127.0.0.1.', '[::ffff:127.0.0.1]', '[::1]', 'localhost'])(
    'refuses %s with DESTINATION_REFUSED after confirmation, and nothing reaches the server',
    async (host) => {
      const refused = await confirmedCheck(gw, `http://${host}:${port()}/health`);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ ok: false, taskId: expect.any(String), error: { code: 'DESTINATION_REFUSED', range: expect.stringContaining('loopback') } });
      expect(target.hits).toEqual([]);
    },
  );

  it('keeps the URL, its query and its host out of the logs and the ledger', async () => {
    const url = `http://127.1:${port()}/deploy?token=s3cr3t-query-value`;
    const refused = await confirmedCheck(gw, url, 'destination-secrets');
    expect(refused.body.error).toMatchObject({ code: 'DESTINATION_REFUSED', host: '127.0.0.1', address: '127.0.0.1' });
    const ledger = (await (await gw.request('/ledger?requestId=destination-secrets')).json()) as { entries: { kind: string; details: Record<string, unknown> }[] };
    expect(ledger.entries.findLast((entry) => entry.kind === 'call_finished')?.details).toMatchObject({ status: 'error', code: 'DESTINATION_REFUSED' });
    for (const written of [JSON.stringify(gw.logs), JSON.stringify(ledger)]) {
      expect(written).toContain('DESTINATION_REFUSED');
      expect(written).not.toContain('s3cr3t-query-value');
      expect(written).not.toContain('/deploy');
    }
    expect(target.hits).toEqual([]);
  });
});

describe('with loopback allowed in config.json', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ config: { httpCheck: { allow: ['127.0.0.1/32', 'localhost'] } } });
  });
  afterAll(() => gw.stop());

  it.each(['127.0.0.1', '127.1', '0x7f000001', 'localhost'])('reaches the server at %s', async (host) => {
    const checked = await confirmedCheck(gw, `http://${host}:${port()}/health`);
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ ok: true, result: { reachable: true, status: 200, address: '127.0.0.1' } });
    expect(target.hits.splice(0)).toEqual([{ method: 'GET', url: '/health' }]);
  });

  it('still refuses what the list does not cover', async () => {
    const refused = await confirmedCheck(gw, `http://127.0.0.2:${port()}/health`);
    expect(refused.body.error).toMatchObject({ code: 'DESTINATION_REFUSED', address: '127.0.0.2', range: 'loopback (127.0.0.0/8)' });
    expect(target.hits).toEqual([]);
  });
});

it('does not start with a bad allow entry, naming the file, the field and the reason', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-allow-'));
  try {
    await expect(startTestGateway({ dataDir, config: { httpCheck: { allow: ['localhost', '10.0.0.0/33'] } } })).rejects.toThrow(
      `${join(dataDir, 'config.json')}: httpCheck.allow.1: "10.0.0.0/33": the prefix length must be a whole number from 0 to 32`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
