/**
 * Recent executions through the real gateway: the operator's calls are kept with their
 * arguments and results (an agent's are not), a confirmed call is one run, the history is
 * bounded, Clear empties it, it outlives a restart only when the operator opted in, it never
 * reaches the ledger's database or the log, and the console's Copy as curl text runs as is
 * against a real `capstan serve`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionRecord, ExecutionsView, HistorySettings } from '../../shared/executions';
import { HISTORY_FILE } from '../../electron/store/executionHistory';
import { cliCommand, curlCommand } from '../../renderer/features/executions/commands';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { CLI, startServe } from '../support/serveProcess';

const history = async (gw: TestGateway, after?: number) =>
  (await (await gw.request(`/executions${after === undefined ? '' : `?after=${after}`}`)).json()) as ExecutionsView;

const configure = async (gw: TestGateway, settings: Partial<HistorySettings>) => {
  const current = (await history(gw)).settings;
  const response = await gw.request('/executions/settings', { method: 'PUT', body: { ...current, ...settings } });
  expect(response.status).toBe(200);
  return (await response.json()) as ExecutionsView;
};

let target: LoopbackServer;
beforeAll(async () => {
  target = await startLoopbackServer();
});
afterAll(() => target.close());

const allowTarget = () => ({ httpCheck: { allow: ['127.0.0.1'] } });

describe('the history of one gateway', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ config: allowTarget() });
  });
  afterAll(() => gw.stop());

  it("keeps the operator's call with its arguments, result, requestId, task and timing; not an agent's", async () => {
    const call = await gw.call({ tool: 'time_now', arguments: { timezone: 'Asia/Tokyo' }, requestId: 'kept-1' });
    expect(call.status).toBe(200);
    const { token } = (await (await gw.request('/agents', { method: 'POST', body: { name: 'bot' } })).json()) as { token: string };
    const agentCall = await fetch(`${gw.url}/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'time_now', arguments: { timezone: 'Europe/Paris' }, requestId: 'agent-1' }),
    });
    expect(agentCall.status).toBe(200);
    // An agent may not read it either.
    expect((await fetch(`${gw.url}/executions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403);

    const view = await history(gw);
    expect(view.settings).toEqual({ persist: false, maxEntries: 100, maxAgeDays: 30 });
    expect(view.executions.map((run) => run.requestId)).toEqual(['kept-1']);
    const [run] = view.executions as [ExecutionRecord];
    expect(run).toMatchObject({
      tool: 'time_now',
      capability: 'builtin:time_now',
      arguments: { timezone: 'Asia/Tokyo' },
      status: 'ok',
      confirmed: false,
      taskId: call.body.taskId,
      result: call.body.result,
      durationMs: call.body.durationMs,
    });
    expect(Date.parse(run.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(run.startedAt));
    // Asked with ?after=, only what changed since.
    expect((await history(gw, view.revision)).executions).toEqual([]);
  });

  it('keeps a refused call with the error it got', async () => {
    await gw.call({ tool: 'note_search', arguments: {}, requestId: 'refused-1' });
    const [run] = (await history(gw)).executions;
    expect(run).toMatchObject({ requestId: 'refused-1', status: 'error', error: { code: 'ARGUMENT_MISSING', field: 'query' } });
  });

  it('shows a call confirmed through the 428 round trip as one run, confirmed, not as a refusal', async () => {
    const args = { url: `${target.url}/health`, method: 'GET' };
    const asked = await gw.call({ tool: 'http_check', arguments: args });
    expect(asked.status).toBe(428);
    const waiting = (await history(gw)).executions[0]!;
    expect(waiting).toMatchObject({ tool: 'http_check', status: 'awaiting_confirmation', confirmed: false, confirmationExpiresAt: expect.any(String) });
    expect(waiting.error).toBeUndefined();

    // Answered by a call with another requestId (as curl would send it): still the same run.
    const { id } = asked.body.error!.challenge as { id: string };
    const confirmed = await gw.call({ tool: 'http_check', arguments: args, confirmation: id });
    expect(confirmed.status).toBe(200);
    const runs = (await history(gw)).executions.filter((run) => run.tool === 'http_check');
    expect(runs).toEqual([expect.objectContaining({ id: waiting.id, requestId: confirmed.body.requestId, status: 'ok', confirmed: true, result: confirmed.body.result })]);
    expect(runs[0]!.confirmationExpiresAt).toBeUndefined();
  });

  it('keeps at most maxEntries runs, the newest, and Clear empties it', async () => {
    await configure(gw, { maxEntries: 3 });
    for (let index = 0; index < 5; index++) await gw.call({ tool: 'time_now', requestId: `bounded-${index}` });
    expect((await history(gw)).executions.map((run) => run.requestId)).toEqual(['bounded-4', 'bounded-3', 'bounded-2']);

    const cleared = await gw.request('/executions', { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect(((await cleared.json()) as ExecutionsView).executions).toEqual([]);
    expect((await history(gw)).executions).toEqual([]);
    await configure(gw, { maxEntries: 100 });
  });

  it('refuses settings out of range with BAD_REQUEST', async () => {
    const response = await gw.request('/executions/settings', { method: 'PUT', body: { persist: true, maxEntries: 0, maxAgeDays: 30 } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
  });
});

describe('across restarts', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-history-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const secret = `sk-history-${Math.random().toString(36).slice(2)}`;

  it('is kept only in memory by default: no file, and a restart starts empty', async () => {
    const gw = await startTestGateway({ dataDir });
    await gw.call({ tool: 'time_now', arguments: { timezone: 'UTC' }, requestId: 'memory-only' });
    expect((await history(gw)).executions).toHaveLength(1);
    expect(existsSync(join(dataDir, HISTORY_FILE))).toBe(false);
    await gw.stop();
    const again = await startTestGateway({ dataDir });
    expect((await history(again)).executions).toEqual([]);
    await again.stop();
  });

  it('opted in, survives a restart in its own file, never in the ledger or the log; age retention and turning it off apply on disk', async () => {
    const gw = await startTestGateway({ dataDir });
    await gw.call({ tool: 'time_now', requestId: 'before-opt-in' });
    await configure(gw, { persist: true });
    // What ran before opting in is written too.
    await gw.call({ tool: 'note_search', arguments: { query: `remember ${secret}` }, requestId: 'with-secret' });
    const kept = (await history(gw)).executions;
    expect(kept.map((run) => run.requestId)).toEqual(['with-secret', 'before-opt-in']);
    expect(JSON.stringify(kept)).toContain(secret);
    const logs = JSON.stringify(gw.logs);
    await gw.stop();

    // The value is in the history file, and in no other file of the data dir (the ledger's database included), nor in the log.
    expect(logs).not.toContain(secret);
    const holding = readdirSync(dataDir, { recursive: true, encoding: 'utf8' })
      .filter((name) => !name.startsWith(HISTORY_FILE))
      .filter((name) => {
        try {
          return readFileSync(join(dataDir, name)).includes(secret);
        } catch {
          return false; // a folder
        }
      });
    expect(holding).toEqual([]);

    const again = await startTestGateway({ dataDir });
    const restored = await history(again);
    expect(restored.settings.persist).toBe(true);
    expect(restored.executions.map((run) => run.requestId)).toEqual(['with-secret', 'before-opt-in']);
    expect(restored.executions[0]).toMatchObject({ tool: 'note_search', arguments: { query: `remember ${secret}` }, status: 'ok' });
    await again.stop();

    // A run older than maxAgeDays is dropped when the history is read back.
    const file = new DatabaseSync(join(dataDir, HISTORY_FILE));
    const old = new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString();
    const row = file.prepare("SELECT record FROM executions WHERE json_extract(record, '$.requestId') = 'before-opt-in'").get() as { record: string };
    file.prepare("UPDATE executions SET started_at = ?, record = ? WHERE json_extract(record, '$.requestId') = 'before-opt-in'").run(old, JSON.stringify({ ...JSON.parse(row.record), startedAt: old }));
    file.close();
    const third = await startTestGateway({ dataDir });
    expect((await history(third)).executions.map((run) => run.requestId)).toEqual(['with-secret']);
    // Turning it off deletes the file; what is in memory stays until the gateway stops.
    await configure(third, { persist: false });
    expect(readdirSync(dataDir).filter((name) => name.startsWith(HISTORY_FILE))).toEqual([]);
    expect((await history(third)).executions).toHaveLength(1);
    await third.stop();
  });

  it('Clear empties the file as well', async () => {
    const gw = await startTestGateway({ dataDir });
    await configure(gw, { persist: true });
    await gw.call({ tool: 'note_search', arguments: { query: `cleared ${secret}` } });
    await gw.request('/executions', { method: 'DELETE' });
    await gw.stop();
    expect(readFileSync(join(dataDir, HISTORY_FILE)).includes(`cleared ${secret}`)).toBe(false);
    const again = await startTestGateway({ dataDir });
    expect((await history(again)).executions).toEqual([]);
    await again.stop();
  });
});

describe("the console's Copy as curl and Copy as CLI", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-curl-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('quote arguments for a POSIX shell', () => {
    const run = { tool: 'note_add', arguments: { body: "it's $HOME and `x`" }, needsConfirmation: false };
    expect(cliCommand(run)).toBe(`capstan call note_add --json '{"body":"it'\\''s $HOME and \`x\`"}'`);
    expect(cliCommand({ tool: 'time_now', arguments: {}, needsConfirmation: false })).toBe('capstan call time_now');
    expect(curlCommand(run, 'http://127.0.0.1:7077')).toContain('"Authorization: Bearer $CAPSTAN_TOKEN"');
  });

  it('run as copied against capstan serve (curl, which for a tool that needs confirmation asks and prints how to confirm; and the CLI), and show in its history', async () => {
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify(allowTarget()));
    const serve = await startServe(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: 'curl-token-0123456789' });
    try {
      // Asynchronously: the loopback target http_check reaches lives in this process.
      const shell = async (script: string) =>
        (await promisify(execFile)('sh', ['-c', script], { env: { PATH: process.env.PATH, CAPSTAN_TOKEN: 'curl-token-0123456789' }, encoding: 'utf8', timeout: 20_000 })).stdout;
      const plain = JSON.parse(await shell(curlCommand({ tool: 'note_add', arguments: { body: "it's a \"note\" for $HOME" }, needsConfirmation: false }, serve.url)));
      expect(plain).toMatchObject({ ok: true, result: { title: `it's a "note" for $HOME` } });

      // A tool that needs confirmation: the copied text asks and runs nothing (as `capstan call`
      // without a terminal), exits 4 and prints the challenge's id and the command that confirms it.
      const hits = target.hits.length;
      const asked = await promisify(execFile)('sh', ['-c', curlCommand({ tool: 'http_check', arguments: { url: `${target.url}/from-curl`, method: 'GET' }, needsConfirmation: true }, serve.url)], {
        env: { PATH: process.env.PATH, CAPSTAN_TOKEN: 'curl-token-0123456789' },
        encoding: 'utf8',
        timeout: 20_000,
      }).then(
        () => expect.unreachable('the copied curl confirmed by itself'),
        (error: { code: number; stdout: string }) => error,
      );
      expect(asked.code).toBe(4);
      const [said, how, followUp, ...rest] = asked.stdout.trimEnd().split('\n');
      const challenge = /Challenge: ([0-9a-f-]{36})/.exec(said!)?.[1];
      expect(said).toMatch(/^http_check needs your confirmation; nothing ran\. Challenge: [0-9a-f-]{36} /);
      expect(how).toBe('To confirm and run it, run:');
      expect(rest).toEqual([]);
      expect(followUp).toContain(`"confirmation":"${challenge}"`);
      expect(followUp).toContain('"Authorization: Bearer $CAPSTAN_TOKEN"');
      expect(target.hits.slice(hits)).toEqual([]);
      // The printed command, run as printed, confirms the call.
      const confirmed = JSON.parse(await shell(followUp!));
      expect(confirmed).toMatchObject({ ok: true, result: { status: 200 } });
      expect(target.hits.slice(hits)).toEqual([{ method: 'GET', url: '/from-curl' }]);

      // Copy as CLI, with `capstan` standing for the built CLI and CAPSTAN_URL naming this gateway.
      const cli = cliCommand({ tool: 'note_add', arguments: { body: "the CLI's $HOME" }, sessionId: 'cli-session', needsConfirmation: false });
      const printed = await shell(`capstan() { "${process.execPath}" "${CLI}" "$@"; }\nCAPSTAN_URL=${serve.url}; export CAPSTAN_URL\n${cli}`);
      expect(JSON.parse(printed)).toMatchObject({ title: "the CLI's $HOME" });

      const runs = ((await (await fetch(`${serve.url}/executions`, { headers: { authorization: 'Bearer curl-token-0123456789' } })).json()) as ExecutionsView).executions;
      expect(runs.map(({ tool, status, confirmed: wasConfirmed }) => ({ tool, status, confirmed: wasConfirmed }))).toEqual([
        { tool: 'note_add', status: 'ok', confirmed: false },
        { tool: 'http_check', status: 'ok', confirmed: true },
        { tool: 'note_add', status: 'ok', confirmed: false },
      ]);
      expect(runs[0]).toMatchObject({ sessionId: 'cli-session', arguments: { body: "the CLI's $HOME" } });
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
});
