/**
 * The resource and prompt service: listing, reading, getting and completing what MCP servers
 * offer besides tools, whatever the way in (HTTP, IPC, the CLI, `/mcp` and `capstan mcp`). One
 * path, the call service's shape:
 *
 *   resolve (the catalog, by id, or by URI or name across servers: RESOURCE_AMBIGUOUS when that
 *   names several) → available? (provider enabled and connected, not revoked) → in which task?
 *   → the runtime's one call path (granted `read` / `get`? → recorded as started, with the
 *   digests of what is asked → the server's answer under a deadline, abortable → recorded as
 *   finished with the answer's digest) → the answer.
 *
 * Completions need the same grant but read nothing and are not recorded; subscriptions are the
 * operator's (the console's live view of a resource), their updates published as events.
 */
import { UriTemplate } from '@modelcontextprotocol/client';
import type { CapabilityContract, PromptContract, ResourceContract, ResourceTemplateContract } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import type {
  CompleteInput,
  CompleteOutput,
  GetPromptInput,
  GetPromptOutput,
  PromptList,
  ReadResourceInput,
  ReadResourceOutput,
  ResourceList,
  ResourceListInput,
  ResourceSubscriptions,
} from '../../shared/resources';
import { MAX_RESOURCE_SUBSCRIPTIONS } from '../../shared/resources';
import type { Catalog } from '../catalog/catalog';
import { templateMatcher } from '../catalog/declared';
import type { SnapshotEntry } from '../catalog/snapshot';
import { McpServerProvider } from '../providers/mcp/provider';
import type { Ledger } from '../runtime/ledger';
import type { TaskRuntime } from '../runtime/runtime';
import type { RunningTask } from '../runtime/task';
import { assertRequestIdFree, type CallContext } from './calls';
import type { EventBus } from './events';

/** The runtime's deadline beyond the server's own (`toolTimeoutMs`), as a backstop: the server's comes first and says more. */
const BACKSTOP_MS = 10_000;

type Where = { sessionId?: string | undefined; taskId?: string | undefined };
type Readable = ResourceContract | ResourceTemplateContract;

interface Parts {
  catalog: Catalog;
  tasks: TaskRuntime;
  ledger: Ledger;
  events: EventBus;
}

export class ResourceService {
  /**
   * The operator's subscriptions, by resource id: its stop function and how many follow it (two
   * console windows may follow one resource; the server is told to stop when the last one stops).
   */
  readonly #subscriptions = new Map<string, { stop: () => Promise<void>; holders: number }>();

  constructor(private readonly parts: Parts) {}

  /** The resources and templates the caller may discover (granted at least `discover`), in its task. */
  list(input: ResourceListInput & Where): ResourceList {
    const task = this.parts.tasks.taskForCall(input);
    const visible = this.#visible(task, input.server);
    const listed = ({ id, provider, declaredName, title, description, icons }: CapabilityContract & { declaredName: string; icons?: unknown }) => ({
      id,
      server: provider,
      name: declaredName,
      title,
      description,
      ...(icons ? { icons: icons as ResourceList['resources'][number]['icons'] } : {}),
    });
    return {
      taskId: task.id,
      resources: visible.flatMap(({ contract }) => (contract.kind === 'resource' ? [{ ...listed(contract), uri: contract.uri, mimeType: contract.mimeType, size: contract.size }] : [])),
      templates: visible.flatMap(({ contract }) =>
        contract.kind === 'resourceTemplate' ? [{ ...listed(contract), uriTemplate: contract.uriTemplate, variables: contract.variables, mimeType: contract.mimeType }] : [],
      ),
    };
  }

  prompts(input: ResourceListInput & Where): PromptList {
    const task = this.parts.tasks.taskForCall(input);
    return {
      taskId: task.id,
      prompts: this.#visible(task, input.server).flatMap(({ contract }) =>
        contract.kind === 'prompt'
          ? [{ id: contract.id, server: contract.provider, name: contract.declaredName, title: contract.title, description: contract.description, arguments: contract.arguments, ...(contract.icons ? { icons: contract.icons } : {}) }]
          : [],
      ),
    };
  }

  /** Reads a resource, or a URI a template describes (given, or made from the template's `variables`). */
  async read(input: ReadResourceInput & { variables?: Record<string, string> | undefined }, context: CallContext): Promise<ReadResourceOutput> {
    assertRequestIdFree(this.parts.ledger, context);
    const task = this.parts.tasks.taskForCall(input);
    const { contract, uri } = inTask(task, () => this.#resolveReadable(input, task));
    const provider = inTask(task, () => this.#provider(contract));
    const started = await this.#run(task, context, contract, 'read', { operation: 'resources/read', uriDigest: this.parts.ledger.digest(uri) }, async (signal) => {
      const answer = await provider.declaredAccess().read(uri, signal);
      return bounded({ contents: answer.contents }, contract.id, provider.settings.maxResultBytes);
    });
    const { value, bytes, taskId, durationMs } = started;
    return { requestId: context.requestId, taskId, id: contract.id, uri, contents: value.contents as ReadResourceOutput['contents'], bytes, durationMs };
  }

  async get(input: GetPromptInput, context: CallContext): Promise<GetPromptOutput> {
    assertRequestIdFree(this.parts.ledger, context);
    const task = this.parts.tasks.taskForCall(input);
    const contract = inTask(task, () => this.#resolvePrompt(input, task));
    const args = input.arguments ?? {};
    // Arguments are checked only for a caller granted `get` (as a tool's are for `execute`); the
    // call path refuses and records anyone else before anything is sent.
    if (task.grants.held(contract.id, 'prompt') === 'get') inTask(task, () => assertPromptArguments(contract, args));
    const provider = inTask(task, () => this.#provider(contract));
    const started = await this.#run(task, context, contract, 'get', { operation: 'prompts/get', argumentsDigest: this.parts.ledger.digest(args) }, async (signal) => {
      const answer = await provider.declaredAccess().getPrompt(contract.declaredName, args, signal);
      return bounded({ ...(answer.description !== undefined ? { description: answer.description } : {}), messages: answer.messages }, contract.id, provider.settings.maxResultBytes);
    });
    const { value, bytes, taskId, durationMs } = started;
    return { requestId: context.requestId, taskId, id: contract.id, ...(value.description !== undefined ? { description: value.description as string } : {}), messages: value.messages as GetPromptOutput['messages'], bytes, durationMs };
  }

  /** `completion/complete` for a prompt's argument or a template's variable, when the caller may read or get it. */
  async complete(input: CompleteInput, context: CallContext): Promise<CompleteOutput> {
    const live = this.parts.catalog.live(input.id);
    const contract = live?.contract;
    if (!contract || (contract.kind !== 'prompt' && contract.kind !== 'resourceTemplate')) {
      throw new CapstanError('CAPABILITY_NOT_FOUND', `no prompt or resource template "${input.id}"`);
    }
    this.parts.catalog.assertAvailable(contract.id);
    const task = this.parts.tasks.taskForCall(input);
    try {
      task.grants.require(contract.id, contract.kind, contract.kind === 'prompt' ? 'get' : 'read');
    } catch (error) {
      throw error instanceof CapstanError ? error.inTask(task.id) : error;
    }
    const provider = this.#provider(contract);
    const access = provider.declaredAccess();
    if (!access.capabilities.completions) {
      throw new CapstanError('SERVER_FEATURE_UNSUPPORTED', `provider "${contract.provider}" offers no completions (its capabilities declare none)`, { provider: contract.provider });
    }
    const ref = contract.kind === 'prompt' ? ({ type: 'ref/prompt', name: contract.declaredName } as const) : ({ type: 'ref/resource', uri: contract.uriTemplate } as const);
    const { completion } = await access.complete(ref, input.argument, input.context, context.signal);
    // As many values as MCP allows, and no more bytes than a read of the server may have.
    let values: string[];
    try {
      ({ value: values } = bounded(completion.values.slice(0, 100), contract.id, provider.settings.maxResultBytes));
    } catch (error) {
      throw error instanceof CapstanError ? error.inTask(task.id) : error;
    }
    return {
      id: contract.id,
      values,
      ...(completion.total !== undefined ? { total: completion.total } : {}),
      ...(completion.hasMore !== undefined ? { hasMore: completion.hasMore } : {}),
    };
  }

  /** The operator follows a resource's updates (or stops): each becomes a `resourceUpdated` event. */
  async setSubscribed({ id, subscribed }: { id: string; subscribed: boolean }): Promise<ResourceSubscriptions> {
    const held = this.#subscriptions.get(id);
    if (!subscribed) {
      if (held && --held.holders === 0) {
        this.#subscriptions.delete(id);
        await held.stop();
      }
      return this.subscriptions();
    }
    if (held) {
      held.holders += 1;
      return this.subscriptions();
    }
    const contract = this.parts.catalog.live(id)?.contract;
    if (!contract || contract.kind !== 'resource') throw new CapstanError('RESOURCE_NOT_FOUND', `no resource "${id}"`);
    this.parts.catalog.assertAvailable(id);
    if (this.#subscriptions.size >= MAX_RESOURCE_SUBSCRIPTIONS) {
      throw new CapstanError('LIMIT_REACHED', `the gateway already follows ${MAX_RESOURCE_SUBSCRIPTIONS} resources; stop following one first`, { what: 'resourceSubscriptions', limit: MAX_RESOURCE_SUBSCRIPTIONS });
    }
    const { events } = this.parts;
    const announce = atMostOncePer(UPDATE_EVERY_MS, (uri: string) => events.publish({ type: 'resourceUpdated', id, provider: contract.provider, uri, at: new Date().toISOString() }));
    const stop = await this.#provider(contract).follow(contract.uri, announce.call);
    this.#subscriptions.set(id, {
      stop: async () => {
        announce.cancel();
        await stop();
      },
      holders: 1,
    });
    return this.subscriptions();
  }

  subscriptions(): ResourceSubscriptions {
    return { subscribed: [...this.#subscriptions.keys()] };
  }

  /** Ends every subscription (the gateway is closing). */
  async close(): Promise<void> {
    const held = [...this.#subscriptions.values()];
    this.#subscriptions.clear();
    await Promise.all(held.map(({ stop }) => stop().catch(() => undefined)));
  }

  /**
   * The runtime's one call path for a read or get: the grant (`read`, `get`) checked there, the
   * start and end recorded with digests only (the answer's digest is the runtime's, over its
   * canonical JSON), the work abortable by the task and by the caller going away.
   */
  async #run<T>(
    task: RunningTask,
    context: CallContext,
    contract: Readable | PromptContract,
    authority: 'read' | 'get',
    details: Record<string, unknown>,
    work: (signal: AbortSignal) => Promise<{ value: T; bytes: number }>,
  ): Promise<{ value: T; bytes: number; taskId: string; durationMs: number }> {
    const { catalog, tasks } = this.parts;
    const live = catalog.live(contract.id)!;
    const reference = { id: contract.id, catalogGeneration: catalog.generation, contractHash: live.contractHash, bindingGeneration: live.bindingGeneration };
    let bytes = 0;
    const outcome = await tasks.runCall(
      task,
      {
        requestId: context.requestId,
        capability: contract.id,
        kind: contract.kind,
        authority,
        mutating: false,
        timeoutMs: this.#provider(contract).settings.toolTimeoutMs + BACKSTOP_MS,
        details: { ...details, reference },
        callerGone: context.signal,
      },
      async (signal) => {
        const answer = await work(signal);
        bytes = answer.bytes;
        return answer.value;
      },
    );
    if (outcome.status !== 'ok') throw outcome.error.inTask(task.id).ranFor(outcome.durationMs);
    context.log.info({ capability: contract.id, taskId: task.id, durationMs: outcome.durationMs }, `${authority === 'read' ? 'resource read' : 'prompt got'}`);
    return { value: outcome.result as T, bytes, taskId: task.id, durationMs: outcome.durationMs };
  }

  /** The catalog's entries of the kinds asked, usable now and granted at least `discover` in the task. */
  #visible(task: RunningTask, server: string | undefined): SnapshotEntry[] {
    const { catalog } = this.parts;
    return task.snapshot.entries.filter(
      ({ contract }) =>
        (contract.kind === 'resource' || contract.kind === 'resourceTemplate' || contract.kind === 'prompt') &&
        (server === undefined || contract.provider === server) &&
        catalog.isEnabled(contract.provider) &&
        !catalog.isRevoked(contract.id) &&
        task.grants.held(contract.id, contract.kind) !== 'none',
    );
  }

  /**
   * The resource (or template) a read names, and the URI to read. By id; or by URI among every
   * server's listed resources, then their templates; a URI several of them could mean is refused
   * rather than guessed (declared.ts: URIs are not unique across servers).
   */
  #resolveReadable(
    input: { uri?: string | undefined; id?: string | undefined; server?: string | undefined; variables?: Record<string, string> | undefined },
    task: RunningTask,
  ): { contract: Readable; uri: string } {
    const { catalog } = this.parts;
    if (input.id !== undefined) {
      const contract = catalog.live(input.id)?.contract;
      if (!contract || (contract.kind !== 'resource' && contract.kind !== 'resourceTemplate')) throw new CapstanError('RESOURCE_NOT_FOUND', `no resource or resource template "${input.id}"`);
      if (contract.kind === 'resource') {
        if (input.uri !== undefined && input.uri !== contract.uri) throw new CapstanError('ARGUMENT_INVALID', `${contract.id} is ${contract.uri}, not the uri given`, { field: 'uri' });
        return { contract, uri: contract.uri };
      }
      const uri = input.uri ?? (input.variables ? expand(contract, input.variables) : undefined);
      if (uri === undefined) throw new CapstanError('ARGUMENT_MISSING', 'variables', { field: 'variables' });
      if (!templateMatcher(contract.uriTemplate)(uri)) throw new CapstanError('ARGUMENT_INVALID', `${uri.slice(0, 300)} is not a URI ${contract.uriTemplate} describes`, { field: 'uri' });
      return { contract, uri };
    }
    // By URI, only among what the caller may discover: a resource it cannot see neither answers
    // nor makes another server's copy of the URI ambiguous.
    const uri = input.uri!;
    const all = this.#visible(task, input.server).map(({ contract }) => contract);
    const listed = all.filter((contract): contract is ResourceContract => contract.kind === 'resource' && contract.uri === uri);
    const candidates: Readable[] = listed.length > 0 ? listed : all.filter((contract): contract is ResourceTemplateContract => contract.kind === 'resourceTemplate' && templateMatcher(contract.uriTemplate)(uri));
    if (candidates.length === 0) throw new CapstanError('RESOURCE_NOT_FOUND', `no MCP server${input.server ? ` named "${input.server}"` : ''} lists ${uri.slice(0, 300)} or a template describing it`);
    if (candidates.length > 1) {
      const ids = candidates.map((contract) => contract.id);
      throw new CapstanError('RESOURCE_AMBIGUOUS', `${uri.slice(0, 300)} could be read from ${ids.join(', ')}; name the server or the id`, { ids });
    }
    return { contract: candidates[0]!, uri };
  }

  #resolvePrompt(input: { name?: string | undefined; id?: string | undefined; server?: string | undefined }, task: RunningTask): PromptContract {
    const { catalog } = this.parts;
    if (input.id !== undefined) {
      const contract = catalog.live(input.id)?.contract;
      if (contract?.kind !== 'prompt') throw new CapstanError('PROMPT_NOT_FOUND', `no prompt "${input.id}"`);
      return contract;
    }
    const candidates = this.#visible(task, input.server)
      .map(({ contract }) => contract)
      .filter((contract): contract is PromptContract => contract.kind === 'prompt' && contract.declaredName === input.name);
    if (candidates.length === 0) throw new CapstanError('PROMPT_NOT_FOUND', `no MCP server${input.server ? ` named "${input.server}"` : ''} offers a prompt "${input.name!.slice(0, 300)}"`);
    if (candidates.length > 1) {
      const ids = candidates.map((contract) => contract.id);
      throw new CapstanError('RESOURCE_AMBIGUOUS', `several servers offer a prompt "${input.name!.slice(0, 300)}" (${ids.join(', ')}); name the server or the id`, { ids });
    }
    return candidates[0]!;
  }

  #provider(contract: CapabilityContract): McpServerProvider {
    const provider = this.parts.catalog.provider(contract.provider);
    if (!(provider instanceof McpServerProvider)) throw new CapstanError('PROVIDER_UNAVAILABLE', `provider "${contract.provider}" is not an MCP server`, { provider: contract.provider });
    this.parts.catalog.assertAvailable(contract.id);
    return provider;
  }
}

/** Runs a step of an operation that joined a task: a refusal names the task, as the call path's do. */
function inTask<T>(task: RunningTask, step: () => T): T {
  try {
    return step();
  } catch (error) {
    throw error instanceof CapstanError ? error.inTask(task.id) : error;
  }
}

/** A prompt's arguments as its server declared them: each required one given, none it does not take. */
function assertPromptArguments(contract: PromptContract, args: Record<string, string>): void {
  const missing = contract.arguments.find((argument) => argument.required && !(argument.name in args));
  if (missing) throw new CapstanError('ARGUMENT_MISSING', missing.name, { field: missing.name });
  const unknown = Object.keys(args).find((name) => !contract.arguments.some((argument) => argument.name === name));
  if (unknown !== undefined) throw new CapstanError('ARGUMENT_INVALID', `${unknown} is not an argument of ${contract.id}`, { field: unknown });
}

/** A template's URI for these variables (RFC 6570, the SDK's expansion), every variable required. */
function expand(contract: ResourceTemplateContract, variables: Record<string, string>): string {
  const missing = contract.variables.find((name) => !(name in variables) || variables[name] === '');
  if (missing) throw new CapstanError('ARGUMENT_MISSING', missing, { field: missing });
  try {
    return new UriTemplate(contract.uriTemplate).expand(variables);
  } catch (error) {
    throw new CapstanError('ARGUMENT_INVALID', `the template ${contract.uriTemplate} cannot be filled in: ${(error as Error).message}`, { field: 'variables' });
  }
}

/** The answer, refused as RESULT_TOO_LARGE above the server's `maxResultBytes`, with its size. */
function bounded<T>(value: T, capability: string, limit: number): { value: T; bytes: number } {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > limit) throw new CapstanError('RESULT_TOO_LARGE', `${capability} answered ${bytes} bytes of JSON, over its server's limit of ${limit} (maxResultBytes)`, { size: bytes, limit });
  return { value, bytes };
}

/**
 * How often a followed resource's change is announced at most. A server may send
 * resources/updated without pause; each would be an event to every console and client, and a
 * client that cannot keep up is dropped from the stream, missing every other event too.
 */
const UPDATE_EVERY_MS = 1_000;

/**
 * Calls `announce` at once, then at most once per `everyMs` for as long as calls keep coming:
 * the last of each window, at its end, so the latest change is never left unannounced.
 */
function atMostOncePer<T>(everyMs: number, announce: (value: T) => void): { call(value: T): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let waiting: { value: T } | undefined;
  const close = () => {
    timer = undefined;
    if (!waiting) return;
    const { value } = waiting;
    waiting = undefined;
    announce(value);
    timer = setTimeout(close, everyMs);
  };
  return {
    call(value) {
      if (timer) return void (waiting = { value });
      announce(value);
      timer = setTimeout(close, everyMs);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      waiting = undefined;
    },
  };
}
