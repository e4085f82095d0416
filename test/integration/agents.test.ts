/**
 * Agent tokens through a real `capstan serve` and the real CLI, each a process of its own over the
 * same data dir: a token made or revoked by the CLI counts on the gateway's next request, agents
 * get 403 FORBIDDEN_FOR_AGENT for everything that is the operator's, stay in their own sessions,
 * and the ledger names who did what.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN_PREFIX } from '../../electron/store/agentTokens';
import { operations, type OperationName } from '../../shared/api';
import type { LedgerEntry } from '../../shared/ledger';
import { CLI, startServe, type ServeProcess } from '../support/serveProcess';

const OPERATOR_TOKEN = 'operator-token-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'capstan-agents-'));
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { CAPSTAN_TOKEN: OPERATOR_TOKEN });
}, 30_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** The CLI as an operator runs it, in a process of its own; never blocking this one, which must keep serving. */
function capstan(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, '--data-dir', dataDir], (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

async function createToken(name: string): Promise<string> {
  const { code, stdout, stderr } = await capstan('token', 'create', '--name', name);
  expect(code, stderr).toBe(0);
  const lines = stdout.trimEnd().split('\n');
  // Alone on its last line, so `capstan token create --name x | tail -1` is the token.
  expect(lines.length).toBeGreaterThan(1);
  return lines.at(-1)!;
}

/** The fields these tests read, of whichever answer. */
interface Body {
  ok?: boolean;
  id?: string;
  token?: string;
  error?: { code: string; message: string; challenge?: { id: string } };
  agents?: { name: string; lastUsedAt: string | null }[];
  entries?: LedgerEntry[];
  sessions?: { id: string }[];
  tasks?: { sessionId: string }[];
}
type Answer = { status: number; body: Body };
async function api(token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${serve.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Body) : {} };
}

const ledgerOf = async (requestId: string) => (await api(OPERATOR_TOKEN, 'GET', `/ledger?requestId=${requestId}`)).body.entries!;

describe('agent tokens made by the CLI against a running gateway', () => {
  it('work at once, name the agent in the ledger, show as used, and are refused at once once revoked', async () => {
    const token = await createToken('ci-bot');
    expect(token).toMatch(new RegExp(`^${AGENT_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`));

    expect((await api(token, 'GET', '/tools')).status).toBe(200);
    const agentCall = await api(token, 'POST', '/tools/call', { tool: 'time_now', requestId: 'agent-call-1' });
    expect(agentCall).toMatchObject({ status: 200, body: { ok: true } });
    expect((await api(OPERATOR_TOKEN, 'POST', '/tools/call', { tool: 'time_now', requestId: 'operator-call-1' })).status).toBe(200);

    const agentEntries = await ledgerOf('agent-call-1');
    expect(agentEntries.map((entry) => entry.kind)).toEqual(['call_started', 'call_finished']);
    for (const entry of agentEntries) expect(entry).toMatchObject({ principal: 'agent:ci-bot', sessionId: 'agent:ci-bot' });
    for (const entry of await ledgerOf('operator-call-1')) expect(entry).toMatchObject({ principal: 'operator', sessionId: 'operator' });

    const listed = await capstan('token', 'list');
    expect(listed.stdout).toMatch(/^NAME\s+CREATED\s+LAST USED$/m);
    expect(listed.stdout).toMatch(/^ci-bot\s+\S+Z\s+\d{4}-\d\d-\d\dT\S+Z$/m);
    const tail = await capstan('ledger', 'tail', '-n', '50', '--json');
    expect(tail.stdout).toContain('"principal":"agent:ci-bot"');

    const revoked = await capstan('token', 'revoke', 'ci-bot');
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await api(token, 'GET', '/tools')).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });

    // The name may be given a new token; the old one stays dead.
    const again = await createToken('ci-bot');
    expect((await api(again, 'GET', '/tools')).status).toBe(200);
    expect((await api(token, 'GET', '/tools')).status).toBe(401);
    expect(await capstan('token', 'create', '--name', 'ci-bot')).toMatchObject({ code: 1, stderr: expect.stringContaining('AGENT_EXISTS') });
    expect(await capstan('token', 'create', '--name', 'no spaces')).toMatchObject({ code: 2, stderr: expect.stringContaining('1-64 of [A-Za-z0-9_.-]') });
    // 64 characters at most, so that its MCP clients' session ids stay within 128.
    expect(await capstan('token', 'create', '--name', 'a'.repeat(65))).toMatchObject({ code: 2, stderr: expect.stringContaining('1-64 of [A-Za-z0-9_.-]') });
    expect(await capstan('token', 'revoke', 'nobody')).toMatchObject({ code: 1, stderr: expect.stringContaining('AGENT_NOT_FOUND') });
  }, 180_000);
});

describe('what an agent may not do', () => {
  let token: string;
  beforeAll(async () => {
    token = await createToken('limited');
  }, 60_000);

  it('gets 403 FORBIDDEN_FOR_AGENT for every operation that is the operator’s, for /events and for a confirmation', async () => {
    const forbidden = (Object.keys(operations) as OperationName[]).filter((name) => operations[name].audience === 'operator');
    expect(forbidden.length).toBeGreaterThan(15);
    for (const name of forbidden) {
      const { method, path } = operations[name];
      const answer = await api(token, method, path.replace(/:\w+/g, 'x'), method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(answer, `${method} ${path}`).toMatchObject({ status: 403, body: { ok: false, error: { code: 'FORBIDDEN_FOR_AGENT' } } });
    }
    expect(await api(token, 'GET', '/events')).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN_FOR_AGENT' } } });

    // The operator's own challenge, presented by an agent in its own session, is still refused: agents never confirm.
    const challenge = await api(OPERATOR_TOKEN, 'POST', '/tools/call', { tool: 'http_check', arguments: { url: 'http://127.0.0.1:9/' }, sessionId: 'agent:limited/confirm' });
    expect(challenge.status).toBe(428);
    const confirmed = await api(token, 'POST', '/tools/call', { tool: 'http_check', arguments: { url: 'http://127.0.0.1:9/' }, sessionId: 'agent:limited/confirm', confirmation: challenge.body.error!.challenge!.id });
    expect(confirmed).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN_FOR_AGENT', message: expect.stringContaining('cannot confirm') } } });

    // Nothing the agent asked for changed anything: the operator's token still reads the same settings and agents.
    expect((await api(OPERATOR_TOKEN, 'GET', '/settings')).body).toEqual({ whitelist: ['time_now', 'local_status'] });
    expect((await api(OPERATOR_TOKEN, 'GET', '/agents')).body.agents!.map((agent) => agent.name)).toContain('limited');
  });

  it('works only in sessions of its own, and sees only its own tasks', async () => {
    const own = await api(token, 'POST', '/tasks', { action: 'start', title: 'mine' });
    expect(own).toMatchObject({ status: 200, body: { sessionId: 'agent:limited', state: 'running' } });
    const perClient = await api(token, 'POST', '/tasks', { action: 'start', sessionId: 'agent:limited/mcp-1', title: 'per client' });
    expect(perClient).toMatchObject({ status: 200, body: { sessionId: 'agent:limited/mcp-1' } });

    const operatorTask = await api(OPERATOR_TOKEN, 'POST', '/tasks', { action: 'start', sessionId: 'ops-session', title: 'the operator’s' });
    expect(operatorTask.status).toBe(200);
    const refusals: [string, string, unknown][] = [
      ['POST', '/tools/call', { tool: 'time_now', sessionId: 'operator' }],
      ['POST', '/tools/call', { tool: 'time_now', taskId: operatorTask.body.id! }],
      ['POST', '/tools/call', { tool: 'time_now', sessionId: 'agent:limitedX' }],
      ['POST', '/tasks', { action: 'steer', taskId: operatorTask.body.id!, text: 'hijack' }],
      ['POST', '/tasks', { action: 'start', sessionId: 'ops-session', title: 'squat' }],
      ['POST', `/tasks/${operatorTask.body.id!}/cancel`, undefined],
      ['POST', '/discovery/capabilities_list', { sessionId: 'ops-session' }],
      ['POST', '/discovery/capabilities_search', { taskId: operatorTask.body.id!, query: 'time' }],
    ];
    for (const [method, path, body] of refusals) {
      expect(await api(token, method, path, body), `${method} ${path} ${JSON.stringify(body)}`).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN_FOR_AGENT' } } });
    }

    // Discovery and calls in its own session work, with no session named.
    const listed = await api(token, 'POST', '/discovery/capabilities_list', {});
    expect(listed).toMatchObject({ status: 200, body: { taskId: own.body.id! } });
    expect(await api(token, 'POST', '/tools/call', { tool: 'time_now' })).toMatchObject({ status: 200, body: { taskId: own.body.id! } });

    const seen = (await api(token, 'GET', '/tasks')).body as Required<Pick<Body, 'sessions' | 'tasks'>>;
    expect(seen.sessions.map((session) => session.id)).toEqual(expect.arrayContaining(['agent:limited', 'agent:limited/mcp-1']));
    expect(seen.sessions.every((session) => session.id === 'agent:limited' || session.id.startsWith('agent:limited/'))).toBe(true);
    expect(seen.tasks.every((task) => task.sessionId === 'agent:limited' || task.sessionId.startsWith('agent:limited/'))).toBe(true);
    const everything = (await api(OPERATOR_TOKEN, 'GET', '/tasks')).body.sessions!;
    expect(everything.map((session) => session.id)).toEqual(expect.arrayContaining(['ops-session', 'agent:limited']));

    // Its own task it may cancel; the operator may cancel anyone's. Each cancellation names who asked.
    expect(await api(token, 'POST', `/tasks/${perClient.body.id!}/cancel`)).toMatchObject({ status: 200, body: { state: 'cancelled' } });
    expect(await api(OPERATOR_TOKEN, 'POST', `/tasks/${own.body.id!}/cancel`)).toMatchObject({ status: 200, body: { state: 'cancelled' } });
    const cancellations = (await api(OPERATOR_TOKEN, 'GET', '/ledger?kind=cancellation&limit=1000')).body.entries!;
    expect(cancellations.find((entry) => entry.taskId === perClient.body.id!)?.principal).toBe('agent:limited');
    expect(cancellations.find((entry) => entry.taskId === own.body.id!)?.principal).toBe('operator');
  });
});

describe('GET/POST/DELETE /agents', () => {
  it('lets the operator make a token that works at once, list it with its use, and revoke it at once', async () => {
    const made = await api(OPERATOR_TOKEN, 'POST', '/agents', { name: 'http-bot' });
    expect(made).toMatchObject({ status: 200, body: { agent: { name: 'http-bot', principal: 'agent:http-bot', lastUsedAt: null }, token: expect.stringMatching(/^capstan_agent_/) } });
    const token = made.body.token!;
    expect((await api(token, 'GET', '/tools')).status).toBe(200);
    const listed = (await api(OPERATOR_TOKEN, 'GET', '/agents')).body.agents!;
    expect(listed.find((agent) => agent.name === 'http-bot')?.lastUsedAt).toMatch(/Z$/);
    // The token itself is never shown again.
    expect(JSON.stringify(listed)).not.toContain(token);

    expect(await api(OPERATOR_TOKEN, 'POST', '/agents', { name: 'http-bot' })).toMatchObject({ status: 409, body: { error: { code: 'AGENT_EXISTS' } } });
    expect(await api(OPERATOR_TOKEN, 'POST', '/agents', { name: 'bad name' })).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
    const after = await api(OPERATOR_TOKEN, 'DELETE', '/agents/http-bot');
    expect(after.status).toBe(200);
    expect(after.body.agents!.map((agent) => agent.name)).not.toContain('http-bot');
    expect((await api(token, 'GET', '/tools')).status).toBe(401);
    expect(await api(OPERATOR_TOKEN, 'DELETE', '/agents/http-bot')).toMatchObject({ status: 404, body: { error: { code: 'AGENT_NOT_FOUND' } } });
  });
});
