/**
 * Capstan's `/mcp` (and `capstan mcp`) answering `resources/list`, `resources/templates/list`,
 * `resources/read`, `prompts/list`, `prompts/get` and `completion/complete`: each is one dispatch
 * of the operation HTTP has (listResources, readResource, listPrompts, getPrompt, completeArgument)
 * in the client's session, so the agent's grants decide what it sees, and every read and get is
 * on record, as any call is.
 *
 * Names on the wire. An agent sees the MCP servers' resources as one server's would look, so a
 * URI two servers both list (declared.ts: URIs are not unique across servers) cannot go out as
 * it is: it is listed as `capstan:resource/<catalog id>` instead, which a read maps back to that
 * one resource. A URI only one of them lists keeps its own form (resource links in tool results
 * name it so). Prompt names work the same way: a name two servers use goes out as the catalog id.
 *
 * Errors follow the specification: a resource nobody lists is -32602 with the URI as its data
 * (SEP-2164's ResourceNotFound), a prompt or argument the request gets wrong -32602, anything
 * else -32603; those carry Capstan's envelope as `data`.
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import type { ErrorEnvelope, OperationName, OperationOutput } from '../../../shared/api';
import { dispatch, type ApiHandlers, type CallContext } from '../../services/api';
import { callerOf, type McpCaller } from './caller';

/** The prefix a listed URI takes when several MCP servers list it as it is. */
export const QUALIFIED_URI = 'capstan:resource/';

/** Codes that mean the request named something wrong, rather than the gateway or a server failing. */
const CALLER_MISTAKES = new Set([
  'RESOURCE_AMBIGUOUS',
  'PROMPT_NOT_FOUND',
  'CAPABILITY_NOT_FOUND',
  'ARGUMENT_MISSING',
  'ARGUMENT_INVALID',
  'BAD_REQUEST',
  'NOT_GRANTED',
  'SERVER_FEATURE_UNSUPPORTED',
]);

export function registerDeclared(server: Server, handlers: ApiHandlers): void {
  const context = (caller: McpCaller): CallContext => ({ requestId: caller.requestId, requestIdIssued: caller.requestIdIssued, log: caller.log, principal: caller.principal, signal: caller.signal });
  async function run<K extends OperationName>(caller: McpCaller, operation: K, input: unknown, uri?: string): Promise<OperationOutput<K>> {
    const reply = await dispatch(handlers, operation, input, context(caller));
    if (reply.ok) return reply.value;
    throw protocolError(reply.envelope, uri);
  }

  const resources = (caller: McpCaller) => run(caller, 'listResources', { sessionId: caller.sessionId });
  const prompts = (caller: McpCaller) => run(caller, 'listPrompts', { sessionId: caller.sessionId });

  server.setRequestHandler('resources/list', async (_request, ctx) => {
    const { resources: listed } = await resources(callerOf(ctx));
    const shared = repeated(listed.map((resource) => resource.uri));
    return {
      resources: listed.map(({ id, uri, name, title, description, mimeType, size, icons }) => ({
        uri: shared.has(uri) ? `${QUALIFIED_URI}${id}` : uri,
        name,
        title,
        description,
        ...(mimeType ? { mimeType } : {}),
        ...(size !== null ? { size } : {}),
        ...(icons ? { icons } : {}),
      })),
    };
  });

  server.setRequestHandler('resources/templates/list', async (_request, ctx) => {
    const { templates } = await resources(callerOf(ctx));
    return {
      resourceTemplates: templates.map(({ uriTemplate, name, title, description, mimeType, icons }) => ({
        uriTemplate,
        name,
        title,
        description,
        ...(mimeType ? { mimeType } : {}),
        ...(icons ? { icons } : {}),
      })),
    };
  });

  server.setRequestHandler('resources/read', async (request, ctx) => {
    const caller = callerOf(ctx);
    const { uri } = request.params;
    const byId = uri.startsWith(QUALIFIED_URI) ? { id: uri.slice(QUALIFIED_URI.length) } : { uri };
    const read = await run(caller, 'readResource', { ...byId, sessionId: caller.sessionId, requestId: caller.requestId }, uri);
    return { contents: read.contents.map((part) => ({ ...part, uri: byId.id ? uri : part.uri })) as never };
  });

  server.setRequestHandler('prompts/list', async (_request, ctx) => {
    const { prompts: listed } = await prompts(callerOf(ctx));
    const shared = repeated(listed.map((prompt) => prompt.name));
    return {
      prompts: listed.map(({ id, name, title, description, arguments: args, icons }) => ({
        name: shared.has(name) ? id : name,
        title,
        description,
        arguments: args,
        ...(icons ? { icons } : {}),
      })),
    };
  });

  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const caller = callerOf(ctx);
    const { name, arguments: args = {} } = request.params;
    const got = await run(caller, 'getPrompt', { ...promptRef(name), arguments: args, sessionId: caller.sessionId, requestId: caller.requestId });
    return { ...(got.description !== undefined ? { description: got.description } : {}), messages: got.messages as never };
  });

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const caller = callerOf(ctx);
    const { ref, argument, context: given } = request.params;
    let id: string | undefined;
    if (ref.type === 'ref/prompt') {
      const named = promptRef(ref.name);
      id = named.id ?? (await prompts(caller)).prompts.find((prompt) => prompt.name === named.name)?.id;
    } else {
      id = (await resources(caller)).templates.find((template) => template.uriTemplate === ref.uri)?.id;
    }
    // Something the agent may not discover, or that is not there: no suggestions, as a server with none would say.
    if (!id) return { completion: { values: [] } };
    const reply = await dispatch(handlers, 'completeArgument', { id, argument, ...(given?.arguments ? { context: given.arguments } : {}), sessionId: caller.sessionId }, context(caller));
    // Capstan declares completions for every server behind it; one that offers none has no suggestions, which is no error.
    if (!reply.ok && reply.envelope.error.code === 'SERVER_FEATURE_UNSUPPORTED') return { completion: { values: [] } };
    if (!reply.ok) throw protocolError(reply.envelope, undefined);
    const completed = reply.value;
    return {
      completion: {
        values: completed.values,
        ...(completed.total !== undefined ? { total: completed.total } : {}),
        ...(completed.hasMore !== undefined ? { hasMore: completed.hasMore } : {}),
      },
    };
  });
}

/** A prompt as an agent names it: its server's name, or the catalog id it was listed under when that name is shared. */
const promptRef = (name: string) => (/^[A-Za-z0-9_.-]{1,128}:prompt\./.test(name) ? { id: name } : { name });

function repeated(values: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const value of values) (seen.has(value) ? twice : seen).add(value);
  return twice;
}

function protocolError(envelope: ErrorEnvelope, uri: string | undefined): ProtocolError {
  const { code, message } = envelope.error;
  if (code === 'RESOURCE_NOT_FOUND' && uri !== undefined) return new ResourceNotFoundError(uri, `Resource not found: ${uri.slice(0, 500)}`);
  return new ProtocolError(CALLER_MISTAKES.has(code) ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError, message, envelope);
}
