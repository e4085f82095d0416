/**
 * Harn's own fixture files, replayed message for message through the driver (test/support/
 * harnDriver.ts, step "replay"): harn-serve 0.10.x's crates/harn-serve/tests/fixtures/acp/*.json
 * and v0.7.50's conformance/protocols/fixtures/acp/*.json, transcribed as data under
 * test/fixtures/harn/ (each names its source, version and commit in `_source`). Every message is
 * a notification: Capstan answers none of them, errs on none, and shows each in the run panel's
 * lines as asserted here; the one Harn calls invalid for a missing session is ignored, and so is
 * an unknown extension kind. The run still ends as it should.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { driverConfig, fromCapstan, startScript, violations } from '../support/harnDriver.runs';
import { send, type Json } from '../support/mcp';

let gateway: TestGateway;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-harn-fixtures-'));
  gateway = await startTestGateway({ config: { harn: driverConfig() } });
}, 60_000);

afterAll(async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
});

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/harn/${name}`, import.meta.url));

/** Replays one fixture in a run of the given version; returns the run's lines after the handshake's own. */
async function replay(name: string, version: '0.7.50' | '0.10'): Promise<{ lines: Json[]; sent: number; answered: Json[] }> {
  const path = fixture(name);
  const { messages, _source } = JSON.parse(readFileSync(path, 'utf8')) as { messages: Json[]; _source: Json };
  expect(_source).toMatchObject({ repository: 'burin-labs/harn', path: expect.stringMatching(/fixtures\/acp\//) });
  const harn = await startScript(gateway, dir, { version, steps: [{ replay: path }] });
  expect((await harn.ended()).state).toBe('succeeded');
  const transcript = harn.transcript();
  expect(violations(transcript)).toEqual([]);
  // Sent as the file has them, in order (the placeholder session made the run's own).
  const out = transcript.filter((entry) => entry.dir === 'out').map((entry) => JSON.parse(String(entry.line)) as Json);
  const replayed = out.filter((message) => message.id === undefined);
  const sessionId = ((out.find((message) => (message.result as Json | undefined)?.sessionId) ?? {}).result as Json | undefined)?.sessionId;
  const expected = messages.map((message) => {
    const params = message.params as Json | undefined;
    return params?.sessionId === 'session-1' ? { ...message, params: { ...params, sessionId } } : message;
  });
  expect(replayed.slice(0, expected.length)).toEqual(expected);
  // Capstan answers notifications with nothing; its only messages are its requests and answers to the driver's requests.
  const answered = fromCapstan(transcript).filter((message) => 'error' in message);
  const view = (await send(gateway, 'GET', `/harn/run?taskId=${harn.task.id}`)).body;
  const lines = (view.updates as Json[]).filter((line) => line.kind !== 'status' && line.kind !== 'stderr' && line.kind !== 'host');
  return { lines: lines.map((line) => ({ kind: line.kind, text: line.text, ...(line.status ? { status: line.status } : {}) })), sent: expected.length, answered };
}

describe('harn-serve 0.10.x fixtures (crates/harn-serve/tests/fixtures/acp)', () => {
  it('session_update_standard.json: a message, a thought, a tool call updated in place (one line, its last title and status), a plan', async () => {
    const { lines, answered } = await replay('session_update_standard.json', '0.10');
    expect(answered).toEqual([]);
    expect(lines).toEqual([
      { kind: 'message', text: 'hello' },
      { kind: 'thought', text: 'thinking' },
      { kind: 'tool_call', text: 'read', status: 'completed' },
      { kind: 'plan', text: 'Plan: ○ edit' },
    ]);
  });

  it('session_update_extensions.json: each of Harn’s extension kinds is one line, read from _meta.harn', async () => {
    const { lines, answered } = await replay('session_update_extensions.json', '0.10');
    expect(answered).toEqual([]);
    expect(lines).toEqual([
      { kind: 'harn', text: 'skill rust activated (matched)' },
      { kind: 'harn', text: 'skill rust deactivated' },
      { kind: 'harn', text: 'skill rust scopes the tools to read' },
      { kind: 'harn', text: 'tool search (semantic): read' },
      { kind: 'harn', text: 'tool search found read' },
      { kind: 'harn', text: 'transcript compacted (summary): 3 messages archived, ~100 → 40 tokens' },
      { kind: 'harn', text: 'handoff to review_captain: Review the patch (Merge queue requires review)' },
      { kind: 'harn', text: 'files changed: src/lib.rs (modify)' },
      { kind: 'harn', text: 'worker review (review pr): WorkerWaitingForInput, awaiting_input' },
      { kind: 'harn', text: 'Harn asks the host (question): Approve deploy?' },
      { kind: 'harn', text: 'question hitl_question_session-1_1 answered' },
    ]);
  });

  it('session_update_plan_extension.json: the plan with its harnPlan artifact', async () => {
    const { lines } = await replay('session_update_plan_extension.json', '0.10');
    expect(lines).toEqual([{ kind: 'plan', text: 'Plan: ✓ Emit plan event. · ○ Verify fixtures.' }]);
  });

  it('agent_event_ext_notifications.json: every _harn/agentEvent is an agent line', async () => {
    const { lines, answered } = await replay('agent_event_ext_notifications.json', '0.10');
    expect(answered).toEqual([]);
    expect(lines).toEqual([
      { kind: 'agent', text: 'turn 0 started', status: 'turn_start' },
      { kind: 'agent', text: 'turn 0 ended: 2 tool calls (read_file, grep)', status: 'turn_end' },
      { kind: 'agent', text: 'feedback injected (protocol_violation): missed required tool call; reissuing', status: 'feedback_injected' },
      { kind: 'agent', text: 'budget exhausted after 8 iterations', status: 'budget_exhausted' },
      { kind: 'agent', text: 'loop stuck at iteration 4 after 3 nudges: still thinking...', status: 'loop_stuck' },
      { kind: 'agent', text: 'daemon watchdog tripped after 5 attempts (12000 ms)', status: 'daemon_watchdog_tripped' },
    ]);
  });
});

describe('v0.7.50 fixtures (conformance/protocols/fixtures/acp)', () => {
  it('session_update_standard.valid.json: visible_* at the content’s top level, the tool update’s extras at the update’s', async () => {
    const { lines, answered } = await replay('v0.7.50_session_update_standard.valid.json', '0.7.50');
    expect(answered).toEqual([]);
    expect(lines).toEqual([
      { kind: 'message', text: 'hello' },
      { kind: 'tool_call', text: 'read_file', status: 'completed' },
      { kind: 'plan', text: 'Plan: ✓ inspect protocol fixtures' },
    ]);
  });

  it('session_update_extensions.valid.json: extension fields at the top level of the update', async () => {
    const { lines } = await replay('v0.7.50_session_update_extensions.valid.json', '0.7.50');
    expect(lines).toEqual([
      { kind: 'harn', text: 'skill rust-review activated (matched)' },
      { kind: 'harn', text: 'tool search (bm25): filesystem read' },
      { kind: 'harn', text: 'worker reviewer (review patch): worker_waiting_for_input, awaiting_input' },
    ]);
  });

  it('session_update_missing_session.invalid.json: ignored, said in a protocol line', async () => {
    const { lines, answered } = await replay('v0.7.50_session_update_missing_session.invalid.json', '0.7.50');
    expect(answered).toEqual([]);
    expect(lines).toEqual([{ kind: 'protocol', text: 'a malformed session/update was ignored' }]);
  });

  it('session_update_unknown_extension.invalid.json: an unknown kind is ignored, as ACP asks', async () => {
    const { lines, answered } = await replay('v0.7.50_session_update_unknown_extension.invalid.json', '0.7.50');
    expect(answered).toEqual([]);
    expect(lines).toEqual([]);
  });
});
