/**
 * `capstan harn run FILE [--prompt TEXT]`: starts a Harn script on the running gateway, as the
 * console's Run Harn script does, and prints the run's lines and its outcome as they come (the
 * gateway's event stream, opened before the run starts so nothing is missed). Ctrl-C cancels the
 * run and waits for it to stop. The exit code is 0 only when the task succeeded; otherwise the
 * operator commands' codes (errors.ts).
 *
 * The gateway and the operator's token are found as for `capstan tools` (connection.ts); the
 * requests are client.ts's.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HARN_UPDATES_KEPT, type HarnUpdate } from '../../shared/harn';
import { visibleText } from '../../shared/visibleText';
import { TERMINAL_STATES, type TaskView } from '../../shared/tasks';
import { UsageError } from '../server';
import type { Client, EventFeed } from './client';
import { connect, CONNECTION_OPTIONS } from './connection';
import { OperatorError } from './errors';
import { err, out } from './terminal';

/** A run line on one line of the terminal: a newline in it is shown, not followed (out() shows every other control character). */
const shown = (text: string) => visibleText(text);

export async function harnCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'run') throw new UsageError(`harn needs run${sub ? `, not "${sub}"` : ''}`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: { ...CONNECTION_OPTIONS, prompt: { type: 'string' }, session: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('harn run takes one script file');
  const client = await connect(values, 'harn');
  const events = await client.events();
  try {
    const task = await client.call('startHarnRun', { script: resolve(positionals[0]!), prompt: values.prompt, sessionId: values.session });
    out(`task ${task.id}: ${shown(task.title)}\n`);
    process.once('SIGINT', () => {
      out('\ncancelling…\n');
      void cancel(client, task.id);
    });
    const ended = await follow(events, task.id);
    out(`\n${ended.state}${ended.finalMessage ? `: ${ended.finalMessage}` : ''}\n`);
    if (ended.state !== 'succeeded') process.exitCode = 1;
  } finally {
    events.close();
  }
}

/** Asks the gateway to cancel the run's task; the stream then reports how it ended. */
async function cancel(client: Client, taskId: string): Promise<void> {
  try {
    await client.call('cancelTask', { id: taskId });
  } catch (error) {
    err(`capstan harn: could not cancel ${taskId}: ${error instanceof OperatorError ? error.message : String(error)}\n`);
  }
}

/** Prints the run's lines from the event stream until its task ends; resolves with the task. */
async function follow(events: EventFeed, taskId: string): Promise<TaskView> {
  // What was printed of each line, for the lines the gateway may still change in place: it keeps
  // a run's last HARN_UPDATES_KEPT, so older ones are forgotten here too.
  const seen = new Map<number, string>();
  const remember = (seq: number, text: string) => {
    seen.set(seq, text);
    if (seen.size > HARN_UPDATES_KEPT) seen.delete(Math.min(...seen.keys()));
  };
  let streaming: number | undefined;
  const print = (line: HarnUpdate) => {
    const before = seen.get(line.seq);
    const printed = shown(`[${line.kind}${line.status ? ` ${line.status}` : ''}] ${line.text}${line.requestId ? ` (${line.requestId})` : ''}`);
    if (line.kind === 'message') {
      // A streamed message grows in place: print what it gained, on one line.
      remember(line.seq, line.text);
      const gained = before !== undefined && line.text.startsWith(before) ? line.text.slice(before.length) : line.text;
      out(streaming !== undefined && streaming !== line.seq ? `\n${gained}` : gained);
      streaming = line.seq;
      return;
    }
    remember(line.seq, printed);
    if (before === printed) return;
    out(`${streaming !== undefined ? '\n' : ''}${printed}\n`);
    streaming = undefined;
  };
  for await (const event of events) {
    if (event.type === 'harn' && event.run.taskId === taskId) event.updates.forEach(print);
    if (event.type === 'task' && event.task.id === taskId && TERMINAL_STATES.includes(event.task.state)) return event.task;
  }
  throw new Error('the gateway closed the event stream before the run ended');
}
