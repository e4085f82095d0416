/**
 * `capstan pins list`, `capstan pins diff ID` and `capstan pins accept ID`: the review of pinned
 * contracts (shared/pins.ts) from a terminal, through the same operations as the console
 * (listPins, getPinDiff, acceptPin) on the CLI's one client (client.ts). An acceptance is bound to
 * the descriptor shown: the hash of the current descriptor goes with it, so a tool that changed
 * again meanwhile is not accepted. Exit codes as for `capstan call` (errors.ts).
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { changedParts, confusables, revealConfusables, revealHidden, type PinDiff, type PinHold } from '../../shared/pins';
import { UsageError } from '../server';
import type { Client } from './client';
import { connect, CONNECTION_OPTIONS } from './connection';
import { EXIT, OperatorError } from './errors';
import { table } from './table';
import { err, out, printJson } from './terminal';


export async function pinsCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'list') return list(rest);
  if (sub === 'diff') return diff(rest);
  if (sub === 'accept') return accept(rest);
  throw new UsageError(`pins needs list, diff or accept${sub ? `, not "${sub}"` : ''}`);
}

async function list(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false } }, strict: true });
  const client = await connect(values, 'pins list');
  const answer = await client.call('listPins', undefined);
  if (values.json) return printJson(answer);
  if (answer.held.length === 0) return out('nothing held\n');
  const rows = answer.held.map((hold) => [hold.id, hold.kind, hold.changed.join(', '), hold.since, hold.findings.length === 0 ? '-' : hold.findings.join('; ')]);
  out(table(['ID', 'HELD AS', 'CHANGED', 'SINCE', 'FINDINGS'], rows));
}

/** One positional, the held capability's id. */
function idOf(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`${command} takes one held capability: capstan ${command} ID (capstan pins list names them)`);
  return positionals[0]!;
}

async function diff(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
  const id = idOf(positionals, 'pins diff');
  const client = await connect(values, 'pins diff');
  const answer = await client.call('getPinDiff', { id });
  if (values.json) return printJson(answer);
  out(describeDiff(answer));
}

/**
 * The held capability, then each changed part as pinned (-) and as now (+), pretty JSON with
 * hidden characters and homoglyphs made visible, then the findings.
 */
export function describeDiff({ hold, pinned, current }: PinDiff): string {
  const lines = [
    `${hold.id}: held as ${hold.kind === 'new' ? 'new (no pin yet)' : hold.kind === 'renamed' ? `renamed (from ${hold.renamedFrom ?? '?'})` : 'changed'} since ${hold.since}`,
    `  pinned  ${hold.pinnedHash ?? '-'}`,
    `  current ${hold.currentHash}`,
  ];
  const name = String(current.name ?? hold.name);
  const lookalikes = confusables(name);
  if (lookalikes.length > 0) lines.push(`  name ${revealConfusables(name)}: ${lookalikes.map((found) => `${found.codePoint} looks like ${found.looksLike}`).join(', ')}`);
  const show = (value: unknown) => revealHidden(JSON.stringify(value, null, 2) ?? 'absent').split('\n');
  for (const part of changedParts(pinned, current)) {
    lines.push('', `${part}:`);
    if (pinned !== null) lines.push(...show(pinned[part]).map((line) => `- ${line}`));
    lines.push(...show(current[part]).map((line) => `+ ${line}`));
  }
  lines.push('', hold.findings.length === 0 ? 'findings: none' : 'findings:', ...hold.findings.map((finding) => `  - ${finding}`));
  return `${lines.join('\n')}\n`;
}

async function accept(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...CONNECTION_OPTIONS, yes: { type: 'boolean', short: 'y', default: false }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const id = idOf(positionals, 'pins accept');
  const client = await connect(values, 'pins accept');
  // What is accepted is the descriptor as shown here: its hash goes with the acceptance.
  const shown = await client.call('getPinDiff', { id });
  if (!values.yes) {
    if (!process.stdin.isTTY) {
      throw new OperatorError(
        `accepting ${id} needs the operator's confirmation and there is no terminal to ask on; review it with \`capstan pins diff ${id}\` and run this in a terminal, or give --yes. Nothing was accepted.`,
        EXIT.notConfirmed,
        'CONFIRMATION_REQUIRED',
      );
    }
    err(describeDiff(shown));
    if (!(await ask(`Accept ${id} as shown (${shown.hold.currentHash.slice(0, 12)}…)? [y/N] `))) {
      throw new OperatorError(`not confirmed; ${id} stays held`, EXIT.notConfirmed);
    }
  }
  const answer = await acceptShown(client, shown.hold);
  if (values.json) return printJson(answer);
  err(`accepted ${id} at ${shown.hold.currentHash}; ${answer.held.length} still held\n`);
}

const acceptShown = (client: Client, hold: PinHold) => client.call('acceptPin', { id: hold.id, hash: hold.currentHash });

async function ask(question: string): Promise<boolean> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await readline.question(question)).trim());
  } finally {
    readline.close();
  }
}
