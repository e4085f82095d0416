/**
 * Capstan against both Harn versions it must host: v0.7.50 (the snapshot `fetch` brings) and
 * harn-serve 0.10.x. Harn is a Rust program that cannot be installed on these machines, so
 * `harn.command` points at test/support/harnDriver.ts, a faithful driver written from Harn's own
 * source (each behaviour cites the file it comes from): it speaks only Harn's side of the wire
 * protocol, plays either version (the scenario's "version"), and knows nothing of Capstan.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { driverConfig, fromCapstan, startScript, stepNamed, waitForApproval } from '../support/harnDriver.runs';
import { send, waitFor, type Json } from '../support/mcp';
import { skill, skillsDir, type SkillsDir } from '../support/skills';
import { DEFAULT_HARN_PERMISSION_TIMEOUT_MS } from '../../shared/harn';

let gateway: TestGateway;
let dir: string;
let skills: SkillsDir;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-harn-versions-'));
  skills = skillsDir();
  skills.write('release', skill('name: release-checklist\ndescription: Steps before a release\ntags: [release]', '# Release\nTag, build, ship.\n'));
  skills.write('secret-ops', skill('name: secret-ops\ndescription: Operator-only steps\ndisable-model-invocation: true', 'Only for /secret-ops\n'));
  gateway = await startTestGateway({ skillsDirs: [skills.dir], config: { harn: driverConfig({ permissionTimeoutMs: 5_000 }), cancellation: { graceMs: 400 } } });
}, 60_000);

afterAll(async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
  skills.cleanup();
});

const VERSIONS = ['0.7.50', '0.10'] as const;
const run = (scenario: Json) => startScript(gateway, dir, scenario);
const harnRun = async (taskId: string) => (await send(gateway, 'GET', `/harn/run?taskId=${taskId}`)).body;
const prompted = (harn: { transcript(): Json[] }) => waitFor('the prompt to run', () => (harn.transcript().some((entry) => 'prompt' in entry) ? true : undefined));
const said = (text: string) => ({ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });

describe.each(VERSIONS)('Harn %s: how a run ends', (version) => {
  it('a pipeline that ends without a terminal succeeds, showing its stop reason', async () => {
    const harn = await run({ version, steps: [said('All done.')] });
    const stopReason = version === '0.7.50' ? 'completed' : 'end_turn';
    expect(await harn.ended()).toMatchObject({ state: 'succeeded', finalMessage: `All done. (stopReason "${stopReason}")` });
    expect(await harnRun(harn.task.id)).toMatchObject({ outcome: { state: 'succeeded' }, ending: { stopReason, terminal: null, error: null } });
  });

  it('a failed prompt is a JSON-RPC error: the task fails with its message (and, newer, its terminal class)', async () => {
    const harn = await run({ version, end: { error: 'boom: the pipeline threw', terminalClass: 'tool_policy_rejected' } });
    const view = await harn.ended();
    expect(view.state).toBe('failed');
    if (version === '0.7.50') {
      expect(view.finalMessage).toBe('boom: the pipeline threw (the prompt failed: JSON-RPC error -32000)');
      expect((await harnRun(harn.task.id)).ending).toEqual({ stopReason: null, terminal: null, error: { code: -32000, message: 'boom: the pipeline threw' } });
    } else {
      expect(view.finalMessage).toBe('boom: the pipeline threw (the prompt failed: JSON-RPC error -32000, terminal class tool_policy_rejected)');
      expect((await harnRun(harn.task.id)).ending).toEqual({ stopReason: null, terminal: null, error: { code: -32000, message: 'boom: the pipeline threw', terminalClass: 'tool_policy_rejected' } });
    }
  });

  it('a cancelled run is cancelled, and the run says how Harn ended it', async () => {
    const harn = await run({ version, steps: [{ waitForCancel: true }] });
    await prompted(harn);
    expect((await send(gateway, 'POST', `/tasks/${harn.task.id}/cancel`, {})).body.state).toBe('cancelled');
    const view = await harnRun(harn.task.id);
    expect(view.outcome).toMatchObject({ state: 'cancelled' });
    if (version === '0.7.50') expect(view.ending).toEqual({ stopReason: 'cancelled', terminal: null, error: null });
    else expect(view.ending).toMatchObject({ stopReason: 'cancelled', terminal: { kind: 'user_cancelled', reason: 'session/cancel' }, error: null });
    const ended = (view.updates as Json[]).find((line) => String(line.text).startsWith('ended: stopped with its task'));
    expect(ended?.text).toContain(version === '0.7.50' ? 'stopReason "cancelled"' : 'terminal kind "user_cancelled"');
  });
});

describe('Harn 0.10: after an agent_loop', () => {
  it('terminal kind natural succeeds; any other kind fails, naming kind and class', async () => {
    const natural = await run({ version: '0.10', steps: [said('Loop finished.')], end: { terminal: 'natural', terminalReason: 'done' } });
    expect(await natural.ended()).toMatchObject({ state: 'succeeded', finalMessage: 'Loop finished. (stopReason "end_turn", terminal kind "natural" (done))' });
    const budget = await run({ version: '0.10', end: { terminal: 'budget_exhausted', terminalClass: 'llm_budget' } });
    expect(await budget.ended()).toMatchObject({ state: 'failed', finalMessage: 'the prompt ended with stopReason "end_turn", terminal kind "budget_exhausted" (budget_exhausted), class "llm_budget", not "natural"' });
    expect((await harnRun(budget.task.id)).ending).toMatchObject({ terminal: { kind: 'budget_exhausted', terminalClass: 'llm_budget' } });
  });
});

describe.each(VERSIONS)('Harn %s: session/request_permission', (version) => {
  it('reaches the operator in Approvals with the tool, arguments, policy and declared paths; approved and denied go back as this version reads them', async () => {
    const legacy = version === '0.7.50';
    const harn = await run({
      version,
      steps: [
        { permission: { toolCallId: 'call-1', toolName: 'edit_file', title: 'edit_file', kind: 'edit', rawInput: { path: 'src/main.rs' }, locations: [{ path: 'src/main.rs' }] }, declaredPaths: ['src/main.rs'], label: 'approved' },
        { permission: { toolCallId: 'call-2', toolName: 'delete_file', title: 'delete_file', kind: 'delete', rawInput: { path: 'Cargo.lock' }, locations: [{ path: 'Cargo.lock' }] }, declaredPaths: ['Cargo.lock'], label: 'denied' },
      ],
    });
    const first = await waitForApproval(gateway, harn.task.id);
    expect(first).toMatchObject({ tool: { name: 'edit_file', riskLevel: 'high', mutating: true }, arguments: { path: 'src/main.rs' } });
    const description = String((first.tool as Json).description);
    expect(description).toContain('Declared paths: src/main.rs.');
    expect(description).toContain(legacy ? "Harn's policy decision: mutation scope apply_workspace; approval policy" : "Harn's policy decision: requires_host_approval");
    expect((await send(gateway, 'POST', `/approvals/${first.id}`, { decision: 'approve' })).status).toBe(200);
    const second = await waitForApproval(gateway, harn.task.id, first.id as string);
    expect(second).toMatchObject({ tool: { name: 'delete_file' }, arguments: { path: 'Cargo.lock' } });
    expect((await send(gateway, 'POST', `/approvals/${second.id}`, { decision: 'deny' })).status).toBe(200);
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    const approved = transcript.find((entry) => entry.step === 'approved');
    const denied = transcript.find((entry) => entry.step === 'denied');
    expect(approved).toMatchObject({ category: 'ok', allowed: true });
    expect(denied).toMatchObject({ category: 'ok', allowed: false });
    if (legacy) {
      // No options were sent: v0.7.50 would take any "selected" as a grant, so a denial is never one.
      expect(approved?.result).toEqual({ outcome: { outcome: 'selected' }, granted: true });
      expect(denied?.result).toEqual({ outcome: { outcome: 'cancelled' }, granted: false, reason: 'Capstan: denied by the operator' });
    } else {
      expect(approved?.result).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
      expect(denied?.result).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    }
  });
});

describe('Harn 0.7.50: a sub-agent asks', () => {
  it("accepts a sub-agent's session (its mutation record names the run's session as parent); refuses a session Harn never reported", async () => {
    const harn = await run({
      version: '0.7.50',
      steps: [
        { permission: { toolCallId: 'call-1', toolName: 'write_file', rawInput: { path: 'notes.md' } }, subAgent: 'session-sub-1', declaredPaths: ['notes.md'], label: 'sub-agent' },
        { request: 'session/request_permission', params: { sessionId: 'stranger', toolCall: { toolCallId: 'x', toolName: 'rm', rawInput: {} } }, label: 'stranger' },
      ],
    });
    const approval = await waitForApproval(gateway, harn.task.id);
    expect(String((approval.tool as Json).description)).toContain('for sub-agent session session-sub-1');
    await send(gateway, 'POST', `/approvals/${approval.id}`, { decision: 'approve' });
    await harn.ended();
    const transcript = harn.transcript();
    expect(transcript.find((entry) => entry.step === 'sub-agent')).toMatchObject({ allowed: true });
    expect(transcript.find((entry) => entry.step === 'stranger')).toMatchObject({ category: 'host error', error: { code: -32602 } });
  });
});

describe('steering', () => {
  it('Harn 0.10 takes session/inject as a request and accepts it', async () => {
    const harn = await run({ version: '0.10', steps: [{ waitForSteer: true }] });
    await prompted(harn);
    const steer = await send(gateway, 'POST', '/tasks', { action: 'steer', taskId: harn.task.id, sessionId: harn.task.sessionId, text: 'check the lockfile first' });
    expect(steer.status).toBe(200);
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    expect(transcript.find((entry) => 'steer' in entry)).toMatchObject({ via: 'session/inject', steer: { mode: 'steer', content: 'check the lockfile first' } });
    const lines = (await harnRun(harn.task.id)).updates as Json[];
    expect(lines.some((line) => line.text === 'steer accepted by the script (session/inject, mode steer, message msg-1)')).toBe(true);
  });

  it('Harn 0.7.50 answers session/inject -32601: the steer goes as session/input, and so does the next one', async () => {
    const harn = await run({ version: '0.7.50', steps: [{ waitForSteer: true }, { waitForSecondSteer: true }] });
    await prompted(harn);
    const first = await send(gateway, 'POST', '/tasks', { action: 'steer', taskId: harn.task.id, sessionId: harn.task.sessionId, text: 'first steer' });
    expect(first.status).toBe(200);
    await waitFor('the first steer', () => (harn.transcript().some((entry) => entry.via === 'session/input') ? true : undefined));
    const second = await send(gateway, 'POST', '/tasks', { action: 'steer', taskId: harn.task.id, sessionId: harn.task.sessionId, text: 'second steer' });
    expect(second.status).toBe(200);
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    const steers = transcript.filter((entry) => 'steer' in entry);
    expect(steers).toMatchObject([
      { via: 'session/input', steer: { content: 'first steer', mode: 'finish_step' } },
      { via: 'session/input', steer: { content: 'second steer', mode: 'finish_step' } },
    ]);
    // One session/inject, refused; the run remembered, so the second steer went straight to session/input.
    expect(fromCapstan(transcript).filter((message) => message.method === 'session/inject')).toHaveLength(1);
    expect(fromCapstan(transcript).filter((message) => message.method === 'session/input')).toHaveLength(2);
  });
});

describe.each(VERSIONS)('Harn %s: search and skills from the catalog', (version) => {
  it('tool_search/query ranks the callable candidates with lexical-v1; names the script cannot call are left out', async () => {
    const harn = await run({
      version,
      steps: [
        { toolSearch: 'check an http endpoint', candidates: ['time_now', 'http_check', 'script_only_tool', 'http_check'], label: 'search' },
        { toolSearch: 'time', candidates: ['time_now', 'http_check'], strategy: 'semantic', label: 'time' },
        { toolSearch: 'zebra', candidates: ['time_now'], label: 'none' },
      ],
    });
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    // script_only_tool is no tool of the run's (a tool the script defined itself, say): Capstan cannot rank it.
    const search = stepNamed(transcript, 'search')!;
    expect(search.category).toBe('ok');
    const names = search.tool_names as string[];
    expect(names[0]).toBe('http_check');
    expect(names.every((name) => ['http_check', 'time_now'].includes(name))).toBe(true);
    expect(String(search.diagnostic)).toBe(`Capstan lexical-v1: ${names.length} of 2 callable candidates matched; 1 candidate is not a tool this run may call (script_only_tool)`);
    expect(stepNamed(transcript, 'time')).toMatchObject({ category: 'ok', tool_names: ['time_now'] });
    expect(stepNamed(transcript, 'none')).toMatchObject({ category: 'ok', tool_names: [] });
    const lines = (await harnRun(harn.task.id)).updates as Json[];
    expect(lines.some((line) => String(line.text).startsWith('tool_search/query (host) "check an http endpoint": http_check'))).toBe(true);
  });

  it("skill/match ranks the script's candidate skills against the prompt; Harn takes the best", async () => {
    const harn = await run({
      version,
      steps: [
        {
          skillMatch: 'Please deploy the staging service',
          candidates: [
            { name: 'test', description: 'Run unit tests', when_to_use: '', paths: [] },
            { name: 'deploy', description: 'Deploy the application to production', when_to_use: 'User says deploy/ship/release', paths: ['infra/**'] },
            { name: 'docs', description: 'Write documentation for a service', when_to_use: '', paths: [] },
          ],
          workingFiles: ['infra/main.tf'],
          label: 'match',
        },
      ],
    });
    expect((await harn.ended()).state).toBe('succeeded');
    const match = stepNamed(harn.transcript(), 'match');
    expect(match?.category).toBe('ok');
    const ranked = match?.ranked as Json[];
    expect(ranked.map((entry) => entry.name)).toEqual(['deploy', 'docs']);
    expect(ranked[0]).toMatchObject({ reason: expect.stringContaining('lexical-v1: the prompt matched its name') });
  });

  it('skills/list lists the skills the grants allow (not the operator-only one); skills/fetch returns the verified body, and refuses others', async () => {
    const harn = await run({
      version,
      steps: [
        { skillsList: true, label: 'list' },
        { skillsFetch: 'skills:release-checklist', label: 'fetch' },
        { skillsFetch: 'release-checklist', label: 'by name' },
        { skillsFetch: 'secret-ops', label: 'hidden' },
        { skillsFetch: 'nothing-here', label: 'unknown' },
      ],
    });
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    expect(stepNamed(transcript, 'list')).toMatchObject({ category: 'ok', skills: [{ id: 'skills:release-checklist', name: 'release-checklist', description: 'Steps before a release', source: 'host' }] });
    const fetched = { id: 'skills:release-checklist', name: 'release-checklist', description: 'Steps before a release', body: '# Release\nTag, build, ship.\n', manifest: { allowed_tools: [] } };
    expect(stepNamed(transcript, 'fetch')).toMatchObject({ category: 'ok', result: fetched });
    expect(stepNamed(transcript, 'by name')).toMatchObject({ category: 'ok', result: fetched });
    expect(stepNamed(transcript, 'hidden')).toMatchObject({ category: 'rejected', error: { code: -32001, data: { code: 'CAPABILITY_NOT_FOUND' } } });
    expect(stepNamed(transcript, 'unknown')).toMatchObject({ category: 'rejected', error: { code: -32001, data: { code: 'CAPABILITY_NOT_FOUND' } } });
    const lines = (await harnRun(harn.task.id)).updates as Json[];
    expect(lines.some((line) => String(line.text).startsWith('skills/fetch skills:release-checklist: ok, body verified (sha256 '))).toBe(true);
  });
});

describe('Harn 0.10: skills/fetch verifies the body as activation does', () => {
  it('a SKILL.md changed after the run took its snapshot is refused as stale', async () => {
    const path = skills.write('changing', skill('name: changing-skill\ndescription: A skill that changes', 'First body.\n'));
    await waitFor('the skill in the catalog', () => (gateway.host.catalog.snapshot().entries.some((entry) => entry.contract.id === 'skills:changing-skill') ? true : undefined), 10_000);
    const harn = await run({ version: '0.10', steps: [{ waitForSteer: true }, { skillsFetch: 'skills:changing-skill', label: 'changed' }] });
    await prompted(harn);
    writeFileSync(path, skill('name: changing-skill\ndescription: A skill that changes', 'Second body, not the one the snapshot holds.\n'));
    await send(gateway, 'POST', '/tasks', { action: 'steer', taskId: harn.task.id, sessionId: harn.task.sessionId, text: 'go on' });
    expect((await harn.ended()).state).toBe('succeeded');
    expect(stepNamed(harn.transcript(), 'changed')).toMatchObject({ category: 'rejected', error: { code: -32001, data: { code: 'STALE_CAPABILITY' } } });
  });
});

describe.each(VERSIONS)('Harn %s: human in the loop (harn.hitl.requested → harn.hitl.respond)', (version) => {
  it('request_approval reaches the operator in Approvals; approved and denied go back as Harn reads them; recorded in the ledger', async () => {
    const harn = await run({
      version,
      steps: [
        { hitl: 'request_approval', action: 'deploy to production', args: { service: 'api' }, label: 'approved' },
        { hitl: 'request_approval', action: 'drop the database', label: 'denied' },
        { hitl: 'request_approval', action: 'two keys', quorum: 2, label: 'quorum' },
      ],
    });
    const first = await waitForApproval(gateway, harn.task.id);
    expect(first).toMatchObject({ tool: { name: 'request_approval', riskLevel: 'high' }, arguments: { action: 'deploy to production', args: { service: 'api' } } });
    await send(gateway, 'POST', `/approvals/${first.id}`, { decision: 'approve', note: 'go ahead' });
    const second = await waitForApproval(gateway, harn.task.id, first.id as string);
    await send(gateway, 'POST', `/approvals/${second.id}`, { decision: 'deny', note: 'not today' });
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    expect(stepNamed(transcript, 'approved')).toMatchObject({ hitl: 'approved', response: { approved: true, reviewer: 'capstan-operator', reason: 'go ahead' } });
    expect(stepNamed(transcript, 'denied')).toMatchObject({ hitl: 'denied', error: { name: 'ApprovalDeniedError', message: 'Capstan: denied by the operator: not today' } });
    expect(stepNamed(transcript, 'quorum')).toMatchObject({ hitl: 'denied', error: { message: 'Capstan: it needs 2 reviewers and Capstan answers as one' } });
    const ledger = (await send(gateway, 'GET', `/ledger?taskId=${harn.task.id}&kind=approval_decided`)).body.entries as Json[];
    expect(ledger.map((entry) => (entry.details as Json).decision)).toEqual(['approved', 'denied']);
  });

  it('ask_user: the operator answers by approving with a note; a denial is no answer (nil); so is no decision in time', async () => {
    const harn = await run({
      version,
      steps: [
        { hitl: 'ask_user', prompt: 'Which branch should I release?', label: 'answered' },
        { hitl: 'ask_user', prompt: 'Anything else?', label: 'declined' },
        { hitl: 'ask_user', prompt: 'Still there?', label: 'timeout' },
      ],
    });
    const first = await waitForApproval(gateway, harn.task.id);
    expect(first).toMatchObject({ tool: { name: 'ask_user', riskLevel: 'low' }, arguments: { prompt: 'Which branch should I release?' } });
    await send(gateway, 'POST', `/approvals/${first.id}`, { decision: 'approve', note: 'release/2026-12' });
    const second = await waitForApproval(gateway, harn.task.id, first.id as string);
    await send(gateway, 'POST', `/approvals/${second.id}`, { decision: 'deny' });
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    expect(stepNamed(transcript, 'answered')).toMatchObject({ hitl: 'answered', answer: 'release/2026-12' });
    expect(stepNamed(transcript, 'declined')).toMatchObject({ hitl: 'answered', answer: null, response: { reason: 'Capstan: denied by the operator' } });
    expect(stepNamed(transcript, 'timeout')).toMatchObject({ hitl: 'answered', answer: null, response: { reason: 'Capstan: no decision within 5 s' } });
  }, 20_000);
});

describe.each(VERSIONS)('Harn %s: errors and time (item 6)', (version) => {
  it("a refusal's message carries Capstan's code and the requestId (Harn drops data); terminal/* and host/call are refused with errors; host/capabilities advertises nothing", async () => {
    const terminal = (method: string) => ({ request: method, params: { sessionId: 'ignored', command: 'touch /tmp/never', terminalId: 't-1', shell: null }, label: method });
    const harn = await run({
      version,
      steps: [
        { toolCall: 'no_such_tool', label: 'unknown' },
        terminal('terminal/create'),
        terminal('terminal/output'),
        terminal('terminal/wait_for_exit'),
        terminal('terminal/release'),
        terminal('terminal/kill'),
        { request: 'host/call', params: { sessionId: 'ignored', name: 'project.mcp_config', args: {} }, label: 'host/call' },
      ],
    });
    expect((await harn.ended()).state).toBe('succeeded');
    const transcript = harn.transcript();
    const unknown = stepNamed(transcript, 'unknown')!.error as { message: string; data: { requestId: string } };
    expect(unknown.message).toMatch(/^TOOL_NOT_FOUND: .+ \(requestId harn-[0-9a-f-]+\)$/);
    expect(unknown.message.endsWith(`(requestId ${unknown.data.requestId})`)).toBe(true);
    // An error, never a result: a result without a terminalId would make Harn run the command itself.
    for (const method of ['terminal/create', 'terminal/output', 'terminal/wait_for_exit', 'terminal/release', 'terminal/kill']) {
      const step = stepNamed(transcript, method)!;
      expect(step, method).toMatchObject({ category: 'host error', error: { code: -32601, message: expect.stringMatching(/^TERMINAL_UNSUPPORTED: /), data: { code: 'TERMINAL_UNSUPPORTED' } } });
      expect(step, method).not.toHaveProperty('result');
    }
    expect(stepNamed(transcript, 'host/call')).toMatchObject({ category: 'host error', error: { code: -32601, message: expect.stringMatching(/^HOST_CALL_UNSUPPORTED: /) } });
    // Asked with and without the session as a prompt starts: {} both times, never project.mcp_config.
    const capabilities = transcript.filter((entry) => entry.method === 'host/capabilities');
    expect(capabilities).toHaveLength(2);
    for (const entry of capabilities) expect(entry).toMatchObject({ category: 'ok', result: {} });
    expect(JSON.stringify(capabilities)).not.toContain('mcp_config');
  });

  it("a permission request waits for the operator less long than Harn waits for the answer (300 s in v0.7.50), whatever HARN_HOST_CALL_TIMEOUT_SECS says", () => {
    expect(DEFAULT_HARN_PERMISSION_TIMEOUT_MS).toBeLessThan(300_000);
  });
});

describe("Harn 0.7.50: top-level notifications show in the run's lines", () => {
  it('output, progress, log and agent/idle (crates/harn-vm/src/bridge.rs, llm/agent/post_turn.rs)', async () => {
    const note = (method: string, params: Json) => ({ raw: JSON.stringify({ jsonrpc: '2.0', method, params }) });
    const harn = await run({
      version: '0.7.50',
      steps: [
        note('output', { text: '[harn] hello\n' }),
        note('progress', { phase: 'scan', message: 'reading files', progress: 2, total: 5 }),
        note('log', { level: 'warn', message: 'slow disk', fields: { ms: 900 } }),
        note('agent/idle', { iteration: 3, backoff_ms: 2000, persist_path: null, watch_paths: ['src'] }),
      ],
    });
    expect((await harn.ended()).state).toBe('succeeded');
    const lines = ((await harnRun(harn.task.id)).updates as Json[]).filter((line) => ['output', 'progress', 'log', 'agent'].includes(String(line.kind)));
    expect(lines.map((line) => [line.kind, line.text])).toEqual([
      ['output', '[harn] hello'],
      ['progress', 'scan: reading files (2/5)'],
      ['log', 'warn: slow disk'],
      ['agent', 'idle after iteration 3, next look in 2000 ms, watching src'],
    ]);
  });
});
