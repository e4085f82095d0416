/**
 * The fuzz campaign of one principal flooding the gateway (config.json `quotas`): an agent's
 * token sends batches of concurrent calls, each in a session of its own choosing (distinct
 * suffixes, its bare session, other principals' sessions, arbitrary strings), MCP initializes,
 * session ends and task finishes, against a real gateway on loopback with small quotas.
 *
 * It holds that every answer is documented (200, or the envelope with a documented code and that
 * code's status; over /mcp, a session or JSON-RPC error carrying one), that the agent never holds
 * more unfinished tasks than its quota, that another agent and the operator keep working
 * meanwhile, and that `GET /tasks` stays small.
 *
 * `npm test` runs FUZZ_RUNS (default 150) cases (a fifth as many batches); FUZZ_SEED replays one.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUNTIME_LIMITS } from '../../electron/runtime/runtime';
import { errorCodes, type ErrorCode } from '../../shared/errors';
import type { TasksView } from '../../shared/tasks';
import { startTestGateway, type TestGateway } from '../support/gateway';

const RUNS = Math.max(10, Math.round(Number(process.env.FUZZ_RUNS ?? 150) / 5));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const QUOTAS = { tasks: 3, mcpSessions: 2, pendingApprovals: 2 };
const REQUEST_DEADLINE_MS = 15_000;
/** What `GET /tasks` may weigh whatever the flood: the agent's few tasks, a page of ended ones, their sessions. */
const TASKS_VIEW_MAX_BYTES = 256 * 1024;
const ENDED = new Set(['succeeded', 'failed', 'cancelled', 'superseded']);

let gw: TestGateway;
const tokens: Record<string, string> = {};
/** MCP sessions the flooding agent was given, so that later cases end them. */
const issued: string[] = [];
const seen = { answers: new Map<string, number>(), largestView: 0, mostHeld: 0, mostSessions: 0 };

beforeAll(async () => {
  gw = await startTestGateway({ config: { quotas: QUOTAS } });
  for (const name of ['flood', 'calm']) tokens[name] = gw.host.agents.create(name).token;
});
afterAll(async () => {
  console.info(
    `flood fuzz: answers ${[...seen.answers].map(([what, count]) => `${what} ×${count}`).join(', ')}; most unfinished tasks held ${seen.mostHeld}; largest GET /tasks ${seen.largestView} bytes, ${seen.mostSessions} sessions`,
  );
  await gw?.stop();
});

const as = (agent: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(new URL(path, gw.url), {
    method,
    headers: { authorization: `Bearer ${tokens[agent]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? null : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
  });

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } };
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

type Action =
  | { kind: 'call'; sessionId: string | undefined; tool: string }
  | { kind: 'initialize' }
  | { kind: 'endSession'; index: number }
  | { kind: 'finish'; sessionId: string };

const ownSession = fc.oneof(fc.constant('agent:flood'), fc.string({ minLength: 1, maxLength: 20 }).map((suffix) => `agent:flood/${suffix}`), fc.nat(40).map((n) => `agent:flood/s${n}`));
const sessionId = fc.oneof(
  { weight: 6, arbitrary: ownSession },
  { weight: 1, arbitrary: fc.constantFrom('agent:calm/probe', 'agent:calm', 'operator', 'agent:flooder/x', 'agent:flood/', `agent:flood/${'x'.repeat(130)}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 140 }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('call' as const), sessionId, tool: fc.constantFrom('time_now', 'local_status', 'note_add', 'no_such_tool') }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'initialize' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('endSession' as const), index: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('finish' as const), sessionId: ownSession }) },
);

function count(what: string): void {
  seen.answers.set(what, (seen.answers.get(what) ?? 0) + 1);
}

/** A REST answer: 200, or the envelope with a documented code and that code's status. */
async function expectDocumented(response: Response, label: string): Promise<void> {
  const body = (await response.json()) as { ok?: boolean; error?: { code: string } };
  if (response.status === 200) return count('200');
  const code = body.error?.code as ErrorCode | undefined;
  expect(code && code in errorCodes ? code : undefined, `${label}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`).toBeDefined();
  expect(response.status, `${label}: ${code}`).toBe(errorCodes[code!].status);
  expect(body.ok, label).toBe(false);
  count(code!);
}

async function perform(step: Action): Promise<void> {
  const label = JSON.stringify(step).slice(0, 200);
  switch (step.kind) {
    case 'call': {
      const body = { tool: step.tool, ...(step.tool === 'note_add' ? { arguments: { body: 'flood' } } : {}), ...(step.sessionId === undefined ? {} : { sessionId: step.sessionId }) };
      return expectDocumented(await as('flood', 'POST', '/tools/call', body), label);
    }
    case 'finish':
      return expectDocumented(await as('flood', 'POST', '/tasks', { action: 'finish', sessionId: step.sessionId, message: 'done', outcome: 'succeeded' }), label);
    case 'initialize': {
      const response = await as('flood', 'POST', '/mcp', INITIALIZE, MCP_HEADERS);
      const text = await response.text();
      if (response.status === 200) {
        issued.push(response.headers.get('mcp-session-id')!);
        return count('mcp session');
      }
      const answer = JSON.parse(text) as { error?: { data?: { code?: string } } };
      expect(response.status, `${label}: ${text.slice(0, 300)}`).toBe(409);
      expect(answer.error?.data?.code, label).toBe('LIMIT_REACHED');
      return count('mcp LIMIT_REACHED');
    }
    case 'endSession': {
      if (issued.length === 0) return;
      const [id] = issued.splice(step.index % issued.length, 1);
      const response = await as('flood', 'DELETE', '/mcp', undefined, { 'mcp-session-id': id! });
      await response.body?.cancel();
      expect([200, 404], label).toContain(response.status);
      return count(`mcp end ${response.status}`);
    }
  }
}

describe('one agent flooding the gateway', () => {
  it('gets documented answers, never holds more tasks than its quota, and others keep working', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40 }), async (batch) => {
        await Promise.all(batch.map(perform));

        const view = await gw.request('/tasks');
        const text = await view.text();
        expect(view.status).toBe(200);
        const { tasks, sessions } = JSON.parse(text) as TasksView;
        const held = tasks.filter((task) => task.sessionId.startsWith('agent:flood') && !ENDED.has(task.state));
        seen.mostHeld = Math.max(seen.mostHeld, held.length);
        seen.largestView = Math.max(seen.largestView, text.length);
        expect(held.length, JSON.stringify(held.map(({ sessionId: id }) => id))).toBeLessThanOrEqual(QUOTAS.tasks);
        expect(text.length).toBeLessThan(TASKS_VIEW_MAX_BYTES);
        // Sessions without a listed task are the idle ones memory keeps, at most its limit.
        seen.mostSessions = Math.max(seen.mostSessions, sessions.length);
        expect(sessions.length).toBeLessThanOrEqual(tasks.length + DEFAULT_RUNTIME_LIMITS.sessions);

        // Another agent and the operator go on: a call each, a session for the other agent, the tool list.
        const started = performance.now();
        const calmCall = await as('calm', 'POST', '/tools/call', { tool: 'time_now', sessionId: 'agent:calm/probe' });
        expect(calmCall.status, `another agent's call: ${await calmCall.text()}`).toBe(200);
        const calmSession = await as('calm', 'POST', '/mcp', INITIALIZE, MCP_HEADERS);
        const calmAnswer = await calmSession.text();
        const calmId = calmSession.headers.get('mcp-session-id');
        // Ended whatever follows, so that a failing case leaves the next (fast-check shrinking) nothing held.
        const calmEnded = calmId ? await as('calm', 'DELETE', '/mcp', undefined, { 'mcp-session-id': calmId }) : undefined;
        await calmEnded?.body?.cancel();
        expect(calmSession.status, `another agent's MCP session: ${calmAnswer.slice(0, 300)}`).toBe(200);
        expect(calmEnded?.status, "another agent's DELETE /mcp").toBe(200);
        const operatorCall = await gw.request('/tools/call', { method: 'POST', body: { tool: 'time_now', sessionId: 'operator' } });
        expect(operatorCall.status, `the operator's call: ${await operatorCall.text()}`).toBe(200);
        expect((await gw.request('/tools')).status).toBe(200);
        expect(performance.now() - started).toBeLessThan(5_000);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    // The flood did reach its quotas, or the properties above held for nothing.
    expect(seen.mostHeld).toBe(QUOTAS.tasks);
    expect(seen.answers.get('LIMIT_REACHED') ?? 0).toBeGreaterThan(0);
    expect(seen.answers.get('mcp LIMIT_REACHED') ?? 0).toBeGreaterThan(0);
  });
});
