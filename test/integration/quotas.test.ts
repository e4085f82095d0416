/**
 * Per-agent quotas (config.json `quotas`): one agent cannot fill what everyone shares. Each quota
 * refuses the next one with LIMIT_REACHED naming it, counts that agent alone, and frees up as
 * the agent ends what it holds; the operator has none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TasksView } from '../../shared/tasks';
import { startTestGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  gw = await startTestGateway({ config: { quotas: { tasks: 3, mcpSessions: 2, pendingApprovals: 2 }, httpCheck: { allow: ['127.0.0.1/32'] } } });
  for (const name of ['busy', 'calm', 'asker', 'patient', 'clumsy']) tokens[name] = gw.host.agents.create(name).token;
});
afterAll(() => gw.stop());

const as = (agent: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(new URL(path, gw.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[agent]}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const callIn = (agent: string, session: string) => as(agent, '/tools/call', { tool: 'time_now', sessionId: `agent:${agent}/${session}` });

describe('quotas.tasks', () => {
  it('refuses an agent a task past its quota, naming the quota; others and the operator go on; ending one frees a place', async () => {
    for (const session of ['s1', 's2', 's3']) expect((await callIn('busy', session)).status).toBe(200);
    const refused = await callIn('busy', 's4');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      ok: false,
      error: { code: 'LIMIT_REACHED', quota: 'tasks', limit: 3, message: expect.stringContaining('agent:busy already holds 3 tasks that have not ended') },
    });
    // A session that already has its task takes more calls.
    expect((await callIn('busy', 's1')).status).toBe(200);
    expect((await callIn('calm', 's1')).status).toBe(200);
    for (let index = 0; index < 10; index += 1) expect((await gw.request('/tools/call', { method: 'POST', body: { tool: 'time_now', sessionId: `op-${index}` } })).status).toBe(200);

    const finished = await as('busy', '/tasks', { action: 'finish', sessionId: 'agent:busy/s2', message: 'done', outcome: 'succeeded' });
    expect(finished.status).toBe(200);
    expect((await callIn('busy', 's4')).status).toBe(200);
  });

  it('keeps the operator’s view small whatever one agent tries', async () => {
    const attempts = await Promise.all(Array.from({ length: 200 }, (_, index) => callIn('busy', `flood-${index}`)));
    expect(attempts.every((answer) => answer.status === 409)).toBe(true);
    const view = (await (await gw.request('/tasks')).json()) as TasksView;
    const busy = view.tasks.filter((task) => task.sessionId.startsWith('agent:busy') && !['succeeded', 'failed', 'cancelled', 'superseded'].includes(task.state));
    expect(busy).toHaveLength(3);
  });
});

describe('quotas.mcpSessions', () => {
  const initialize = (agent: string) =>
    as(agent, '/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'quota-test', version: '1' } } }, {
      accept: 'application/json, text/event-stream',
    });

  it('refuses a session past the quota with LIMIT_REACHED; ending one frees a place', async () => {
    const first = await initialize('calm');
    expect(first.status).toBe(200);
    expect((await initialize('calm')).status).toBe(200);
    const refused = await initialize('calm');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000, data: { code: 'LIMIT_REACHED', quota: 'mcpSessions', limit: 2 } } });
    expect((await initialize('busy')).status).toBe(200);

    const ended = await fetch(new URL('/mcp', gw.url), { method: 'DELETE', headers: { authorization: `Bearer ${tokens.calm}`, 'mcp-session-id': first.headers.get('mcp-session-id')! } });
    expect(ended.status).toBe(200);
    expect((await initialize('calm')).status).toBe(200);
  });

  it('holds no place for an initialize that is refused or malformed, nor for one sent as DELETE: no session id goes with its answer', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'quota-test', version: '1' } } };
    const accept = 'application/json, text/event-stream';
    const attempts = [
      // Not Acceptable: the client does not take event streams.
      () => as('clumsy', '/mcp', body, { accept: 'application/json' }),
      // No params at all, or a clientInfo without its version.
      () => as('clumsy', '/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize' }, { accept }),
      () => as('clumsy', '/mcp', { ...body, params: { ...body.params, clientInfo: { name: 'x' } } }, { accept }),
      // A 2026-era request has no sessions.
      () => as('clumsy', '/mcp', body, { accept, 'mcp-protocol-version': '2026-07-28' }),
      () => fetch(new URL('/mcp', gw.url), { method: 'DELETE', headers: { authorization: `Bearer ${tokens.clumsy}`, 'content-type': 'application/json', accept }, body: JSON.stringify(body) }),
    ];
    for (let round = 0; round < 3; round += 1) {
      for (const [index, attempt] of attempts.entries()) {
        const answer = await attempt();
        await answer.arrayBuffer();
        expect(answer.headers.get('mcp-session-id'), `attempt ${index}`).toBeNull();
      }
    }
    // Fifteen refused attempts later, the agent's two places are still free.
    for (let index = 0; index < 2; index += 1) {
      const opened = await initialize('clumsy');
      expect(opened.status).toBe(200);
      expect(opened.headers.get('mcp-session-id')).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    }
  });
});

describe('quotas.pendingApprovals', () => {
  it('refuses an agent a third call waiting for approval; another agent still asks; a decision frees a place', async () => {
    // Nothing listens there: the calls are denied before they would run.
    const check = (agent: string) => as(agent, '/tools/call', { tool: 'http_check', arguments: { url: 'http://127.0.0.1:9/', method: 'HEAD' } });
    const pendingOf = async (agent: string) =>
      ((await (await gw.request('/approvals')).json()) as { pending: { id: string; principal: string }[] }).pending.filter((approval) => approval.principal === `agent:${agent}`);
    const waiting = [check('asker'), check('asker')];
    for (let tries = 0; (await pendingOf('asker')).length < 2; tries += 1) {
      expect(tries).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const refused = await check('asker');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'LIMIT_REACHED', quota: 'pendingApprovals', limit: 2 } });

    const other = check('patient');
    for (let tries = 0; (await pendingOf('patient')).length < 1; tries += 1) {
      expect(tries).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const [first] = await pendingOf('asker');
    expect((await gw.request(`/approvals/${first!.id}`, { method: 'POST', body: { decision: 'deny' } })).status).toBe(200);
    const third = check('asker');
    for (let tries = 0; (await pendingOf('asker')).length < 2; tries += 1) {
      expect(tries).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    for (const approval of [...(await pendingOf('asker')), ...(await pendingOf('patient'))]) {
      await gw.request(`/approvals/${approval.id}`, { method: 'POST', body: { decision: 'deny' } });
    }
    const answers = await Promise.all([...waiting, other, third]);
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
  });
});
