/**
 * Harn runs through the real gateway. `harn.command` points at test/support/harnDriver.ts, a
 * faithful stand-in for Harn (which cannot be installed here): it speaks only Harn's side of the
 * wire protocol and knows nothing of Capstan, so what it records is what a Harn script would see.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { driverConfig, startScript, stepNamed, violations, waitForApproval as approvalFor } from '../support/harnDriver.runs';
import { fixtureStdio, send, waitForProvider, type Json } from '../support/mcp';

let gateway: TestGateway;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-harn-'));
  gateway = await startTestGateway({
    config: {
      harn: driverConfig({ permissionTimeoutMs: 1_500 }),
      cancellation: { graceMs: 400 },
      grants: [
        { pattern: 'builtin:*', authority: 'execute' },
        { pattern: 'builtin:todo_list', authority: 'load' },
        { pattern: 'builtin:device_inspect', authority: 'inspect' },
        { pattern: 'skills:*', authority: 'activate' },
      ],
      mcpServers: { fixture: fixtureStdio(), twin: fixtureStdio() },
    },
  });
  await waitForProvider(gateway.host, 'fixture');
  await waitForProvider(gateway.host, 'twin');
}, 60_000);

afterAll(async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
});

const run = (scenario: Json, options?: { sessionId?: string; prompt?: string }) => startScript(gateway, dir, scenario, options);
const waitForApproval = (taskId: string, after?: string) => approvalFor(gateway, taskId, after);

describe('a Harn run', () => {
  it('lists the tools the task may call in the normalized form, with clashing names under their ids', async () => {
    const harn = await run({ steps: [{ request: 'host/tools/list', label: 'list' }, { request: 'host/tools/list', params: { sessionId: 'not-this-one' }, label: 'wrong session' }] });
    expect(harn.started.status).toBe(200);
    expect(harn.task.title).toBe(`Harn: ${harn.script.split('/').at(-1)}`);
    const view = await harn.ended();
    expect(view.state).toBe('succeeded');
    const transcript = harn.transcript();
    const tools = (stepNamed(transcript, 'list')!.result as { tools: Json[] }).tools;
    const names = tools.map((tool) => tool.name);
    for (const tool of tools) expect(Object.keys(tool).sort()).toEqual(['deprecated', 'description', 'name', 'schema']);
    expect(tools.find((tool) => tool.name === 'time_now')).toMatchObject({ description: expect.any(String), schema: { type: 'object' }, deprecated: false });
    // Granted load: listed (calling it needs execute). Granted inspect: not listed.
    expect(names).toContain('todo_list');
    expect(names).not.toContain('device_inspect');
    // Two servers offer `plain`: the one registered first keeps the name, the later one shows its id.
    expect(names).toContain('plain');
    expect(names).toContain('twin:plain');
    expect(names).not.toContain('fixture:plain');
    expect(stepNamed(transcript, 'wrong session')).toMatchObject({ category: 'host error', error: { code: -32602 } });
    expect(violations(transcript)).toEqual([]);
  });

  it('runs a call through the policy path with its own requestId, as the script principal, and returns the tool result', async () => {
    const harn = await run({
      steps: [
        { stderr: 'compiling inspect_readme' },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Checking ' } } },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the time.' } } },
        { update: { sessionUpdate: 'tool_call', toolCallId: 'tool-1', title: 'read', kind: 'read', status: 'pending', rawInput: { path: 'README.md' } } },
        { update: { sessionUpdate: 'tool_call_update', toolCallId: 'tool-1', status: 'completed', rawOutput: { ok: true } } },
        { update: { sessionUpdate: 'log', level: 'info', message: 'about to call' } },
        { update: { sessionUpdate: 'progress', phase: 'call', message: 'halfway', progress: 1, total: 2 } },
        { update: { sessionUpdate: 'skill_activated', skillName: 'rust' } },
        { toolCall: 'time_now', args: { timezone: 'UTC' }, label: 'call', id: '18446744073709551615' },
      ],
    }, { prompt: 'what time is it?' });
    const view = await harn.ended();
    expect(view.state).toBe('succeeded');
    expect(view.finalMessage).toBe('Checking the time. (stopReason "end_turn")');
    const transcript = harn.transcript();
    expect(transcript.find((entry) => 'prompt' in entry)?.prompt).toEqual([{ type: 'text', text: 'what time is it?' }]);
    const call = stepNamed(transcript, 'call')!;
    expect(call).toMatchObject({ category: 'ok', result: { timezone: 'UTC' } });
    // The u64 id came back exactly as sent.
    expect(transcript.some((entry) => entry.dir === 'in' && String(entry.line).startsWith('{"jsonrpc":"2.0","id":18446744073709551615,"result"'))).toBe(true);
    expect(violations(transcript)).toEqual([]);

    const started = gateway.host.ledger.query({ taskId: harn.task.id, kind: 'call_started', limit: 10 });
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ capability: 'builtin:time_now', requestId: expect.stringMatching(/^harn-/) });
    expect((started[0] as Json).principal).toMatch(/^agent:harn\.script-\d+$/);
    const finished = gateway.host.ledger.query({ requestId: started[0]!.requestId!, kind: 'call_finished', limit: 10 });
    expect(finished[0]?.details.status).toBe('ok');

    const runView = (await send(gateway, 'GET', `/harn/run?taskId=${harn.task.id}`)).body;
    expect(runView).toMatchObject({ taskId: harn.task.id, state: 'ended', outcome: { state: 'succeeded' }, agent: { name: 'harn' }, prompt: 'what time is it?' });
    const lines = runView.updates as Json[];
    expect(lines.find((line) => line.kind === 'stderr' && line.text === 'compiling inspect_readme')).toBeDefined();
    expect(lines.filter((line) => line.kind === 'message').map((line) => line.text)).toEqual(['Checking the time.']);
    expect(lines.find((line) => line.kind === 'tool_call')).toMatchObject({ text: 'read (read)', status: 'completed' });
    expect(lines.find((line) => line.kind === 'log')?.text).toBe('info: about to call');
    expect(lines.find((line) => line.kind === 'progress')?.text).toBe('call: halfway (1/2)');
    expect(lines.find((line) => line.kind === 'host' && line.status === 'ok')).toMatchObject({ text: 'time_now: ok', requestId: started[0]!.requestId });
    expect((await send(gateway, 'GET', '/harn/runs')).body.runs.some((summary: Json) => summary.taskId === harn.task.id)).toBe(true);
  });

  it('answers every refusal with -32001 and Capstan code, message and requestId; a tool that ran and failed is a host error', async () => {
    gateway.host.catalog.setRevoked('builtin:local_status', true);
    try {
      const harn = await run({
        steps: [
          { toolCall: 'no_such_tool', label: 'unknown' },
          { toolCall: 'note_search', args: {}, label: 'missing' },
          { toolCall: 'time_now', args: { timezone: 7 }, label: 'invalid' },
          { request: 'builtin_call', params: { name: 'time_now', args: ['UTC'] }, label: 'not an object' },
          { toolCall: 'todo_list', label: 'not granted' },
          { toolCall: 'device_inspect', label: 'inspect only' },
          { toolCall: 'local_status', label: 'revoked' },
          { toolCall: 'fail', label: 'tool error' },
        ],
      });
      expect((await harn.ended()).state).toBe('succeeded');
      const transcript = harn.transcript();
      const expectations: [string, string][] = [
        ['unknown', 'TOOL_NOT_FOUND'],
        ['missing', 'ARGUMENT_MISSING'],
        ['invalid', 'ARGUMENT_INVALID'],
        ['not an object', 'ARGUMENT_INVALID'],
        ['not granted', 'NOT_GRANTED'],
        ['inspect only', 'NOT_GRANTED'],
        ['revoked', 'CAPABILITY_REVOKED'],
      ];
      for (const [label, code] of expectations) {
        const step = stepNamed(transcript, label)!;
        expect(step, label).toMatchObject({ category: 'rejected', error: { code: -32001, message: expect.stringMatching(new RegExp(`^${code}: .* \\(requestId harn-[0-9a-f-]+\\)$`)), data: { code, requestId: expect.stringMatching(/^harn-/), taskId: harn.task.id } } });
        // Harn drops `data`: the script sees the requestId in the message.
        expect(String((step.error as Json).message).endsWith(`(requestId ${String(((step.error as Json).data as Json).requestId)})`), label).toBe(true);
      }
      expect(stepNamed(transcript, 'tool error')).toMatchObject({ category: 'host error', error: { code: -32000, data: { code: 'TOOL_ERROR' } } });
      // The grant refusal is on record under its requestId, as every refusal the runtime makes.
      const notGranted = (stepNamed(transcript, 'not granted')!.error as { data: { requestId: string } }).data.requestId;
      expect(gateway.host.ledger.query({ requestId: notGranted, kind: 'call_finished', limit: 5 })[0]?.details).toMatchObject({ status: 'refused', code: 'NOT_GRANTED' });
    } finally {
      gateway.host.catalog.setRevoked('builtin:local_status', false);
    }
  });

  it('refuses a call whose tool changed since the task began (held for review: CONTRACT_CHANGED) and a mutation while an outcome is unknown', async () => {
    const stale = await run({
      steps: [
        { toolCall: 'reshape', label: 'reshape' },
        { sleep: 500 },
        { toolCall: 'shape', args: { size: 1 }, label: 'stale' },
      ],
    });
    expect((await stale.ended()).state).toBe('succeeded');
    expect(stepNamed(stale.transcript(), 'reshape')).toMatchObject({ category: 'ok' });
    // The server changed the tool: it is held until the operator accepts it (pinned contracts), which comes before its being stale.
    expect(stepNamed(stale.transcript(), 'stale')).toMatchObject({ category: 'rejected', error: { code: -32001, data: { code: 'CONTRACT_CHANGED' } } });

    // A mutating call of the session whose outcome is unknown gates every later mutation.
    const sessionId = 'gated';
    const { tasks } = gateway.host;
    const blocker = tasks.start(sessionId, 'an unknown outcome');
    void tasks.runCall(blocker, { requestId: 'stuck-write', capability: 'builtin:note_add', mutating: true, timeoutMs: 60_000 }, () => new Promise(() => {})).catch(() => undefined);
    await tasks.cancel(blocker.id);
    const gated = await run({ steps: [{ toolCall: 'note_add', args: { body: 'hello' }, label: 'write' }, { toolCall: 'note_search', args: { query: 'hello' }, label: 'read' }] }, { sessionId });
    expect((await gated.ended()).state).toBe('succeeded');
    expect(stepNamed(gated.transcript(), 'write')).toMatchObject({ category: 'rejected', error: { code: -32001, data: { code: 'MUTATION_BLOCKED' } } });
    expect(stepNamed(gated.transcript(), 'read')).toMatchObject({ category: 'ok' });
  });

  it('makes a call that needs confirmation wait for the operator: denied is -32001, approved runs once', async () => {
    const harn = await run({
      steps: [
        { toolCall: 'http_check', args: { url: 'http://127.0.0.1:9/' }, label: 'denied' },
        { toolCall: 'http_check', args: { url: 'http://127.0.0.1:9/' }, label: 'approved' },
      ],
    });
    for (const decision of ['deny', 'approve'] as const) {
      const approval = await waitForApproval(harn.task.id);
      expect(approval).toMatchObject({ principal: expect.stringMatching(/^agent:harn\./), tool: { id: 'builtin:http_check' }, arguments: { url: 'http://127.0.0.1:9/' } });
      expect((await send(gateway, 'POST', `/approvals/${approval.id}`, { decision })).status).toBe(200);
    }
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    expect(stepNamed(transcript, 'denied')).toMatchObject({ category: 'rejected', error: { code: -32001, data: { code: 'CONFIRMATION_DENIED' } } });
    // Approved, it ran: http_check then refused the loopback destination (config allows none), a refusal too.
    expect(stepNamed(transcript, 'approved')).toMatchObject({ category: 'rejected', error: { data: { code: 'DESTINATION_REFUSED' } } });
    expect(gateway.host.ledger.query({ taskId: harn.task.id, kind: 'confirmation', limit: 5 })).toHaveLength(1);
  });

  it('shows session/request_permission to the operator: allow and reject go back, no answer in time fails closed', async () => {
    const harn = await run({
      steps: [
        { permission: { toolCallId: 'call-1', title: 'edit_file', kind: 'edit', rawInput: { path: 'src/main.rs' } }, label: 'allowed' },
        { permission: { toolCallId: 'call-2', title: 'edit_file', kind: 'edit', rawInput: { path: 'src/lib.rs' } }, label: 'rejected' },
        { permission: { toolCallId: 'call-3', title: 'delete_file', kind: 'delete', rawInput: { path: 'Cargo.lock' } }, label: 'unanswered' },
      ],
    });
    const first = await waitForApproval(harn.task.id);
    expect(first).toMatchObject({ tool: { name: 'edit_file', riskLevel: 'high', mutating: true }, arguments: { path: 'src/main.rs' } });
    await send(gateway, 'POST', `/approvals/${first.id}`, { decision: 'approve' });
    const second = await waitForApproval(harn.task.id, first.id);
    await send(gateway, 'POST', `/approvals/${second.id}`, { decision: 'deny' });
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    expect(stepNamed(transcript, 'allowed')).toMatchObject({ allowed: true, result: { outcome: { outcome: 'selected', optionId: 'allow' } } });
    expect(stepNamed(transcript, 'rejected')).toMatchObject({ allowed: false, result: { outcome: { outcome: 'selected', optionId: 'reject' } } });
    expect(stepNamed(transcript, 'unanswered')).toMatchObject({ allowed: false, result: { outcome: { outcome: 'cancelled' } } });
  });
});
