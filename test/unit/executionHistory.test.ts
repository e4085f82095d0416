/**
 * Recent executions' edges that HTTP cannot easily reach: a result too large to keep, a run
 * still going when the limit is lowered, whose calls are kept; and how the console merges the
 * gateway's records with the calls it has just sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../electron/store/database';
import { ExecutionHistory, MAX_RUN_BYTES } from '../../electron/store/executionHistory';
import { CapstanError } from '../../shared/errors';
import type { ExecutionsView } from '../../shared/executions';
import { executionLine, historyFileName } from '../../renderer/features/executions/exportHistory';
import { useExecutions } from '../../renderer/state/executionsStore';

const operator = { requestId: 'r-1', principal: 'operator' as const };
const answer = (result: unknown) => async () => ({ requestId: 'r-1', taskId: 'task-1', ok: true as const, result, durationMs: 1 });

describe('ExecutionHistory', () => {
  let dataDir: string;
  let db: Database;
  let history: ExecutionHistory;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-history-unit-'));
    db = openDatabase(dataDir);
    history = new ExecutionHistory({ dataDir, db, log: pino({ level: 'silent' }) });
  });
  afterEach(() => {
    history.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the size, not the values, of a run over the per-run limit', async () => {
    await history.track({ tool: 'big', arguments: { a: 1 } }, operator, answer('x'.repeat(MAX_RUN_BYTES)), () => 'test:big');
    const [run] = history.list().executions;
    expect(run).toMatchObject({ status: 'ok', arguments: {}, omittedBytes: expect.any(Number) });
    expect(run!.result).toBeUndefined();
    expect(run!.omittedBytes).toBeGreaterThan(MAX_RUN_BYTES);
  });

  it("does not keep an agent's calls", async () => {
    await history.track({ tool: 'time_now', arguments: {} }, { requestId: 'a-1', principal: 'agent:bot' }, answer(1), () => 'builtin:time_now');
    expect(history.list().executions).toEqual([]);
  });

  it('keeps a running run when a lower limit trims the others, and records its end', async () => {
    let finish: (value: unknown) => void = () => undefined;
    const running = history.track({ tool: 'slow', arguments: {} }, { ...operator, requestId: 'slow' }, () =>
      new Promise((resolve) => (finish = () => resolve({ requestId: 'slow', taskId: 't', ok: true, result: 'done', durationMs: 5 }))),
    () => 'test:slow');
    for (const requestId of ['later-1', 'later-2']) await history.track({ tool: 'time_now', arguments: {} }, { ...operator, requestId }, answer(1), () => 'builtin:time_now');
    history.configure({ persist: false, maxEntries: 1, maxAgeDays: 30 });
    // It counts toward the limit but is never dropped while it runs: its end must find it.
    expect(history.list().executions.map((run) => run.requestId)).toEqual(['slow']);
    finish(undefined);
    await running;
    expect(history.list().executions.find((run) => run.requestId === 'slow')).toMatchObject({ status: 'ok', result: 'done' });
  });

  it('records a fault as INTERNAL_ERROR without its message', async () => {
    const fault = () => Promise.reject(new TypeError('secret detail'));
    await expect(history.track({ tool: 't', arguments: {} }, operator, fault, () => 'x')).rejects.toThrow('secret detail');
    await expect(history.track({ tool: 't', arguments: {} }, operator, () => Promise.reject(new CapstanError('TOOL_FAILED', 'boom')), () => 'x')).rejects.toThrow();
    expect(history.list().executions.map((run) => run.error)).toEqual([
      { code: 'TOOL_FAILED', message: 'TOOL_FAILED: boom' },
      { code: 'INTERNAL_ERROR', message: 'INTERNAL_ERROR: the gateway could not complete this request' },
    ]);
  });
});

describe("the console's executions store", () => {
  const settings = { persist: false, maxEntries: 100, maxAgeDays: 30 };
  const view = (executions: ExecutionsView['executions'], revision = 1): ExecutionsView => ({ executions, revision, epoch: 'e', settings });
  const record = (requestId: string, status: 'ok' | 'awaiting_confirmation' = 'ok') => ({
    id: `id-${requestId}`,
    requestId,
    tool: 'time_now',
    arguments: {},
    status,
    confirmed: false,
    startedAt: new Date().toISOString(),
    ...(status === 'ok' ? { taskId: 't', result: { ok: 1 }, durationMs: 2 } : {}),
    revision: 1,
  });
  beforeEach(() => useExecutions.setState({ executions: [], epoch: null, revision: 0, settings: null }));

  it("replaces the page's own run by the gateway's record of it, once", () => {
    const { started, received } = useExecutions.getState();
    started({ requestId: 'mine', tool: 'time_now', arguments: {}, confirmed: false });
    received(view([record('mine')]), false);
    expect(useExecutions.getState().executions).toEqual([expect.objectContaining({ id: 'id-mine', local: false, status: 'ok', response: expect.objectContaining({ result: { ok: 1 } }) })]);
  });

  it('keeps a run the gateway never saw through a full read, and drops what the gateway no longer has', () => {
    const { started, finished, received } = useExecutions.getState();
    received(view([record('old')]), true);
    started({ requestId: 'lost', tool: 'time_now', arguments: {}, confirmed: false });
    finished('lost', { error: { code: 'GATEWAY_UNREACHABLE', message: 'no answer' }, taskId: undefined, roundTripMs: 3 });
    received(view([], 2), true);
    expect(useExecutions.getState().executions.map((execution) => [execution.requestId, execution.status])).toEqual([['lost', 'error']]);
  });

  it('exports a run as one JSON line with what it sent and what came back', () => {
    useExecutions.getState().received(view([{ ...record('exported'), arguments: { timezone: 'Asia/Tokyo' }, sessionId: 'operator' }]), true);
    const line = executionLine(useExecutions.getState().executions[0]!);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toMatchObject({ requestId: 'exported', tool: 'time_now', arguments: { timezone: 'Asia/Tokyo' }, status: 'ok', taskId: 't', result: { ok: 1 } });
    expect(historyFileName(new Date('2026-11-30T14:05:06.789Z'))).toBe('capstan-executions-2026-11-30T14-05-06-789Z.jsonl');
  });

  it('shows a confirmation declined in the desktop dialog as not confirmed, not as an error', () => {
    const { started, finished, received } = useExecutions.getState();
    started({ requestId: 'asked', tool: 'http_check', arguments: {}, confirmed: true });
    received(view([record('asked', 'awaiting_confirmation')]), false);
    finished('asked', { error: { code: 'CONFIRMATION_REQUIRED', message: 'declined' }, taskId: 't', roundTripMs: 3 });
    const [execution] = useExecutions.getState().executions;
    expect(execution).toMatchObject({ status: 'awaiting_confirmation', declined: true });
    expect(execution!.error).toBeUndefined();
  });
});
