/**
 * `capstan tools`, `capstan call` and `capstan tasks`: the operator's everyday calls from a
 * terminal, against the running gateway (connection.ts), through the contract's operations as the
 * console calls them (client.ts).
 * Readable tables by default, `--json` for scripts; exit codes in errors.ts.
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import type { ConfirmationChallenge, ErrorEnvelope, ToolCallRequest, ToolCallResponse, ToolDescriptor, ToolsList } from '../../shared/api';
import type { TaskView } from '../../shared/tasks';
import { UsageError } from '../server';
import { coerceArg, parseArgumentsJson, splitArg } from './arguments';
import { connect, CONNECTION_OPTIONS } from './connection';
import { EXIT, GatewayError, OperatorError } from './errors';
import { table } from './table';
import { err, out, printJson } from './terminal';


export async function toolsCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false } }, strict: true });
  const client = await connect(values, 'tools');
  const answer: ToolsList = await client.call('listTools', undefined);
  if (values.json) return printJson(answer);
  const rows = answer.tools.map((tool) => [tool.id, tool.riskLevel, tool.needConfirm ? 'yes' : 'no', tool.mutating ? 'yes' : 'no', tool.description.split('\n')[0] ?? '']);
  out(table(['TOOL', 'RISK', 'CONFIRM', 'WRITES', 'DESCRIPTION'], rows));
  if (answer.loading?.length) err(`still loading: ${answer.loading.join(', ')}; more tools may follow\n`);
}

export async function callCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      json: { type: 'string' },
      arg: { type: 'string', multiple: true, default: [] },
      session: { type: 'string' },
      envelope: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('call takes one tool: capstan call TOOL [--arg key=value …] [--json \'{…}\']');
  const name = positionals[0]!;
  const argumentsObject = parseArgumentsJson(values.json);
  const pairs = values.arg.map(splitArg);
  const client = await connect(values, 'call');
  // The schema is needed to read --arg values, and to show the tool when it asks for confirmation.
  let tool: ToolDescriptor | undefined;
  const findTool = async () => (tool ??= (await client.call('listTools', undefined)).tools.find((candidate) => candidate.name === name || candidate.id === name));
  if (pairs.length > 0) {
    const schema = (await findTool())?.inputSchema;
    for (const [key, text] of pairs) argumentsObject[key] = coerceArg(schema, key, text);
  }
  const request: ToolCallRequest = { tool: name, arguments: argumentsObject, ...(values.session ? { sessionId: values.session } : {}) };

  let answer: ToolCallResponse | undefined;
  let confirmation: string | undefined;
  // A tool that needs confirmation is refused with a challenge (CONFIRMATION_REQUIRED); a challenge
  // that expired while the operator read it gets a new one, asked about again.
  while (!answer) {
    try {
      answer = await client.call('callTool', confirmation === undefined ? request : { ...request, confirmation });
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      const challenge = error.code === 'CONFIRMATION_REQUIRED' ? error.envelope.error.challenge : undefined;
      // --envelope prints the gateway's last answer, this refusal when it ends the command.
      if (values.envelope && (!challenge || !process.stdin.isTTY)) printJson(error.envelope);
      if (!challenge) throw new GatewayError(error.status, error.envelope, error.message + traced(error.envelope, 'failed'));
      if (!process.stdin.isTTY) {
        throw new OperatorError(
          `${name} needs the operator's confirmation and there is no terminal to ask on; run it in a terminal, or call it from the console. Nothing ran.${traced(error.envelope, 'not run')}`,
          EXIT.notConfirmed,
          'CONFIRMATION_REQUIRED',
        );
      }
      if (!(await confirm(await findTool(), name, argumentsObject, challenge))) {
        throw new OperatorError(`not confirmed; ${name} did not run${traced(error.envelope, 'not run')}`, EXIT.notConfirmed);
      }
      confirmation = challenge.id;
    }
  }
  printJson(values.envelope ? answer : answer.result);
  err(`ok: ${answer.requestId} in task ${answer.taskId}, ${answer.durationMs} ms${answer.traceId ? `, trace ${answer.traceId}` : ''}\n`);
}

/**
 * A refused or failed call's requestId (and task), on a line of its own after the error, as the
 * success line (`ok: <requestId> in task …`) has them: what to look the call up by in the ledger.
 * Empty when the gateway gave none (a request refused before it became a call, UNAUTHORIZED).
 */
function traced({ requestId, taskId }: ErrorEnvelope, outcome: string): string {
  return requestId ? `\n${outcome}: ${requestId}${taskId ? ` in task ${taskId}` : ''}` : '';
}

/** Shows the exact call, as the console's review dialog does, and asks; only "y" or "yes" confirms. */
async function confirm(tool: ToolDescriptor | undefined, name: string, args: Record<string, unknown>, challenge: ConfirmationChallenge): Promise<boolean> {
  const seconds = Math.max(0, Math.round((Date.parse(challenge.expiresAt) - Date.now()) / 1000));
  err(
    [
      `${challenge.tool} needs your confirmation before it runs.`,
      ...(tool ? [`  ${tool.title}: ${tool.description.split('\n')[0] ?? ''}`, `  risk ${tool.riskLevel}${tool.mutating ? ', writes data' : ''}`] : []),
      `  arguments: ${JSON.stringify(args, null, 2).replaceAll('\n', '\n  ')}`,
      `  arguments digest ${challenge.argumentsDigest}; the confirmation is good for ${seconds} s`,
      '',
    ].join('\n'),
  );
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const reply = await readline.question(`Run ${name}? [y/N] `);
    return /^y(es)?$/i.test(reply.trim());
  } finally {
    readline.close();
  }
}

export async function tasksCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false }, limit: { type: 'string' } }, strict: true });
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 200)) throw new UsageError(`--limit must be an integer from 1 to 200, got "${values.limit}"`);
  const client = await connect(values, 'tasks');
  const answer = await client.call('listTasks', limit === undefined ? {} : { finishedLimit: limit });
  if (values.json) return printJson(answer);
  const calls = ({ callCounts, callsInFlight }: TaskView) =>
    [
      ...Object.entries(callCounts)
        .filter(([, count]) => count > 0)
        .map(([status, count]) => `${count} ${status}`),
      ...(callsInFlight > 0 ? [`${callsInFlight} running`] : []),
    ].join(', ') || '-';
  const rows = answer.tasks.map((task) => [task.id, task.state, task.sessionId, task.endedAt ?? task.createdAt, calls(task), task.title]);
  out(rows.length === 0 ? 'no tasks\n' : table(['TASK', 'STATE', 'SESSION', 'WHEN', 'CALLS', 'TITLE'], rows));
}
