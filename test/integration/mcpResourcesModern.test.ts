/**
 * An MCP server speaking 2026-07-28, where a client hears of list changes and resource updates
 * only on the `subscriptions/listen` streams it opens (test/support/mcpChangingServer.ts): its new
 * prompts reach the catalog, and a followed resource's updates reach the event stream, as for a
 * 2025 server (mcpResources.test.ts, server-everything).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapstanEvent } from '../../shared/events';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { send, waitFor, waitForProvider } from '../support/mcp';

const CHANGING = { command: process.execPath, args: [fileURLToPath(new URL('../support/mcpChangingServer.ts', import.meta.url))] };

describe('resources and prompts of a 2026-07-28 server', () => {
  let gateway: TestGateway;
  const events: CapstanEvent[] = [];
  beforeAll(async () => {
    gateway = await startTestGateway({ config: { mcpServers: { changing: CHANGING } } });
    gateway.host.events.subscribe((event) => events.push(event));
    const status = await waitForProvider(gateway.host, 'changing');
    expect(status.protocolVersion).toBe('2026-07-28');
  }, 60_000);
  afterAll(() => gateway?.stop());

  it('lists its prompts again when it says they changed', async () => {
    expect(gateway.host.catalog.live('changing:prompt.extra-1')).toBeUndefined();
    const got = await send(gateway, 'POST', '/prompts/get', { name: 'grow' });
    expect(got.body.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'now 1 extra prompts' } }]);
    // It appeared after the server was added: in the catalog, held for review until accepted (pins).
    await waitFor('the new prompt in the catalog', () => gateway.host.catalog.live('changing:prompt.extra-1'), 10_000);
    expect(gateway.host.catalog.live('changing:prompt.extra-1')?.held).toMatchObject({ kind: 'new' });
  });

  it('follows a resource through a subscriptions/listen stream, and stops', async () => {
    const { body } = await send(gateway, 'GET', '/resources');
    const counter = body.resources[0];
    expect(counter).toMatchObject({ uri: 'changing://counter' });
    expect((await send(gateway, 'POST', '/resources/subscriptions', { id: counter.id, subscribed: true })).body).toEqual({ subscribed: [counter.id] });
    const updates = () => events.filter((event) => event.type === 'resourceUpdated' && event.id === counter.id).length;
    await waitFor('two updates', () => (updates() >= 2 ? true : undefined), 10_000);
    expect((await send(gateway, 'POST', '/resources/subscriptions', { id: counter.id, subscribed: false })).body).toEqual({ subscribed: [] });
    const after = updates();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(updates()).toBe(after);
  });
});
