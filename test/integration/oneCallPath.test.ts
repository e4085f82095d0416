/**
 * Issue 16, "Done when": every way in (HTTP, IPC, `/mcp`, `capstan mcp`, Harn) reaches tools
 * through the one call service (electron/services/calls.ts), so one refusal looks the same from
 * each: the same code in the same envelope, one 'request failed' log line naming its requestId,
 * and a `call_finished` ledger entry (status refused) under the caller's principal.
 *
 * One real gateway, whose config lowers `builtin:todo_list` to `load`: it can be discovered and
 * loaded but not run, so calling it is refused with NOT_GRANTED wherever the call comes from.
 *
 * - HTTP: `POST /tools/call` on loopback, with the operator's token and with an agent's.
 * - IPC: `createIpcDispatcher` over the same host's handlers and logger, as the desktop app's
 *   main process wires it (electron/shell/app.ts), minus Electron itself.
 * - `/mcp`: the official SDK client over Streamable HTTP with an agent token, walking discover →
 *   tools_load → capability_call.
 * - `capstan mcp`: the built CLI (dist/cli.js, `npm run build` first) spawned as an MCP host
 *   launches it, on stdio; it finds this gateway through the data dir's gateway.json.
 * - Harn: harn.command points at test/support/harnDriver.ts, a faithful driver of Harn's side of
 *   the wire protocol (Harn, a Rust program, cannot be installed here). It knows nothing of
 *   Capstan: its transcript records what a script's `builtin_call` got back. Over Harn the
 *   envelope travels as a JSON-RPC error: its `message` is the envelope's error message, its
 *   `data` the code, the details, the requestId and the taskId (electron/harn/bridge.ts rpcError).
 *
 * The call service itself is watched (a spy on CallService.prototype.call), so each refusal is
 * shown to have gone through it, with the principal its way in named.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallService, type CallContext, type ToolCall } from '../../electron/services/calls';
import { createIpcDispatcher } from '../../electron/transports/ipc';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { driverConfig, startScript, stepNamed, violations } from '../support/harnDriver.runs';
import type { Json } from '../support/mcp';
import { connectHttp, connectStdio, type McpTestClient } from '../support/mcpClient';
import { CLI } from '../support/serveProcess';

const TOOL = 'todo_list';
const TOOL_ID = `builtin:${TOOL}`;

/** The envelope's `error`, identical from every way in. */
const NOT_GRANTED = {
  code: 'NOT_GRANTED',
  message: `NOT_GRANTED: ${TOOL_ID} needs "execute", the task holds "load"`,
  held: 'load',
  needed: 'execute',
};

let gw: TestGateway;
let dir: string;
const tokens: Record<string, string> = {};
const open: McpTestClient[] = [];
/** What reached the call service: one entry per CallService.call. */
const serviced: { requestId: string; principal: string; tool: string }[] = [];
/** Each way in's refusal, as its client received it, in the envelope's shape. */
const refusals: { way: string; principal: string; envelope: Json }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-one-call-path-'));
  gw = await startTestGateway({
    config: {
      harn: driverConfig(),
      grants: [
        { pattern: 'builtin:*', authority: 'execute' },
        { pattern: TOOL_ID, authority: 'load' },
        { pattern: 'skills:*', authority: 'activate' },
      ],
    },
  });
  for (const name of ['http-agent', 'mcp-agent', 'stdio-agent']) {
    const created = await gw.request('/agents', { method: 'POST', body: { name } });
    expect(created.status).toBe(200);
    tokens[name] = ((await created.json()) as { token: string }).token;
  }
  const call = CallService.prototype.call;
  vi.spyOn(CallService.prototype, 'call').mockImplementation(function (this: CallService, toolCall: ToolCall, context: CallContext) {
    serviced.push({ requestId: context.requestId, principal: context.principal, tool: toolCall.tool });
    return call.call(this, toolCall, context);
  });
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.map((client) => client.close().catch(() => undefined)));
  await gw?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * What every way in must show for its refusal: the envelope, the one log line with its requestId
 * (code and task, never the message), the ledger's refused call_finished under the principal,
 * and the call service having run it as that principal. Keeps the envelope for the final
 * comparison across ways in.
 */
function expectRefusal(way: string, envelope: Json, principal: string): void {
  expect(envelope, way).toEqual({ ok: false, requestId: expect.any(String), taskId: expect.any(String), error: NOT_GRANTED });
  const { requestId, taskId } = envelope as { requestId: string; taskId: string };

  const logged = gw.logs.filter((line) => line.msg === 'request failed' && line.requestId === requestId);
  expect(logged, `${way}: one 'request failed' line for ${requestId}`).toHaveLength(1);
  expect(logged[0], way).toMatchObject({ level: 30, code: 'NOT_GRANTED', taskId });
  expect(JSON.stringify(logged[0]), `${way}: the log keeps the message out`).not.toContain(NOT_GRANTED.message);

  // On record as every refusal the runtime makes: a start marked refused, then its end, both under the principal.
  const entries = gw.host.ledger.query({ requestId, limit: 10 });
  expect(entries.map((entry) => entry.kind), way).toEqual(['call_started', 'call_finished']);
  expect(entries[0], way).toMatchObject({ principal, taskId, capability: TOOL_ID, details: { refused: true } });
  expect(entries[1], way).toMatchObject({ principal, taskId, capability: TOOL_ID, details: { status: 'refused', code: 'NOT_GRANTED' } });

  expect(serviced.filter((entry) => entry.requestId === requestId), `${way} went through the call service`).toEqual([
    { requestId, principal, tool: expect.stringMatching(new RegExp(`^(builtin:)?${TOOL}$`)) },
  ]);
  refusals.push({ way, principal, envelope });
}

/** An MCP tool result's error, which must carry the envelope as structuredContent. */
function envelopeOfResult(way: string, result: { isError?: boolean; content: unknown[]; structuredContent?: Json }): Json {
  expect(result.isError, way).toBe(true);
  expect(result.content, way).toEqual([{ type: 'text', text: NOT_GRANTED.message }]);
  return result.structuredContent!;
}

/** discover → tools_load → capability_call, as a model walks it; the call is refused. */
async function discoverLoadAndCall(way: string, mcp: McpTestClient): Promise<Json> {
  const found = await mcp.call('capabilities_search', { query: 'list to-dos' });
  expect(found.isError, way).toBeFalsy();
  const item = (found.structuredContent!.items as Json[]).find((entry) => entry.reference.id === TOOL_ID);
  expect(item, `${way}: ${TOOL_ID} is discoverable`).toBeDefined();
  const loaded = await mcp.call('tools_load', { reference: item!.reference });
  expect(loaded.isError, `${way}: load is granted`).toBeFalsy();
  const called = await mcp.call('capability_call', { reference: item!.reference, arguments: {} });
  const envelope = envelopeOfResult(way, called);
  expect(envelope.taskId, `${way}: refused in the task it discovered in`).toBe(found.structuredContent!.taskId);
  return envelope;
}

describe('one call path: every way in shows the same refusal', { timeout: 60_000 }, () => {
  it('HTTP with the operator token', async () => {
    const { status, body, headers } = await gw.call({ tool: TOOL, arguments: {} });
    expect(status).toBe(403);
    expect(headers.get('x-request-id')).toBe(body.requestId);
    expectRefusal('HTTP (operator)', body, 'operator');
  });

  it('HTTP with an agent token', async () => {
    const response = await fetch(`${gw.url}/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens['http-agent']}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: TOOL, arguments: {} }),
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as Json;
    expect(response.headers.get('x-request-id')).toBe(body.requestId);
    expectRefusal('HTTP (agent)', body, 'agent:http-agent');
  });

  it('IPC, as the desktop window calls', async () => {
    const ask = vi.fn(async () => true);
    const consent = vi.fn(async () => true);
    const dispatcher = createIpcDispatcher({ handlers: gw.host.handlers, logger: gw.host.logger, ask, consent });
    const reply = await dispatcher('callTool', { tool: TOOL, arguments: {} });
    // IpcReply's failure is the envelope itself.
    expectRefusal('IPC', reply as Json, 'operator');
    expect(ask).not.toHaveBeenCalled();
    expect(consent).not.toHaveBeenCalled();
  });

  it('/mcp over Streamable HTTP with an agent token: discover, load, call', async () => {
    const mcp = await connectHttp(gw.url, tokens['mcp-agent']!);
    open.push(mcp);
    const envelope = await discoverLoadAndCall('/mcp', mcp);
    expectRefusal('/mcp', envelope, 'agent:mcp-agent');
  });

  it('capstan mcp on stdio, relaying to this gateway found through gateway.json', async () => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`).toBe(true);
    const mcp = await connectStdio(process.execPath, [CLI, 'mcp', '--data-dir', gw.dataDir], { PATH: process.env.PATH ?? '', CAPSTAN_TOKEN: tokens['stdio-agent']! });
    open.push(mcp);
    const envelope = await discoverLoadAndCall('capstan mcp', mcp);
    // It found the running gateway rather than starting one of its own.
    expect(mcp.stderr()).not.toContain('started a gateway');
    expectRefusal('capstan mcp', envelope, 'agent:stdio-agent');
  });

  it("Harn's builtin_call (through the Harn driver): the refusal, and a call that ran, on record under the script's principal", async () => {
    const harn = await startScript(gw, dir, {
      steps: [
        { toolCall: TOOL, args: {}, label: 'refused' },
        { toolCall: 'time_now', args: { timezone: 'UTC' }, label: 'ran' },
      ],
    });
    expect(harn.started.status).toBe(200);
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    expect(violations(transcript)).toEqual([]);
    const principal = `agent:harn.${basename(harn.script, '.harn')}`;

    // Harn reads every refusal as -32001 ("tool rejected"); the envelope rides in message and data.
    const refused = stepNamed(transcript, 'refused')!;
    expect(refused).toMatchObject({ category: 'rejected', error: { code: -32001 } });
    const { message, data } = refused.error as { message: string; data: Json };
    const { code, requestId, taskId, ...details } = data;
    expect(requestId).toMatch(/^harn-/);
    expect(taskId).toBe(harn.task.id);
    // Harn drops an error's data before the script sees it, so the message names the requestId too.
    const suffix = ` (requestId ${String(requestId)})`;
    expect(message.endsWith(suffix)).toBe(true);
    expectRefusal('Harn', { ok: false, requestId, taskId, error: { code, message: message.slice(0, -suffix.length), ...details } }, principal);

    // The call that ran is on record like any other: started and finished, under the script's principal, in its run's task.
    const ran = stepNamed(transcript, 'ran')!;
    expect(ran).toMatchObject({ category: 'ok', result: { timezone: 'UTC' } });
    const calls = gw.host.ledger.query({ taskId: harn.task.id, capability: 'builtin:time_now', limit: 10 });
    const started = calls.filter((entry) => entry.kind === 'call_started');
    expect(started).toHaveLength(1);
    const ranId = started[0]!.requestId!;
    expect(ranId).toMatch(/^harn-/);
    const entries = gw.host.ledger.query({ requestId: ranId, limit: 10 });
    expect(entries.map((entry) => entry.kind)).toEqual(['call_started', 'call_finished']);
    for (const entry of entries) expect(entry).toMatchObject({ principal, taskId: harn.task.id, capability: 'builtin:time_now' });
    expect(entries[1]!.details).toMatchObject({ status: 'ok' });
    expect(serviced.filter((entry) => entry.requestId === ranId)).toEqual([{ requestId: ranId, principal, tool: 'time_now' }]);
    // Logged as any successful call is: one 'tool call finished' line with its requestId.
    expect(gw.logs.filter((line) => line.msg === 'tool call finished' && line.requestId === ranId)).toHaveLength(1);
  });

  it('all of them: one envelope, differing only in requestId and task', () => {
    expect(refusals.map(({ way }) => way)).toEqual(['HTTP (operator)', 'HTTP (agent)', 'IPC', '/mcp', 'capstan mcp', 'Harn']);
    expect(refusals.map(({ principal }) => principal)).toEqual([
      'operator',
      'agent:http-agent',
      'operator',
      'agent:mcp-agent',
      'agent:stdio-agent',
      expect.stringMatching(/^agent:harn\.script-\d+$/),
    ]);
    const shapes = refusals.map(({ envelope }) => ({ ...envelope, requestId: '<requestId>', taskId: '<taskId>' }));
    for (const shape of shapes) expect(shape).toEqual(shapes[0]);
    // Every refusal had a requestId of its own.
    expect(new Set(refusals.map(({ envelope }) => envelope.requestId)).size).toBe(refusals.length);
  });
});
