/**
 * `capstan resources`, `capstan read URI`, `capstan prompts` and `capstan prompt NAME --arg k=v`:
 * the MCP servers' resources, templates and prompts from a terminal, against the running gateway
 * (connection.ts), through the same operations as the console (shared/resources.ts), so each
 * read and get is in a task, under the grant, and on record.
 *
 * `read` prints a text resource as it is (several parts one after another) and writes a binary
 * one to --out FILE (or says how big it is); `--json` prints the gateway's answer. `prompt`
 * prints each message as `role: text`. The requestId goes to stderr, as for `capstan call`.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { GetPromptOutput, PromptList, ReadResourceOutput, ResourceList } from '../../shared/resources';
import { UsageError } from '../server';
import { splitArg } from './arguments';
import { connect, CONNECTION_OPTIONS } from './connection';
import { table } from './table';
import { err, out, printJson } from './terminal';


const LIST_OPTIONS = { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false }, server: { type: 'string' } } as const;

export async function resourcesCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: LIST_OPTIONS, strict: true });
  const client = await connect(values, 'resources');
  const answer: ResourceList = await client.call('listResources', values.server ? { server: values.server } : {});
  if (values.json) return printJson(answer);
  const rows = [
    ...answer.resources.map((resource) => [resource.uri, resource.server, resource.mimeType ?? '', resource.title, resource.id]),
    ...answer.templates.map((template) => [template.uriTemplate, template.server, template.mimeType ?? '', `${template.title} (template: ${template.variables.join(', ')})`, template.id]),
  ];
  if (rows.length === 0) return err('no resources: no MCP server lists any, or none is granted to you\n');
  out(table(['URI', 'SERVER', 'TYPE', 'TITLE', 'ID'], rows));
}

export async function readCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      json: { type: 'boolean', default: false },
      server: { type: 'string' },
      id: { type: 'string' },
      var: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      session: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1 || (positionals.length === 0 && !values.id)) throw new UsageError('read takes one URI, or --id ID (a template\'s with --var name=value …)');
  const variables = values.var.length > 0 ? Object.fromEntries(values.var.map(splitArg)) : undefined;
  const client = await connect(values, 'read');
  const answer: ReadResourceOutput = await client.call('readResource', {
    ...(positionals[0] !== undefined ? { uri: positionals[0] } : {}),
    ...(values.id ? { id: values.id } : {}),
    ...(values.server ? { server: values.server } : {}),
    ...(variables ? { variables } : {}),
    ...(values.session ? { sessionId: values.session } : {}),
  });
  if (values.json) printJson(answer);
  else {
    for (const part of answer.contents) {
      if (part.text !== undefined) out(part.text.endsWith('\n') ? part.text : `${part.text}\n`);
      else if (part.blob !== undefined) {
        const bytes = Buffer.from(part.blob, 'base64');
        if (values.out) {
          writeFileSync(values.out, bytes);
          err(`${part.uri}: ${bytes.length} bytes${part.mimeType ? ` of ${part.mimeType}` : ''} written to ${values.out}\n`);
        } else err(`${part.uri}: ${bytes.length} bytes${part.mimeType ? ` of ${part.mimeType}` : ''}, binary: give --out FILE to save it, or --json\n`);
      }
    }
  }
  err(`ok: ${answer.requestId} in task ${answer.taskId}, ${answer.id}, ${answer.durationMs} ms\n`);
}

export async function promptsCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: LIST_OPTIONS, strict: true });
  const client = await connect(values, 'prompts');
  const answer: PromptList = await client.call('listPrompts', values.server ? { server: values.server } : {});
  if (values.json) return printJson(answer);
  if (answer.prompts.length === 0) return err('no prompts: no MCP server offers any, or none is granted to you\n');
  const argumentsOf = (prompt: PromptList['prompts'][number]) => prompt.arguments.map((argument) => (argument.required ? argument.name : `[${argument.name}]`)).join(' ');
  out(table(['NAME', 'SERVER', 'ARGUMENTS', 'DESCRIPTION', 'ID'], answer.prompts.map((prompt) => [prompt.name, prompt.server, argumentsOf(prompt), prompt.description.split('\n')[0] ?? '', prompt.id])));
}

export async function promptCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', default: false }, server: { type: 'string' }, arg: { type: 'string', multiple: true, default: [] }, session: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('prompt takes one prompt: capstan prompt NAME [--arg key=value …]');
  const name = positionals[0]!;
  const client = await connect(values, 'prompt');
  const answer: GetPromptOutput = await client.call('getPrompt', {
    ...(/^[A-Za-z0-9_.-]{1,128}:prompt\./.test(name) ? { id: name } : { name }),
    arguments: Object.fromEntries(values.arg.map(splitArg)),
    ...(values.server ? { server: values.server } : {}),
    ...(values.session ? { sessionId: values.session } : {}),
  });
  if (values.json) printJson(answer);
  else {
    if (answer.description) out(`# ${answer.description}\n`);
    for (const message of answer.messages) out(`${message.role}: ${messageText(message.content)}\n`);
  }
  err(`ok: ${answer.requestId} in task ${answer.taskId}, ${answer.id}, ${answer.durationMs} ms\n`);
}

/** A message's content as a line: its text, or what it holds (an image, an embedded resource) in brackets. */
function messageText(content: unknown): string {
  const block = (content ?? {}) as { type?: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string } };
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  if (block.type === 'resource' && block.resource) return `[resource ${block.resource.uri ?? ''}]${block.resource.text !== undefined ? `\n${block.resource.text}` : ''}`;
  if (block.type === 'image' || block.type === 'audio') return `[${block.type}${block.mimeType ? ` ${block.mimeType}` : ''}]`;
  return JSON.stringify(content);
}
