/**
 * `capstan logs NAME [--level L] [-n N] [--follow] [--json]`: an MCP server's log lines
 * (`notifications/message`) as the running gateway kept them, one readable line each; with
 * --follow, the new ones as they arrive (the gateway's event stream, opened before the kept
 * lines are read, so none falls between the two). `--set-level L` asks the server to send lines
 * at L and above (`logging/setLevel`) first.
 *
 * The gateway and the operator's token are found as for `capstan tools` (connection.ts).
 */
import { parseArgs } from 'node:util';
import { LogLevel, atLeast, type ServerLogLine } from '../../shared/serverLog';
import { UsageError } from '../server';
import { connect, CONNECTION_OPTIONS } from './connection';
import { out, printJsonLine } from './terminal';


/** One line: time, level (padded, so a followed tail lines up), the server's logger, the data. */
export const logLine = (line: ServerLogLine): string => `${line.at}  ${line.level.padEnd(9)} ${line.logger ? `[${line.logger}] ` : ''}${line.data}\n`;

export async function logsCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      level: { type: 'string' },
      'set-level': { type: 'string' },
      n: { type: 'string', short: 'n', default: '50' },
      follow: { type: 'boolean', short: 'f', default: false },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('logs takes one MCP server name');
  const name = positionals[0]!;
  const level = parsedLevel(values.level, '--level');
  const setLevel = parsedLevel(values['set-level'], '--set-level');
  const limit = Number(values.n);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('-n takes a whole number from 1 to 500');
  const client = await connect(values, 'logs');
  const print = (line: ServerLogLine) => (values.json ? printJsonLine(line) : out(logLine(line)));
  if (setLevel) await client.call('setServerLogLevel', { name, level: setLevel });
  const events = values.follow ? await client.events() : undefined;
  try {
    const kept = await client.call('getServerLog', { name, level, limit });
    kept.lines.forEach(print);
    if (!events) return;
    let last = kept.lines.at(-1)?.seq ?? 0;
    for await (const event of events) {
      if (event.type !== 'serverLog' || event.server !== name || event.line.seq <= last) continue;
      last = event.line.seq;
      if (!level || atLeast(event.line.level, level)) print(event.line);
    }
    throw new Error('the gateway closed the event stream');
  } finally {
    events?.close();
  }
}

function parsedLevel(given: string | undefined, flag: string): LogLevel | undefined {
  if (given === undefined) return undefined;
  const parsed = LogLevel.safeParse(given);
  if (!parsed.success) throw new UsageError(`${flag} takes one of ${LogLevel.options.join(', ')}`);
  return parsed.data;
}
