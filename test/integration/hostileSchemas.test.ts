/**
 * A hostile MCP server's schemas (issue 18 items 1 and 13), through a real gateway: a `pattern`
 * and a `patternProperties` name that backtrack catastrophically in JavaScript are evaluated
 * with RE2, so the call is answered at once and `GET /tools` stays fast meanwhile; a pattern RE2
 * cannot take and a schema 500 levels deep make their tools diagnostics, never callable; and an
 * agent without `execute` on a tool is refused NOT_GRANTED before its arguments are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { fixtureStdio, send, waitForProvider, type Json } from '../support/mcp';

let gw: TestGateway;
let agentToken: string;
/** Backtracking would take longer than the universe has; RE2 reads it once. */
const HOSTILE = `${'a'.repeat(10_000)}!`;

beforeAll(async () => {
  gw = await startTestGateway({
    config: {
      mcpServers: { fixture: fixtureStdio({ FIXTURE_HOSTILE: '1' }) },
      // Agents hold nothing on `redos`; the operator keeps execute.
      agentGrants: [{ pattern: 'fixture:redos', authority: 'none' }],
    },
  });
  await waitForProvider(gw.host, 'fixture');
  agentToken = gw.host.agents.create('hostile').token;
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

async function asAgent(body: unknown) {
  const response = await fetch(new URL('/tools/call', gw.url), { method: 'POST', headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

const listTools = async () => {
  const response = await gw.request('/tools');
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
};

describe('a hostile MCP server’s schemas', { timeout: 60_000 }, () => {
  it('a backtracking pattern is checked in linear time: the call is refused at once and GET /tools answers within 100 ms meanwhile', async () => {
    await listTools();
    const hostile = Array.from({ length: 4 }, () => timed(() => gw.call({ tool: 'fixture:redos', arguments: { q: HOSTILE } })));
    const list = timed(listTools);
    const [calls, listed] = await Promise.all([Promise.all(hostile), list]);
    for (const { value, ms } of calls) {
      expect(value.body.error).toMatchObject({ code: 'ARGUMENT_INVALID', field: 'q' });
      expect(ms).toBeLessThan(2_000);
    }
    console.info(`GET /tools during 4 hostile calls: ${listed.ms.toFixed(1)} ms; hostile calls ${calls.map(({ ms }) => ms.toFixed(1)).join(', ')} ms`);
    expect(listed.ms).toBeLessThan(100);
    expect((await gw.call({ tool: 'fixture:redos', arguments: { q: 'a'.repeat(10_000) } })).body).toMatchObject({ ok: true });
  });

  it('a backtracking patternProperties name too', async () => {
    const refused = await timed(() => gw.call({ tool: 'fixture:redos_keys', arguments: { [HOSTILE]: 1 } }));
    expect(refused.value.body.error).toMatchObject({ code: 'ARGUMENT_INVALID' });
    expect(refused.ms).toBeLessThan(2_000);
    expect((await gw.call({ tool: 'fixture:redos_keys', arguments: { aaa: 1 } })).body).toMatchObject({ ok: true });
  });

  it('a pattern RE2 cannot take and a schema 500 levels deep are diagnostics, not tools', async () => {
    const { body: diagnostics } = await send(gw, 'GET', '/diagnostics');
    const reasons = [...JSON.stringify(diagnostics).matchAll(/"reason":("(?:[^"\\]|\\.)*")/g)].map((match) => JSON.parse(match[1]!) as string);
    expect(reasons).toContain('tool "backreference" is invalid: inputSchema does not compile: pattern "^(a+)\\\\1$" uses a backreference, which RE2 cannot evaluate in linear time');
    expect(reasons).toContain('tool "deep" is invalid: inputSchema nests deeper than 100 levels');
    const ids = ((await listTools()).tools as Json[]).map((tool) => (tool.contract as Json | undefined)?.id ?? tool.id ?? tool.name);
    expect(ids).toContain('fixture:redos');
    expect(ids).not.toContain('fixture:backreference');
    expect(ids).not.toContain('fixture:deep');
    for (const tool of ['fixture:backreference', 'fixture:deep']) {
      expect((await gw.call({ tool, arguments: { q: 'aa' } })).body.error, tool).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    }
  });

  it('a backtracking pattern in an outputSchema: the server’s own answer is checked with RE2, refused at once, GET /tools within 100 ms meanwhile', async () => {
    await listTools();
    const hostile = Array.from({ length: 4 }, () => timed(() => gw.call({ tool: 'fixture:redos_output', arguments: { q: HOSTILE } })));
    const list = timed(listTools);
    const [calls, listed] = await Promise.all([Promise.all(hostile), list]);
    for (const { value, ms } of calls) {
      // The tool ran; its answer does not match its own outputSchema, which a call reports as TOOL_FAILED.
      expect(value.body.error).toMatchObject({ code: 'TOOL_FAILED' });
      expect(String(value.body.error?.message)).toContain("does not match the tool's output schema");
      expect(ms).toBeLessThan(2_000);
    }
    console.info(`GET /tools during 4 hostile answers: ${listed.ms.toFixed(1)} ms; calls ${calls.map(({ ms }) => ms.toFixed(1)).join(', ')} ms`);
    expect(listed.ms).toBeLessThan(100);
    const matching = await gw.call({ tool: 'fixture:redos_output', arguments: { q: 'a'.repeat(10_000) } });
    expect(matching.body).toMatchObject({ ok: true, result: { structuredContent: { q: 'a'.repeat(10_000) } } });
  });

  it('an outputSchema RE2 cannot take, or 500 levels deep, makes its tool a diagnostic, as in an inputSchema', async () => {
    const { body: diagnostics } = await send(gw, 'GET', '/diagnostics');
    const reasons = [...JSON.stringify(diagnostics).matchAll(/"reason":("(?:[^"\\]|\\.)*")/g)].map((match) => JSON.parse(match[1]!) as string);
    expect(reasons).toContain(
      'tool "backreference_output" is invalid: outputSchema does not compile: pattern "^(a+)\\\\1$" uses a backreference, which RE2 cannot evaluate in linear time',
    );
    expect(reasons).toContain('tool "deep_output" is invalid: outputSchema nests deeper than 100 levels');
    for (const tool of ['fixture:backreference_output', 'fixture:deep_output']) {
      expect((await gw.call({ tool, arguments: { q: 'aa' } })).body.error, tool).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    }
  });

  it('an agent without execute on the tool is refused NOT_GRANTED, its arguments never checked', async () => {
    const refused = await asAgent({ tool: 'fixture:redos', arguments: { q: HOSTILE } });
    expect(refused.body.error).toMatchObject({ code: 'NOT_GRANTED', held: 'none' });
    // The same agent's arguments are checked where it holds execute.
    expect((await asAgent({ tool: 'fixture:redos_keys', arguments: { [HOSTILE]: 1 } })).body.error).toMatchObject({ code: 'ARGUMENT_INVALID' });
  });
});
