/**
 * What an agent sees by default: the builtins, but not the operator's notes and to-dos (config
 * `agentGrants`, added to `grants` for agents' sessions). The operator's own calls are untouched,
 * and config.json can hand them to agents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

async function asAgent(gateway: TestGateway, token: string, path: string, body: unknown) {
  const response = await fetch(new URL(path, gateway.url), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("the operator's notes and to-dos", () => {
  it('are not an agent’s by default: not discoverable, not callable; the operator’s own calls run', async () => {
    gw = await startTestGateway();
    const { token } = gw.host.agents.create('reader');
    const found = await asAgent(gw, token, '/discovery/capabilities_search', { query: 'note todo', sessionId: 'agent:reader' });
    expect(found.status).toBe(200);
    expect(found.body.items.map((item: { reference: { id: string } }) => item.reference.id).filter((id: string) => /note|todo/.test(id))).toEqual([]);
    const calls: Record<string, Record<string, unknown>> = { note_search: { query: 'x' }, note_add: { body: 'x' }, todo_list: {}, todo_add: { title: 'x' } };
    for (const [tool, args] of Object.entries(calls)) {
      const refused = await asAgent(gw, token, '/tools/call', { tool, arguments: args });
      expect(refused.body.error, tool).toMatchObject({ code: 'NOT_GRANTED', held: 'none' });
    }
    expect((await asAgent(gw, token, '/tools/call', { tool: 'time_now' })).status).toBe(200);
    expect((await gw.request('/tools/call', { method: 'POST', body: { tool: 'todo_list' } })).status).toBe(200);
  });

  it('are an agent’s when config.json agentGrants says so', async () => {
    gw = await startTestGateway({ config: { agentGrants: [] } });
    const { token } = gw.host.agents.create('helper');
    expect((await asAgent(gw, token, '/tools/call', { tool: 'todo_list' })).status).toBe(200);
  });
});
