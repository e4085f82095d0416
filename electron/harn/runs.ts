/**
 * The gateway's Harn runs: `POST /harn/runs` starts one as a task titled after its script, and
 * the console reads them back. Every run that has not ended is kept, with the last KEPT_RUNS that
 * have; their lines live in memory only (the ledger holds the calls and the task's transitions).
 */
import { statSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { CapstanError } from '../../shared/errors';
import type { HarnConfig, HarnRunRequest, HarnRunsView, HarnRunSummary, HarnRunView } from '../../shared/harn';
import { DEFAULT_SESSION, TERMINAL_STATES, type TaskView } from '../../shared/tasks';
import type { EventBus } from '../services/events';
import type { Telemetry } from '../telemetry/telemetry';
import type { IncomingTrace } from '../telemetry/trace';
import type { BridgeParts } from './bridge';
import { HarnRun, scriptPrincipal } from './run';
import { startRunTrace } from './runTrace';
import type { UpdateBatch } from './updates';

/** Ended runs kept for the console. */
export const KEPT_RUNS = 50;

export interface HarnRunsParts extends BridgeParts {
  config: HarnConfig;
  graceMs: number;
  events: EventBus;
  telemetry: Telemetry;
}

export class HarnRuns {
  readonly #runs = new Map<string, HarnRun>();
  readonly #stopListening: () => void;

  constructor(private readonly parts: HarnRunsParts) {
    this.#stopListening = parts.tasks.onChange((task) => {
      const run = this.#runs.get(task.id);
      if (!run || !TERMINAL_STATES.includes(task.state)) return;
      run.settle(task.state, task.finalMessage ?? `the task was ${task.state}`);
      this.#publish(run);
    });
  }

  /** Starts the script as a new task in the session; the answer is the task, already running. `incoming`: the caller's trace, which the run continues. */
  async start({ script, prompt, sessionId = DEFAULT_SESSION }: HarnRunRequest, incoming?: IncomingTrace): Promise<TaskView> {
    assertScript(script);
    const { tasks } = this.parts;
    const task = tasks.start(sessionId, `Harn: ${basename(script)}`, prompt);
    const runTrace = startRunTrace(this.parts.telemetry, { script, taskId: task.id, sessionId: task.sessionId, principal: scriptPrincipal(script) }, incoming);
    const parts = { ...this.parts, publish: (summary: HarnRunSummary, batch: UpdateBatch) => this.parts.events.publish({ type: 'harn', run: summary, ...batch }) };
    const run = new HarnRun(parts, task.id, task.sessionId, script, prompt ?? null, runTrace);
    this.#runs.set(task.id, run);
    this.#trim();
    try {
      await run.start();
    } catch (error) {
      // The attempt stays on record: the task fails with the reason (the binary is missing, say).
      const reason = error instanceof Error ? error.message : String(error);
      run.log.add('status', `could not start: ${reason}`);
      run.log.flush();
      await tasks.finish(task.sessionId, task.id, reason, 'failed').catch(() => undefined);
      throw error instanceof CapstanError ? error.inTask(task.id) : error;
    }
    this.#publish(run);
    return tasks.get(task.id).view();
  }

  list(): HarnRunsView {
    return { runs: [...this.#runs.values()].map((run) => run.summary()).reverse() };
  }

  get(taskId: string): HarnRunView {
    const run = this.#runs.get(taskId);
    if (!run) throw new CapstanError('HARN_RUN_NOT_FOUND', `no Harn run for task "${taskId}" (the gateway keeps the last ${KEPT_RUNS} that ended)`);
    return run.view();
  }

  /** Kills every child at once, for the gateway's shutdown; resolves once they are gone. */
  async close(): Promise<void> {
    this.#stopListening();
    await Promise.all([...this.#runs.values()].map((run) => run.kill()));
  }

  #publish(run: HarnRun): void {
    this.parts.events.publish({ type: 'harn', run: run.summary(), updates: [], skipped: 0 });
  }

  /** Drops the oldest ended runs beyond KEPT_RUNS. */
  #trim(): void {
    const ended = [...this.#runs.values()].filter((run) => run.summary().state === 'ended');
    for (const run of ended.slice(0, Math.max(0, ended.length - KEPT_RUNS))) this.#runs.delete(run.taskId);
  }
}

/** An absolute path to a regular file; anything else is refused before a task starts. */
function assertScript(script: string): void {
  if (!isAbsolute(script)) throw new CapstanError('BAD_REQUEST', `script: "${script}" is not an absolute path`, { field: 'script' });
  let isFile: boolean;
  try {
    isFile = statSync(script).isFile();
  } catch {
    throw new CapstanError('BAD_REQUEST', `script: there is no file at ${script}`, { field: 'script' });
  }
  if (!isFile) throw new CapstanError('BAD_REQUEST', `script: ${script} is not a regular file`, { field: 'script' });
}
