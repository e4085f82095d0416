/**
 * One MCP server as a provider: its connection's life and the tools it lists.
 *
 * connecting → ready; a server that fails to start, exits, or stops answering (a probe every
 * HEARTBEAT_MS) becomes `failed` with the reason and the tail of its stderr, and is retried with
 * backoff (1 s, doubling to a minute). Its last-listed tools stay in the catalog meanwhile, and
 * calls to them get PROVIDER_UNAVAILABLE. Each new connection is a new binding (its generation
 * grows), and notifications/tools/list_changed reloads the tools. Switched off, it is closed
 * (`disabled`); closed for good, its process is ended.
 *
 * Besides tools it lists the server's resources, resource templates and prompts (when declared;
 * resources.ts), again on their list_changed, and keeps the resource subscriptions the gateway
 * holds across reconnections (declaredWatch.ts).
 *
 * Kept whole at about 440 lines: connecting, failing, relisting and following all hang on the one
 * connection and its attempt number, which decide whether an outcome still counts; what stands
 * apart already does (connection, calls, policy, resources, declaredWatch, stderr tail).
 */
import type { PriorDiscovery, Tool } from '@modelcontextprotocol/client';
import type { ProviderStatus } from '../../../shared/capability';
import { CapstanError } from '../../../shared/errors';
import type { Provider, ProviderChange, ProviderContents } from '../../catalog/provider';
import type { ToolDefinition } from '../../catalog/tool';
import type { Logger } from '../../logger';
import { callMcpTool, type CallParts } from './calls';
import { McpConnection, probeFailed } from './connection';
import type { HttpAuth } from './oauth/bearer';
import { signInRequired } from './oauth/provider';
import { declaredAnnotations, declaredIcons, decideFromAnnotations, notRunnableReason } from './policy';
import { DeclaredWatch } from './declaredWatch';
import { DeclaredAccess, listDeclared, NO_DECLARED, type DeclaredLists } from './resources';
import { longestFirst, redact, redactJson, secretValues } from './secrets';
import type { McpSettings } from './settings';
import { StderrTail } from './stderrTail';

/** The most tools kept of one server's listing (#listTools). */
export const MAX_TOOLS_PER_SERVER = 10_000;

export const HEARTBEAT_MS = 30_000;
export const RETRY_FIRST_MS = 1_000;
export const RETRY_MAX_MS = 60_000;
/** The shortest time between two listings a server's list_changed makes Capstan do. */
export const RELIST_INTERVAL_MS = 1_000;

export interface McpProviderParts {
  graceMs: number;
  progressFor: CallParts['progressFor'];
  log: Logger;
  /** A URL server's OAuth bearer and refresh (oauth/registry.ts); none for a stdio server or one with its own Authorization header. */
  oauth?: { authFor(settings: McpSettings): HttpAuth | undefined; heldSecrets(server: string): string[] } | undefined;
}

export class McpServerProvider implements Provider {
  readonly kind = 'mcp';
  #settings: McpSettings;
  #active = false;
  #connection: McpConnection | undefined;
  /** Bumped by every connect and disconnect, so a stale attempt's outcome is dropped. */
  #attempt = 0;
  /** Grows with each connection that reached `ready`: the catalog's binding generation follows it. */
  #connections = 0;
  #tools: Tool[] = [];
  /** The listed tools whose outputSchema does not compile (outputSchemas.ts): diagnostics, by name. */
  #outputProblems = new Map<string, string>();
  #status: ProviderStatus;
  #failures = 0;
  /**
   * The protocol verdict of the last connection, reused on reconnects; after a failed attempt
   * that probed, the next one skips the probe (a server may exit on it). Cleared by new settings
   * and by "Retry now".
   */
  #prior: PriorDiscovery | undefined;
  #retry: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #relistPending: NodeJS.Timeout | undefined;
  #lastRelist = 0;
  #onChange: ((change: ProviderChange) => void) | undefined;
  /** The resources, templates and prompts the server listed last, and the lists it failed (diagnostics). */
  #declared: DeclaredLists = NO_DECLARED;
  #declaredProblems: string[] = [];
  /** Who follows which resource URI (services/resources.ts): subscribed on the server while anyone does, again after a reconnection. */
  readonly #followers = new Map<string, Set<(uri: string) => void>>();
  /** The connection's list-change and resource-update notifications (declaredWatch.ts). */
  #watch: DeclaredWatch | undefined;
  readonly #stderr = new StderrTail(() => this.secrets());

  constructor(
    settings: McpSettings,
    private readonly parts: McpProviderParts,
  ) {
    this.#settings = settings;
    this.#status = this.#state('disabled', null);
  }

  get name(): string {
    return this.#settings.name;
  }

  get settings(): McpSettings {
    return this.#settings;
  }

  /** Every value to mask in what the server says or what is said of it: its entry's secrets, and the OAuth tokens held for it. */
  secrets(): readonly string[] {
    const held = this.parts.oauth?.heldSecrets(this.name) ?? [];
    const own = secretValues(this.#settings.entry);
    return held.length === 0 ? own : longestFirst([...own, ...held]);
  }

  /** The server's process id while connected over stdio. */
  get pid(): number | null {
    return this.#connection?.pid ?? null;
  }

  load(): ProviderContents {
    const problems = this.#outputProblems;
    return {
      tools: this.#tools.filter((tool) => !problems.has(tool.name)).map((tool) => this.#definition(tool)),
      skills: [],
      diagnostics: [...problems.values(), ...this.#declaredProblems].map((reason) => ({ path: null, line: null, capability: null, reason })),
      ...this.#declared,
      connection: this.#connections,
      ...(this.#connection ? { identity: { serverInfo: this.#connection.client.getServerVersion() ?? null, instructions: this.#connection.client.getInstructions() ?? null } } : {}),
    };
  }

  watch(onChange: (change: ProviderChange) => void): () => void {
    this.#onChange = onChange;
    return () => (this.#onChange = undefined);
  }

  status(): ProviderStatus {
    return { ...this.#status, stderr: this.#stderr.lines() };
  }

  setActive(active: boolean): void {
    if (active === this.#active) return;
    this.#active = active;
    if (active) void this.#connect();
    else void this.#disconnect();
  }

  /** "Retry now": drop the connection (ending its process) and connect at once, whatever the backoff. */
  reconnect(): void {
    if (!this.#active) return;
    this.#failures = 0;
    this.#prior = undefined;
    void this.#disconnect({ state: null }).then(() => this.#connect());
  }

  /** New settings from the console; an active server reconnects with them unless told not to. */
  update(settings: McpSettings, { reconnect = true }: { reconnect?: boolean } = {}): void {
    this.#settings = settings;
    this.#prior = undefined;
    if (this.#active && reconnect) this.reconnect();
  }

  async close({ now = false }: { now?: boolean } = {}): Promise<void> {
    this.#active = false;
    await this.#disconnect({ now });
  }

  async #connect(): Promise<void> {
    const attempt = ++this.#attempt;
    clearTimeout(this.#retry);
    this.#setStatus(this.#state('connecting', this.#status.state === 'failed' ? this.#status.reason : null));
    this.#stderr.note(this.#settings.transport === 'stdio' ? `starting ${this.#settings.entry.command}` : `connecting to the server`);
    let connection: McpConnection | undefined;
    const prior = this.#prior;
    try {
      connection = await McpConnection.open(
        this.#settings,
        { stderr: this.#stderr, onLost: (reason) => this.#lost(attempt, reason), onToolsChanged: () => this.#relistSoon(attempt) },
        prior,
        this.parts.oauth?.authFor(this.#settings),
      );
      this.#prior = connection.verdict;
      if (attempt !== this.#attempt) return void (await connection.close());
      this.#connection = connection;
      const watch = await DeclaredWatch.open(
        connection.client,
        { onListChanged: () => this.#relistSoon(attempt), onUpdated: (uri) => this.#updated(uri) },
        this.#settings.timeoutMs,
        (reason) => this.parts.log.warn({ provider: this.name, reason: this.#reason(reason) }, 'MCP server: no stream of its resource and prompt list changes'),
      );
      if (attempt !== this.#attempt) return void (await watch.close());
      this.#watch = watch;
      const { tools, cut } = await this.#listTools(connection);
      const problems = await connection.outputSchemas.prepare(tools);
      const declared = await listDeclared(connection.client, this.#settings.timeoutMs);
      if (attempt !== this.#attempt) return;
      this.#tools = tools;
      this.#outputProblems = problems;
      this.#declared = declared.lists;
      this.#declaredProblems = [...cut, ...declared.problems];
      this.#refollow(watch);
      this.#connections += 1;
      this.#failures = 0;
      this.#status = this.#state('ready', null, connection.protocolVersion);
      this.#onChange?.('contents');
      this.#onChange?.('status');
      this.#beat(attempt);
    } catch (error) {
      if (attempt !== this.#attempt) return;
      this.#connection = undefined;
      await connection?.close();
      // A server that closed the connection while being probed may be one that exits on any request
      // before `initialize`: the next attempt uses the plain 2025 handshake, the one after probes again.
      this.#prior = !prior && probeFailed(error) ? { kind: 'legacy' } : undefined;
      // Waiting for a person to sign in is no failure to retry: the sign-in reconnects.
      const signIn = signInRequired(error);
      if (signIn) return this.#setStatus(this.#state('sign_in_required', signIn.reason));
      this.#fail(`could not connect: ${this.#reason(error)}`);
    }
  }

  /** Ends the connection; the status says `disabled` unless a new connection follows at once. */
  async #disconnect({ now = false, state = 'disabled' }: { now?: boolean; state?: 'disabled' | null } = {}): Promise<void> {
    this.#attempt += 1;
    clearTimeout(this.#retry);
    clearTimeout(this.#heartbeat);
    this.#cancelRelist();
    const connection = this.#connection;
    this.#connection = undefined;
    this.#closeWatch();
    if (state) this.#setStatus(this.#state(state, null));
    await connection?.close({ now });
  }

  #lost(attempt: number, reason: string): void {
    if (attempt !== this.#attempt) return;
    this.#attempt += 1;
    clearTimeout(this.#heartbeat);
    this.#cancelRelist();
    this.#connection = undefined;
    this.#closeWatch();
    this.#fail(reason);
  }

  /** A listing asked for on a connection that ended would be for nothing; the next connection lists anew. */
  #cancelRelist(): void {
    clearTimeout(this.#relistPending);
    this.#relistPending = undefined;
  }

  /** Failed: say why, keep the tools (unavailable), and try again after the backoff. */
  #fail(reason: string): void {
    const delay = Math.min(RETRY_FIRST_MS * 2 ** this.#failures, RETRY_MAX_MS);
    this.#failures += 1;
    this.#stderr.note(reason);
    this.#setStatus({ ...this.#state('failed', reason), retryAt: new Date(Date.now() + delay).toISOString() });
    this.parts.log.warn({ provider: this.name, retryInMs: delay }, 'MCP server failed');
    this.#retry = setTimeout(() => void this.#connect(), delay);
    this.#retry.unref();
  }

  /**
   * A server may make Capstan list its tools again at most once per RELIST_INTERVAL_MS: a
   * `list_changed` sooner than that is answered once the interval is over, together with any
   * others that arrive meanwhile, so a server announcing changes without end cannot keep the
   * gateway listing and comparing its tools.
   */
  #relistSoon(attempt: number): void {
    if (this.#relistPending) return;
    const wait = Math.max(0, this.#lastRelist + RELIST_INTERVAL_MS - Date.now());
    this.#relistPending = setTimeout(() => {
      this.#relistPending = undefined;
      this.#lastRelist = Date.now();
      void this.#relist(attempt);
    }, wait);
    this.#relistPending.unref();
  }

  async #relist(attempt: number): Promise<void> {
    const connection = this.#connection;
    if (attempt !== this.#attempt || !connection) return;
    try {
      const { tools, cut } = await this.#listTools(connection);
      const problems = await connection.outputSchemas.prepare(tools);
      const declared = await listDeclared(connection.client, this.#settings.timeoutMs);
      if (attempt !== this.#attempt) return;
      this.#tools = tools;
      this.#outputProblems = problems;
      this.#declared = declared.lists;
      this.#declaredProblems = [...cut, ...declared.problems];
      this.#onChange?.('contents');
    } catch (error) {
      this.parts.log.warn({ provider: this.name, reason: this.#reason(error) }, 'MCP server did not list its tools after list_changed');
    }
  }

  /**
   * Its tools, when it declares any: a server offering only resources or prompts is asked for none
   * (it would answer Method not found). The first MAX_TOOLS_PER_SERVER are kept, with a reason
   * when there were more: each is compiled, pinned, searched and held in memory (20,000 took
   * 850 MB), and no real server lists as many.
   */
  async #listTools(connection: McpConnection): Promise<{ tools: Tool[]; cut: string[] }> {
    if (connection.client.getServerCapabilities()?.tools === undefined) return { tools: [], cut: [] };
    const tools = await connection.listTools(this.#settings.timeoutMs);
    if (tools.length <= MAX_TOOLS_PER_SERVER) return { tools, cut: [] };
    return { tools: tools.slice(0, MAX_TOOLS_PER_SERVER), cut: [`the server lists ${tools.length} tools: the first ${MAX_TOOLS_PER_SERVER} are kept`] };
  }

  /**
   * The connection's resource and prompt operations (resources.ts), for services/resources.ts,
   * which has already resolved and authorized what it asks; PROVIDER_UNAVAILABLE while not connected.
   */
  declaredAccess(): DeclaredAccess {
    const connection = this.#connection;
    if (!connection) throw new CapstanError('PROVIDER_UNAVAILABLE', `provider "${this.name}" is not connected`, { provider: this.name });
    return new DeclaredAccess(connection.client, this.#settings.toolTimeoutMs, () => this.secrets());
  }

  /**
   * Follows a resource's updates: the first follower makes the server send them (resources/subscribe,
   * or a subscriptions/listen stream on 2026-07-28: declaredWatch.ts), the last to stop ends that.
   * Returns the stop function.
   */
  async follow(uri: string, onUpdated: (uri: string) => void): Promise<() => Promise<void>> {
    let followers = this.#followers.get(uri);
    if (!followers) {
      const watch = this.#watch;
      if (!watch) throw new CapstanError('PROVIDER_UNAVAILABLE', `provider "${this.name}" is not connected`, { provider: this.name });
      try {
        await watch.follow([...this.#followers.keys(), uri]);
      } catch (error) {
        if (error instanceof CapstanError) throw new CapstanError(error.code, `provider "${this.name}": ${error.message.replace(/^[A-Z_]+: /, '')}`, { provider: this.name });
        throw new CapstanError('MCP_SERVER_ERROR', `provider "${this.name}" refused to send updates of ${uri.slice(0, 300)}: ${this.#reason(error)}`, { provider: this.name, serverCode: (error as { code?: unknown }).code ?? null });
      }
      followers = this.#followers.get(uri) ?? new Set();
      this.#followers.set(uri, followers);
    }
    followers.add(onUpdated);
    return async () => {
      const current = this.#followers.get(uri);
      if (!current?.delete(onUpdated) || current.size > 0) return;
      this.#followers.delete(uri);
      await this.#watch?.follow([...this.#followers.keys()]).catch(() => undefined);
    };
  }

  #updated(uri: string): void {
    for (const follower of this.#followers.get(uri) ?? []) follower(uri);
  }

  /** A new connection knows nothing of the last one's subscriptions: they are asked for again. */
  #refollow(watch: DeclaredWatch): void {
    if (this.#followers.size === 0) return;
    void watch.follow([...this.#followers.keys()]).catch((error: unknown) => {
      this.parts.log.warn({ provider: this.name, reason: this.#reason(error) }, 'MCP server refused the resource subscriptions after reconnecting');
    });
  }

  #closeWatch(): void {
    void this.#watch?.close();
    this.#watch = undefined;
  }

  /** A server that stops answering is failed and restarted, even while no call is running. */
  #beat(attempt: number): void {
    this.#heartbeat = setTimeout(async () => {
      const connection = this.#connection;
      if (attempt !== this.#attempt || !connection) return;
      try {
        await connection.probe(this.#settings.timeoutMs);
        this.#beat(attempt);
      } catch {
        if (attempt !== this.#attempt) return;
        this.#lost(attempt, `the server stopped answering (no answer to a probe within ${this.#settings.timeoutMs} ms)`);
        void connection.close();
      }
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  #definition(tool: Tool): ToolDefinition {
    const declared = declaredAnnotations(tool.annotations as Record<string, unknown> | undefined);
    const title = tool.title ?? declared?.title ?? tool.name;
    return {
      name: tool.name,
      title,
      description: tool.description?.trim() || `${title} (the server gave no description)`,
      ...decideFromAnnotations(declared),
      tags: ['mcp'],
      inputSchema: tool.inputSchema as Record<string, unknown>,
      returnExample: null,
      externalSchema: true,
      outputSchema: (tool.outputSchema as Record<string, unknown> | undefined) ?? null,
      declared,
      deprecated: tool._meta?.deprecated === true,
      icons: declaredIcons(tool.icons),
      meta: tool._meta as Record<string, unknown> | undefined,
      notRunnable: notRunnableReason(tool.execution),
      // As the server sent it, whole: what its pin is taken over (services/pins.ts).
      descriptor: tool as unknown as Record<string, unknown>,
      // A backstop beyond the call's own deadlines (calls.ts), which come first and say more.
      timeoutMs: this.#settings.toolTimeoutMs + 2 * this.parts.graceMs,
      run: (args, context) => {
        const connection = this.#connection;
        if (!connection) throw new CapstanError('PROVIDER_UNAVAILABLE', `provider "${this.name}" is not connected`, { provider: this.name });
        const attempt = this.#attempt;
        const onUnreachable = (reason: string) => {
          this.#lost(attempt, reason);
          void connection.close();
        };
        const { graceMs, progressFor } = this.parts;
        // What the server answers reaches the caller, an agent as well: the secrets Capstan holds
        // for the server (its entry's, its OAuth tokens) are masked wherever the answer or a
        // failure quotes them (an error echoing the Authorization header or the URL's key), as its
        // status reasons are.
        return callMcpTool({ settings: this.#settings, connection, graceMs, progressFor, onUnreachable, secrets: () => this.secrets() }, tool, args, context).catch((error: unknown) => {
          const secrets = this.secrets();
          if (error instanceof Error) error.message = redact(error.message, secrets);
          if (error instanceof CapstanError) for (const [key, detail] of Object.entries(error.details)) error.details[key] = redactJson(detail, secrets);
          throw error;
        });
      },
    };
  }

  #state(state: ProviderStatus['state'], reason: string | null, protocolVersion: string | null = null): ProviderStatus {
    return { state, reason, since: new Date().toISOString(), retryAt: null, stderr: [], protocolVersion };
  }

  #setStatus(status: ProviderStatus): void {
    if (status.state === this.#status.state && status.reason === this.#status.reason && status.retryAt === this.#status.retryAt) return;
    this.#status = status;
    this.#onChange?.('status');
  }

  /** An error in words, without any secret the entry holds (a URL's query, a header echoed back). */
  #reason(error: unknown): string {
    return redact(error instanceof Error ? error.message : String(error), this.secrets());
  }
}
