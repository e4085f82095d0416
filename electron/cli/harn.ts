/**
 * `capstan harn run FILE [--prompt TEXT]`: starts a Harn script on the running gateway, as the
 * console's Run Harn script does, and prints the run's lines and its outcome as they come (the
 * gateway's event stream, opened before the run starts so nothing is missed). Ctrl-C cancels the
 * run and waits for it to stop. The exit code is 0 only when the task succeeded.
 *
 * The gateway is the one `--url` (or CAPSTAN_URL) names, else the one running for the data dir
 * (`<data dir>/gateway.json`); the operator's token comes from `--token-file`, CAPSTAN_TOKEN_FILE
 * or CAPSTAN_TOKEN, as for `capstan serve`.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CapstanEvent, EVENTS_PATH } from '../../shared/events';
import type { HarnUpdate } from '../../shared/harn';
import { TERMINAL_STATES, type TaskView } from '../../shared/tasks';
import { liveGateway } from './localGateway';
import { defaultDataDir } from '../paths';
import { readTokenFile, UsageError } from '../server';

const out = (text: string) => void process.stdout.write(text);

export async function harnCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'run') throw new UsageError(`harn needs run${sub ? `, not "${sub}"` : ''}`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: { prompt: { type: 'string' }, session: { type: 'string' }, url: { type: 'string' }, 'token-file': { type: 'string' }, 'data-dir': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('harn run takes one script file');
  const warn = (message: string) => void process.stderr.write(`capstan harn: ${message}\n`);
  const tokenFile = values['token-file'] ?? (process.env.CAPSTAN_TOKEN_FILE || undefined);
  const token = tokenFile ? readTokenFile({ value: tokenFile, from: values['token-file'] ? '--token-file' : 'CAPSTAN_TOKEN_FILE' }, warn) : process.env.CAPSTAN_TOKEN;
  if (!token) throw new UsageError("give the gateway's token with --token-file FILE or CAPSTAN_TOKEN");
  const url = values.url ?? (process.env.CAPSTAN_URL || (await liveGateway(values['data-dir'] ?? (process.env.CAPSTAN_DATA_DIR || defaultDataDir())))?.url);
  if (!url) throw new UsageError('no gateway is running for the data dir; start `capstan serve`, or give --url');

  const api = (path: string, body?: unknown) =>
    fetch(new URL(path, url), {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
  const events = await api(EVENTS_PATH).catch(() => undefined);
  if (!events?.ok || !events.body) throw new Error(`could not open ${EVENTS_PATH} at ${url}${events ? ` (HTTP ${events.status})` : ''}`);

  const started = await api('/harn/runs', { script: resolve(positionals[0]!), prompt: values.prompt, sessionId: values.session });
  const answer = (await started.json()) as TaskView & { error?: { message: string } };
  if (!started.ok) {
    void events.body.cancel();
    throw new Error(answer.error?.message ?? `HTTP ${started.status}`);
  }
  out(`task ${answer.id}: ${answer.title}\n`);
  process.once('SIGINT', () => {
    out('\ncancelling…\n');
    void api(`/tasks/${answer.id}/cancel`, {});
  });
  const ended = await follow(events.body, answer.id);
  out(`\n${ended.state}${ended.finalMessage ? `: ${ended.finalMessage}` : ''}\n`);
  void events.body.cancel().catch(() => undefined);
  if (ended.state !== 'succeeded') process.exitCode = 1;
}

/** Prints the run's lines from the event stream until its task ends; resolves with the task. */
async function follow(body: ReadableStream<Uint8Array>, taskId: string): Promise<TaskView> {
  const seen = new Map<number, string>();
  let streaming: number | undefined;
  const print = (line: HarnUpdate) => {
    const before = seen.get(line.seq);
    const shown = `[${line.kind}${line.status ? ` ${line.status}` : ''}] ${line.text}${line.requestId ? ` (${line.requestId})` : ''}`;
    if (line.kind === 'message') {
      // A streamed message grows in place: print what it gained, on one line.
      seen.set(line.seq, line.text);
      const gained = before !== undefined && line.text.startsWith(before) ? line.text.slice(before.length) : line.text;
      out(streaming !== undefined && streaming !== line.seq ? `\n${gained}` : gained);
      streaming = line.seq;
      return;
    }
    seen.set(line.seq, shown);
    if (before === shown) return;
    out(`${streaming !== undefined ? '\n' : ''}${shown}\n`);
    streaming = undefined;
  };
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const data = buffered
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n');
      buffered = buffered.slice(end + 2);
      const parsed = data ? CapstanEvent.safeParse(JSON.parse(data)) : undefined;
      const event = parsed?.success ? parsed.data : undefined;
      if (event?.type === 'harn' && event.run.taskId === taskId) event.updates.forEach(print);
      if (event?.type === 'task' && event.task.id === taskId && TERMINAL_STATES.includes(event.task.state)) return event.task;
    }
  }
  throw new Error('the gateway closed the event stream before the run ended');
}
