/**
 * Running harnDriver.ts scenarios through a test gateway: config.json's `harn` pointing at the
 * driver, a scenario written as the `.harn` file a run is given, and the driver's transcript.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TERMINAL_STATES, type TaskView } from '../../shared/tasks';
import type { TestGateway } from './gateway';
import { send, waitFor, type Json } from './mcp';

export const HARN_DRIVER = fileURLToPath(new URL('./harnDriver.ts', import.meta.url));

/** config.json `harn` for the driver: started exactly as Harn would be, `serve acp <script>`. */
export const driverConfig = (more: Json = {}): Json => ({ command: process.execPath, args: [HARN_DRIVER, 'serve', 'acp'], ...more });

let scripts = 0;

export interface ScriptRun {
  started: { status: number; body: Json };
  task: TaskView & Json;
  script: string;
  /** What the driver wrote down: every line in and out, and how it read each answer. */
  transcript(): Json[];
  ended(): Promise<TaskView>;
}

/** Writes the scenario into `dir` as a `.harn` file and starts it with `POST /harn/runs`. */
export async function startScript(gateway: TestGateway, dir: string, scenario: Json, { sessionId = `harn-${++scripts}`, prompt }: { sessionId?: string; prompt?: string } = {}): Promise<ScriptRun> {
  const name = `script-${++scripts}`;
  const transcript = join(dir, `${name}.jsonl`);
  const script = join(dir, `${name}.harn`);
  writeFileSync(script, JSON.stringify({ transcript, ...scenario }));
  const started = await send(gateway, 'POST', '/harn/runs', { script, sessionId, ...(prompt ? { prompt } : {}) });
  const task = started.body as TaskView & Json;
  const { tasks } = gateway.host;
  return {
    started,
    task,
    script,
    transcript: () => (existsSync(transcript) ? readFileSync(transcript, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json) : []),
    ended: () => waitFor(`task ${task.id} to end`, () => (TERMINAL_STATES.includes(tasks.get(task.id).state) ? tasks.get(task.id).view() : undefined), 30_000),
  };
}

/** The driver's record of a labelled step: `category` (ok, rejected, host error), `result` or `error`. */
export const stepNamed = (transcript: Json[], label: string): Json | undefined => transcript.find((entry) => entry.step === label);

/** Answers the driver found malformed: there should be none. */
export const violations = (transcript: Json[]): Json[] => transcript.filter((entry) => 'violation' in entry);

/** The lines Capstan wrote to the driver. */
export const fromCapstan = (transcript: Json[]): Json[] => transcript.filter((entry) => entry.dir === 'in').map((entry) => JSON.parse(String(entry.line)) as Json);

/** Waits for a pending approval of the task (other than `after`), through `GET /approvals`. */
export async function waitForApproval(gateway: TestGateway, taskId: string, after?: string): Promise<Json> {
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const pending = (await send(gateway, 'GET', '/approvals')).body.pending as Json[];
    const found = pending.find((approval) => approval.taskId === taskId && approval.id !== after);
    if (found) return found;
  }
  throw new Error(`no approval appeared for ${taskId}`);
}
