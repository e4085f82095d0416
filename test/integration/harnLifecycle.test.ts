/**
 * A Harn run's life as a task, through the real gateway, with test/support/harnDriver.ts standing
 * in for Harn (a faithful stand-in that speaks only Harn's side of the protocol, not a mock of
 * Capstan): cancel and supersede reach the script and wait for it, steer reaches it,
 * and every way a run can fail (early exit mid-call, a protocol error, a prompt that does not end
 * naturally, the deadline, no binary) ends the task failed with the reason, while malformed
 * messages get JSON-RPC errors and change nothing else.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { driverConfig, fromCapstan, startScript, stepNamed, violations, waitForApproval } from '../support/harnDriver.runs';
import { fixtureStdio, send, waitFor, waitForProvider, type Json } from '../support/mcp';

const GRACE_MS = 400;
let gateway: TestGateway;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-harn-life-'));
  gateway = await startTestGateway({ config: { harn: driverConfig(), cancellation: { graceMs: GRACE_MS }, mcpServers: { fixture: fixtureStdio() } } });
  await waitForProvider(gateway.host, 'fixture');
}, 60_000);

afterAll(async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
});

const run = (scenario: Json, options?: { sessionId?: string }) => startScript(gateway, dir, scenario, options);
const prompted = (harn: { transcript(): Json[] }) => waitFor('the prompt to run', () => (harn.transcript().some((entry) => 'prompt' in entry) ? true : undefined));
const harnRun = async (taskId: string) => (await send(gateway, 'GET', `/harn/run?taskId=${taskId}`)).body;

describe('cancel and supersede', () => {
  it('cancel sends session/cancel and answers once the script has stopped', async () => {
    const harn = await run({ steps: [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'working' } } }, { waitForCancel: true }] });
    await prompted(harn);
    const cancelled = await send(gateway, 'POST', `/tasks/${harn.task.id}/cancel`, {});
    expect(cancelled.body).toMatchObject({ id: harn.task.id, state: 'cancelled' });
    expect(harn.transcript().some((entry) => entry.cancelled === true && entry.prompting === true)).toBe(true);
    // The barrier waited for the run: its prompt ended "cancelled" and the child is gone.
    const answered = fromCapstan(harn.transcript());
    expect(answered.some((message) => message.method === 'session/cancel')).toBe(true);
    expect(await harnRun(harn.task.id)).toMatchObject({ state: 'ended', outcome: { state: 'cancelled' } });
  });

  it('a script that ignores session/cancel is killed after the grace period', async () => {
    const harn = await run({ ignoreCancel: true, steps: [{ waitForCancel: true }, { sleep: 60_000 }] });
    await prompted(harn);
    const before = Date.now();
    expect((await send(gateway, 'POST', `/tasks/${harn.task.id}/cancel`, {})).body.state).toBe('cancelled');
    expect(Date.now() - before).toBeGreaterThanOrEqual(GRACE_MS - 50);
    const lines = (await harnRun(harn.task.id)).updates as Json[];
    expect(lines.some((line) => /did not end within \d+ ms of session\/cancel; killed/.test(String(line.text)))).toBe(true);
  });

  it('cancel withdraws a call waiting for approval; it never runs', async () => {
    const harn = await run({ steps: [{ toolCall: 'http_check', args: { url: 'https://example.com/' }, label: 'waiting' }, { waitForCancel: true }] });
    const approval = await waitForApproval(gateway, harn.task.id);
    expect((await send(gateway, 'POST', `/tasks/${harn.task.id}/cancel`, {})).body.state).toBe('cancelled');
    expect((await send(gateway, 'GET', '/approvals')).body.recent.find((ended: Json) => ended.id === approval.id)).toMatchObject({ status: 'withdrawn' });
    expect(gateway.host.ledger.query({ taskId: harn.task.id, kind: 'call_finished', limit: 5 })[0]?.details).toMatchObject({ status: 'refused' });
  });

  it('supersede stops the run, waits for it, then starts the replacement', async () => {
    const sessionId = 'superseded-run';
    const harn = await run({ steps: [{ waitForCancel: true }] }, { sessionId });
    await prompted(harn);
    const next = await send(gateway, 'POST', '/tasks', { action: 'supersede', sessionId, title: 'instead' });
    expect(next.body).toMatchObject({ title: 'instead', state: 'running', predecessorId: harn.task.id });
    expect(gateway.host.tasks.get(harn.task.id).state).toBe('superseded');
    expect(await harnRun(harn.task.id)).toMatchObject({ state: 'ended', outcome: { state: 'superseded' } });
    await send(gateway, 'POST', '/tasks', { action: 'finish', sessionId, message: 'done' });
  });
});

describe('steer', () => {
  it('is offered though Harn advertises nothing (no version does): session/inject goes as a request', async () => {
    // The old rule (steer only where initialize advertised _meta.harn.sessionInject) refused every real Harn.
    const harn = await run({ steps: [{ waitForSteer: true }] });
    await prompted(harn);
    expect((await harnRun(harn.task.id)).steerable).toBe(true);
    const steer = await send(gateway, 'POST', '/tasks', { action: 'steer', taskId: harn.task.id, sessionId: harn.task.sessionId, text: 'look at the tests first' });
    expect(steer.status).toBe(200);
    expect((await harn.ended()).state).toBe('succeeded');
    const inject = fromCapstan(harn.transcript()).find((message) => message.method === 'session/inject');
    expect(inject).toMatchObject({ id: expect.any(Number), params: { mode: 'steer', content: 'look at the tests first' } });
    expect(gateway.host.ledger.query({ taskId: harn.task.id, kind: 'steer', limit: 5 })).toHaveLength(1);
  });

  it('reaches the script as session/inject with mode steer, an advertisement or none', async () => {
    const harn = await run({ advertiseSteer: true, steps: [{ waitForSteer: true }] });
    await prompted(harn);
    const steer = await send(gateway, 'POST', '/tasks', { action: 'steer', taskId: harn.task.id, sessionId: harn.task.sessionId, text: 'look at the tests first' });
    expect(steer.body.steers).toMatchObject([{ text: 'look at the tests first' }]);
    expect((await harn.ended()).state).toBe('succeeded');
    expect(harn.transcript().find((entry) => 'steer' in entry)?.steer).toMatchObject({ mode: 'steer', content: 'look at the tests first', sessionId: expect.any(String) });
  });
});

describe('how a run fails', () => {
  it('a child that exits while its call runs: the call still ends on record, the task fails with the exit', async () => {
    const harn = await run({ steps: [{ stderr: 'about to crash' }, { toolCall: 'slow', args: { steps: 4, everyMs: 150 }, exitAfter: 100, exitCode: 3 }] });
    const view = await harn.ended();
    expect(view.state).toBe('failed');
    expect(view.finalMessage).toMatch(/^Harn exited \(code 3\) before the prompt ended; its last stderr line: about to crash$/);
    const started = gateway.host.ledger.query({ taskId: harn.task.id, kind: 'call_started', limit: 5 });
    expect(started).toHaveLength(1);
    expect(gateway.host.ledger.query({ requestId: started[0]!.requestId!, kind: 'call_finished', limit: 5 })).toHaveLength(1);
    expect((await send(gateway, 'GET', '/tools')).status).toBe(200);
  });

  it('answers malformed messages with JSON-RPC errors, echoing ids, and keeps running', async () => {
    const deep = `${'['.repeat(200)}${']'.repeat(200)}`;
    const harn = await run({
      steps: [
        { raw: 'this is not json' },
        { raw: '[1, 2]' },
        { raw: '{"jsonrpc":"1.0","id":41,"method":"host/tools/list"}' },
        { raw: '{"jsonrpc":"2.0","id":{"nested":true},"method":"host/tools/list"}' },
        { raw: '{"jsonrpc":"2.0","id":42,"method":7}' },
        { raw: '{"jsonrpc":"2.0","id":43,"method":"builtin_call","params":[1]}' },
        { raw: `{"jsonrpc":"2.0","id":44,"method":"builtin_call","params":{"name":"time_now","args":[${deep}]}}` },
        { raw: '{"jsonrpc":"2.0","id":"forty-five","method":"no/such/method"}' },
        { raw: '{"jsonrpc":"2.0","id":999999,"result":{}}' },
        { request: 'builtin_call', params: { name: 5 }, label: 'name not a string' },
        { request: 'builtin_call', params: { name: 'time_now', args: [{}, {}] }, label: 'two payloads' },
        { request: 'host/call', params: { sessionId: 'x', name: 'open_file', args: {} }, label: 'host/call' },
        { toolCall: 'time_now', label: 'still works' },
      ],
    });
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    const answers = fromCapstan(transcript).filter((message) => 'error' in message);
    const codeFor = (id: unknown) => (answers.find((message) => JSON.stringify(message.id) === JSON.stringify(id))?.error as Json | undefined)?.code;
    expect(answers.filter((message) => message.id === null).map((message) => (message.error as Json).code)).toEqual([-32700, -32600, -32600]);
    expect(codeFor(41)).toBe(-32600);
    expect(codeFor(42)).toBe(-32600);
    expect(codeFor(43)).toBe(-32602);
    expect(codeFor(44)).toBe(-32600);
    expect(codeFor('forty-five')).toBe(-32601);
    expect(stepNamed(transcript, 'name not a string')).toMatchObject({ category: 'host error', error: { code: -32602 } });
    expect(stepNamed(transcript, 'two payloads')).toMatchObject({ category: 'host error', error: { code: -32602 } });
    expect(stepNamed(transcript, 'host/call')).toMatchObject({ category: 'host error', error: { code: -32601, data: { code: 'HOST_CALL_UNSUPPORTED' } } });
    expect(stepNamed(transcript, 'still works')).toMatchObject({ category: 'ok' });
    expect(violations(transcript)).toEqual([]);
    const lines = (await harnRun(harn.task.id)).updates as Json[];
    expect(lines.filter((line) => line.kind === 'protocol').length).toBeGreaterThanOrEqual(7);
  });

  it('a prompt that does not end with terminal kind natural, or ends with an error, fails with the reason', async () => {
    const notNatural = await run({ end: { stopReason: 'end_turn', terminal: 'budget_exhausted' } });
    expect(await notNatural.ended()).toMatchObject({ state: 'failed', finalMessage: 'the prompt ended with stopReason "end_turn", terminal kind "budget_exhausted" (budget_exhausted), not "natural"' });
    const thrown = await run({ steps: [{ toolCall: 'no_such_tool', orFail: true }] });
    expect(await thrown.ended()).toMatchObject({ state: 'failed', finalMessage: expect.stringMatching(/^Tool rejected: TOOL_NOT_FOUND: /) });
  });

  it('a protocol error in the handshake fails the run', async () => {
    const harn = await run({ initialize: { protocolVersion: 2, agentCapabilities: {}, agentInfo: { name: 'harn', version: '9' } } });
    expect(await harn.ended()).toMatchObject({ state: 'failed', finalMessage: 'protocol error: initialize answered protocolVersion 2, not 1' });
  });

  it('refuses a script that is not an absolute path to a file, before any task starts', async () => {
    const before = (await send(gateway, 'GET', '/tasks')).body.tasks.length;
    for (const script of ['relative/script.harn', join(dir, 'missing.harn'), dir]) {
      const refused = await send(gateway, 'POST', '/harn/runs', { script });
      expect(refused.status, script).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'script' });
    }
    expect((await send(gateway, 'GET', '/tasks')).body.tasks.length).toBe(before);
  });
});

describe('settings', () => {
  it('a missing binary is HARN_UNAVAILABLE naming harn.command; the attempt is a failed task', async () => {
    const other = await startTestGateway({ config: { harn: { command: join(dir, 'no-harn-here') } } });
    try {
      const script = join(dir, 'any.harn');
      writeFileSync(script, '{}');
      const refused = await send(other, 'POST', '/harn/runs', { script });
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ code: 'HARN_UNAVAILABLE', message: expect.stringContaining('harn.command'), setting: 'harn.command' });
      expect(other.host.tasks.get(refused.body.taskId as string).view()).toMatchObject({ state: 'failed', finalMessage: expect.stringContaining('harn.command') });
    } finally {
      await other.stop();
    }
  });

  it('a run past harn.timeoutMs is cancelled and fails with the reason', async () => {
    // Long enough for the driver to start on a loaded machine (the deadline counts from the start).
    const other = await startTestGateway({ config: { harn: driverConfig({ timeoutMs: 5_000 }), cancellation: { graceMs: GRACE_MS } } });
    try {
      const harn = await startScript(other, dir, { steps: [{ waitForCancel: true }] });
      expect(await harn.ended()).toMatchObject({ state: 'failed', finalMessage: 'the run did not end within harn.timeoutMs (5 s)' });
      expect(harn.transcript().some((entry) => entry.cancelled === true)).toBe(true);
    } finally {
      await other.stop();
    }
  });
});
