/**
 * An MCP server's resources, resource templates and prompts, through the connection's SDK client:
 * listed when the server declares the capability (again on its list_changed: declaredWatch.ts),
 * and read, got and completed on behalf of services/resources.ts (which decides who may; nothing
 * here checks a grant). Kept apart from connection.ts, which owns the client's
 * setup: this module only calls the client it made.
 */
import { ProtocolError, type Client, type CompleteResult, type GetPromptResult, type ReadResourceResult } from '@modelcontextprotocol/client';
import { CapstanError } from '../../../shared/errors';
import { isConnectionLost, isTimeout } from './connection';
import { redactClipped, redactJson } from './secrets';

/** What a server lists besides tools, as it sent them (the catalog validates them: catalog/declared.ts). */
export interface DeclaredLists {
  resources: unknown[];
  resourceTemplates: unknown[];
  prompts: unknown[];
}

export const NO_DECLARED: DeclaredLists = { resources: [], resourceTemplates: [], prompts: [] };

/** What the server said it offers: a list is asked only of a server declaring it. */
export function declaredCapabilities(client: Client): { resources: boolean; subscribe: boolean; prompts: boolean; completions: boolean } {
  const capabilities = client.getServerCapabilities() ?? {};
  return {
    resources: capabilities.resources !== undefined,
    subscribe: capabilities.resources?.subscribe === true,
    prompts: capabilities.prompts !== undefined,
    completions: capabilities.completions !== undefined,
  };
}

/** The most resources, templates or prompts kept of one server's listing. */
export const MAX_DECLARED_PER_LIST = 10_000;

/**
 * Every resource, template and prompt, across every page. Always fetched afresh (`refresh`): a
 * list is asked for because it changed. A server that fails one of the lists (some declare
 * `resources` and answer only resources/list) keeps the others: `problems` says which failed.
 */
export async function listDeclared(client: Client, timeoutMs: number): Promise<{ lists: DeclaredLists; problems: string[] }> {
  const offered = declaredCapabilities(client);
  const options = { cacheMode: 'refresh' as const, timeout: timeoutMs };
  const problems: string[] = [];
  const attempt = async <T>(what: string, wanted: boolean, list: () => Promise<T[]>): Promise<T[]> => {
    if (!wanted) return [];
    try {
      return await list();
    } catch (error) {
      problems.push(`${what} could not be listed: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  };
  // Kept up to a bound: each is a catalog entry, in every listing and search, held while the server is.
  const bounded = <T>(what: string, all: T[]): T[] => {
    if (all.length <= MAX_DECLARED_PER_LIST) return all;
    problems.push(`the server lists ${all.length} ${what}: the first ${MAX_DECLARED_PER_LIST} are kept`);
    return all.slice(0, MAX_DECLARED_PER_LIST);
  };
  const [resources, resourceTemplates, prompts] = await Promise.all([
    attempt('resources', offered.resources, async () => bounded('resources', (await client.listResources(undefined, options)).resources)),
    attempt('resource templates', offered.resources, async () => bounded('resource templates', (await client.listResourceTemplates(undefined, options)).resourceTemplates)),
    attempt('prompts', offered.prompts, async () => bounded('prompts', (await client.listPrompts(undefined, options)).prompts)),
  ]);
  return { lists: { resources, resourceTemplates, prompts }, problems };
}

/** What a reference names for `completion/complete`: a prompt by its MCP name, or a template by its URI template. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/**
 * One connection's resource and prompt operations, each with the caller's signal and the server's
 * timeout; what the server answers or fails with has the secrets Capstan holds for it masked, as
 * a tool call's answer has (calls.ts).
 */
export class DeclaredAccess {
  constructor(
    private readonly client: Client,
    private readonly timeoutMs: number,
    private readonly secrets: () => readonly string[] = () => [],
  ) {}

  get capabilities() {
    return declaredCapabilities(this.client);
  }

  /** Reads a resource afresh (never from the SDK's response cache: a read is evidence of what the server said now). */
  read(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.#ask('resources/read', signal, () => this.client.readResource({ uri }, { cacheMode: 'bypass', signal, timeout: this.timeoutMs }));
  }

  getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    return this.#ask('prompts/get', signal, () => this.client.getPrompt({ name, arguments: args }, { signal, timeout: this.timeoutMs }));
  }

  complete(ref: CompletionRef, argument: { name: string; value: string }, context: Record<string, string> | undefined, signal?: AbortSignal): Promise<CompleteResult> {
    return this.#ask('completion/complete', signal, () =>
      this.client.complete({ ref, argument, ...(context ? { context: { arguments: context } } : {}) }, { ...(signal ? { signal } : {}), timeout: this.timeoutMs }),
    );
  }

  /**
   * The server's answer, or what its failure means to a Capstan client: its JSON-RPC error is
   * MCP_SERVER_ERROR with its code, a lost connection PROVIDER_UNAVAILABLE. A request the caller
   * aborted rejects as the SDK says, for the runtime to tell cancelled from failed.
   */
  async #ask<T>(method: string, signal: AbortSignal | undefined, request: () => Promise<T>): Promise<T> {
    try {
      return redactJson(await request(), this.secrets());
    } catch (error) {
      if (signal?.aborted) throw error;
      if (error instanceof ProtocolError) {
        throw new CapstanError('MCP_SERVER_ERROR', `the server answered ${method} with error ${error.code}: ${redactClipped(error.message, this.secrets(), 500)}`, { serverCode: error.code });
      }
      if (isTimeout(error)) throw new CapstanError('MCP_SERVER_ERROR', `the server did not answer ${method} within ${this.timeoutMs} ms`, { serverCode: null });
      if (isConnectionLost(error)) throw new CapstanError('PROVIDER_UNAVAILABLE', `the connection to the server was lost during ${method}`);
      throw error;
    }
  }
}
