/**
 * A broken or hostile Harn child cannot make the gateway hold without bound what it sends or is
 * sent, nor flood the operator's approvals, through the real gateway with test/support/harnDriver.ts
 * playing the child: one that stops reading is ended, a flood of requests or of human-in-the-loop
 * notifications is served only up to a bound, a request too large to review is refused rather
 * than put before the operator, and an `id` inside a tool's arguments is data like any other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { driverConfig, fromCapstan, startScript, stepNamed } from '../support/harnDriver.runs';
import { send, waitFor, type Json } from '../support/mcp';

const GRACE_MS = 400;
let gateway: TestGateway;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-harn-hostile-'));
  // Room for more approvals than the bounds under test, so those bounds are what a flood meets;
  // a deadline short enough that a run that is never ended shows as its expiry.
  gateway = await startTestGateway({ config: { harn: driverConfig({ timeoutMs: 15_000 }), cancellation: { graceMs: GRACE_MS }, quotas: { pendingApprovals: 1000 } } });
}, 60_000);

afterAll(async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
});

const run = (scenario: Json) => startScript(gateway, dir, scenario);
/** The run's approvals waiting for the operator, as `GET /approvals` lists them. */
const pendingApprovals = (taskId: string) => gateway.host.approvals.list().pending.filter((approval) => approval.taskId === taskId);
const harnLines = async (taskId: string) => (await send(gateway, 'GET', `/harn/run?taskId=${taskId}`)).body.updates as Json[];

describe('a child that does not keep up', () => {
  it('one that stops reading its input while it keeps asking is ended as a protocol error, not buffered for', async () => {
    // Each answer echoes its 16 KiB id: 1,500 of them are far more than 16 MiB left unread.
    const longId = JSON.stringify('x'.repeat(16 * 1024));
    const harn = await run({
      steps: [{ stopReading: true }, { burst: { raw: `{"jsonrpc":"2.0","id":${longId},"method":"host/capabilities","params":{}}` }, count: 1_500 }, { waitForCancel: true }],
    });
    expect(await harn.ended()).toMatchObject({ state: 'failed', finalMessage: "protocol error: Harn does not read its input: over 16 MiB of Capstan's messages wait unread in its stdin" });
  });

  it('serves 64 of its requests at once; one more is refused at once as not run, the rest wait for the operator', async () => {
    const harn = await run({ steps: [{ burst: { toolCall: 'http_check', args: { url: 'https://example.com/' }, label: 'flooded' }, count: 100 }, { waitForCancel: true }] });
    const refused = () => harn.transcript().filter((entry) => entry.step === 'flooded' && entry.category === 'rejected');
    await waitFor('every request to be answered or waiting for the operator', () => (pendingApprovals(harn.task.id).length + refused().length >= 100 ? true : undefined));
    expect(pendingApprovals(harn.task.id)).toHaveLength(64);
    expect(refused()).toHaveLength(36);
    expect(refused()[0]).toMatchObject({
      error: { code: -32001, message: "LIMIT_REACHED: Capstan serves at most 64 of a script's requests at once; this one was not run, send it again once some are answered" },
    });
    expect((await send(gateway, 'POST', `/tasks/${harn.task.id}/cancel`, {})).body.state).toBe('cancelled');
  });

  it('past 100 open human-in-the-loop requests, at most 100 refusals wait for Harn at once; later requests get no answer', async () => {
    const harn = await run({
      ignoreHitlRespond: true,
      steps: [{ burst: { hitl: 'ask_user', prompt: 'Which region?', timeoutMs: 60_000 }, count: 300 }, { request: 'host/capabilities', label: 'after the flood' }, { waitForCancel: true }],
    });
    // Capstan reads in order: once the request after the flood is answered, every notification was handled.
    await waitFor('the request after the flood to be answered', () => stepNamed(harn.transcript(), 'after the flood'));
    const responses = fromCapstan(harn.transcript()).filter((message) => message.method === 'harn.hitl.respond');
    expect(responses).toHaveLength(100);
    expect(responses.every((message) => (message.params as Json).reason === 'Capstan: too many open requests')).toBe(true);
    expect(pendingApprovals(harn.task.id)).toHaveLength(100);
    const notAnswered = (await harnLines(harn.task.id)).filter((line) => /further requests are not answered/.test(String(line.text)));
    expect(notAnswered).toHaveLength(1);
    expect((await send(gateway, 'POST', `/tasks/${harn.task.id}/cancel`, {})).body.state).toBe('cancelled');
  });
});

describe('what a script may put before the operator', () => {
  const bulky = { content: 'x'.repeat(100_000) };

  /** Waits until the step is recorded, or an approval for the run appears instead; says which. */
  function refusedOrAsked(harn: { task: { id: string }; transcript(): Json[] }, label: string): Promise<{ step?: Json; approvals: unknown[] }> {
    return waitFor(`${label} to be refused or put before the operator`, () => {
      const step = stepNamed(harn.transcript(), label);
      const approvals = pendingApprovals(harn.task.id);
      return step || approvals.length > 0 ? { ...(step ? { step } : {}), approvals } : undefined;
    });
  }

  it.each(['0.10', '0.7.50'])('a permission request whose tool input is over 64 KiB is refused, not shown (Harn %s)', async (version) => {
    const harn = await run({ version, steps: [{ permission: { toolCallId: 'big-1', toolName: 'write_file', kind: 'edit', rawInput: bulky }, label: 'too big' }] });
    const { step, approvals } = await refusedOrAsked(harn, 'too big');
    expect(approvals).toEqual([]);
    expect(step).toMatchObject({ category: 'ok', allowed: false });
    if (version === '0.7.50') expect(step?.reason).toMatch(/^Capstan: its tool input is 98 KiB of JSON, over the 64 KiB an operator is shown; not put before the operator$/);
    expect((await harn.ended()).state).toBe('succeeded');
  });

  it('a request_approval whose args are over 64 KiB is denied with the reason, not shown', async () => {
    const harn = await run({ steps: [{ hitl: 'request_approval', action: 'deploy', args: bulky, label: 'too big' }] });
    const { step, approvals } = await refusedOrAsked(harn, 'too big');
    expect(approvals).toEqual([]);
    expect(step).toMatchObject({ hitl: 'denied', error: { name: 'ApprovalDeniedError', message: 'Capstan: its args is 98 KiB of JSON, over the 64 KiB an operator is shown; not put before the operator' } });
  });
});

describe('ids', () => {
  it('an "id" inside a tool\'s arguments is checked as data: a non-finite one is an invalid request', async () => {
    const harn = await run({
      steps: [{ raw: '{"jsonrpc":"2.0","id":51,"method":"builtin_call","params":{"name":"time_now","args":[{"timezone":"UTC","note":{"jsonrpc":"2.0","id":1e400}}]}}', label: 'nested id' }, { waitForCancel: true }],
    });
    const { answer } = await waitFor('the answer to the call', () => stepNamed(harn.transcript(), 'nested id'));
    expect(answer).toMatchObject({ error: { code: -32600, message: expect.stringContaining('is not a finite number') } });
    expect((await send(gateway, 'POST', `/tasks/${harn.task.id}/cancel`, {})).body.state).toBe('cancelled');
  });
});
