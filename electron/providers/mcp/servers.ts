/**
 * The MCP servers of config.json's `mcpServers`, each bound to the catalog as a provider, and
 * the console's edits to them. Every change is written to config.json first (atomically, other
 * keys kept as they were), then applied, so what runs is what the next start will read. Views
 * mask secret-looking values; nothing here logs an entry.
 */
import { CapstanError } from '../../../shared/errors';
import type { RiskLevel } from '../../../shared/capability';
import { CAPABILITY_NAME_PATTERN } from '../../../shared/capability';
import { McpServerEntry, type McpServersView, type PolicyTightening, type ServerPolicy, type ToolDecisionView, type ToolPolicyRule } from '../../../shared/mcp';
import type { ProtocolLogQuery, ProtocolLogView } from '../../../shared/protocolLog';
import type { LogLevel, ServerLogAppended, ServerLogQuery, ServerLogView } from '../../../shared/serverLog';
import type { Catalog } from '../../catalog/catalog';
import { ConfigError, readRawConfig, writeConfig } from '../../config';
import type { Logger } from '../../logger';
import type { AskOperator } from './asks';
import type { CallParts } from './calls';
import { McpClientSide } from './clientSide';
import type { OAuthRegistry } from './oauth/registry';
import { McpServerProvider } from './provider';
import { decideFromAnnotations } from './policy';
import { maskEntry, secretValues, unmaskEntry } from './secrets';
import { mcpSettings, type McpSettings } from './settings';

export interface McpServersParts {
  dataDir: string;
  catalog: Catalog;
  graceMs: number;
  log: Logger;
  progressFor: CallParts['progressFor'];
  /**
   * config.json's toolPolicy in effect, and how a new one takes effect at once (host.ts: the same
   * path an edit of the file takes, so the watcher reading the file back finds nothing changed).
   */
  toolPolicy?: { rules(): readonly ToolPolicyRule[]; apply(rules: readonly ToolPolicyRule[]): Promise<void> };
  /** Where each server's log lines go as they arrive (the host's event bus). */
  publish?: (event: ServerLogAppended) => void;
  /** How a server's elicitation and sampling requests reach the operator (services/serverAsks.ts); without it they are not declared. */
  ask?: AskOperator;
  /** URL servers' OAuth (oauth/registry.ts): tokens on their connections, refreshed; none, and a 401 is a plain failure. */
  oauth?: OAuthRegistry | undefined;
}

/** The new policy of one server, as the console sends it. */
export interface ServerPolicyChange {
  defaults: PolicyTightening;
  tools: Record<string, PolicyTightening>;
  acceptNewTools?: boolean | undefined;
}

const RISK_ORDER: readonly RiskLevel[] = ['low', 'medium', 'high'];

/** Whether a toolPolicy pattern is one of a server's own: `<server>:*` (its default) or `<server>:<tool>` (one tool). */
export function serverRuleTool(server: string, pattern: string): string | '*' | undefined {
  if (!pattern.startsWith(`${server}:`)) return undefined;
  const rest = pattern.slice(server.length + 1);
  return rest === '*' || CAPABILITY_NAME_PATTERN.test(rest) ? rest : undefined;
}

/** What a rule sets, only what tightens (a `low` floor raises nothing, so it is left out). */
function tightening({ riskLevel, needConfirm, mutating }: PolicyTightening): PolicyTightening {
  return {
    ...(riskLevel && riskLevel !== 'low' ? { riskLevel } : {}),
    ...(needConfirm ? { needConfirm } : {}),
    ...(mutating ? { mutating } : {}),
  };
}

/** Two rules for the same tools make the stronger one (rules only tighten, so both apply). */
function merged(a: PolicyTightening, b: PolicyTightening): PolicyTightening {
  const risk = [a.riskLevel, b.riskLevel].filter((level): level is RiskLevel => level !== undefined).sort((x, y) => RISK_ORDER.indexOf(y) - RISK_ORDER.indexOf(x))[0];
  return tightening({ riskLevel: risk, needConfirm: a.needConfirm || b.needConfirm || undefined, mutating: a.mutating || b.mutating || undefined });
}

export class McpServers {
  readonly #providers = new Map<string, McpServerProvider>();
  /** Each server's client side (clientSide.ts): its roots, log and protocol view, across its connections and settings. */
  readonly #sides = new Map<string, McpClientSide>();
  /** config.json is read, changed and written by one change at a time. */
  #writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly parts: McpServersParts) {}

  /**
   * Binds every configured server; each connects in the background (its status says how it
   * goes). A server's switch is its entry's `enabled`, which the console's switch writes too.
   */
  async start(entries: Record<string, McpServerEntry>, disabledProviders: readonly string[]): Promise<void> {
    for (const [name, entry] of Object.entries(entries)) await this.#bind(name, entry, (entry.enabled ?? true) && !disabledProviders.includes(name));
  }

  names(): string[] {
    return [...this.#providers.keys()];
  }

  has(name: string): boolean {
    return this.#providers.has(name);
  }

  /** A server's entry as config.json gives it (secrets unmasked: for the gateway's own use). */
  entry(name: string): McpServerEntry | undefined {
    return this.#providers.get(name)?.settings.entry;
  }

  /** A stdio server's process id while it is connected. */
  pid(name: string): number | null {
    return this.#providers.get(name)?.pid ?? null;
  }

  list(): McpServersView {
    const counts = new Map(this.parts.catalog.providers().map((info) => [info.name, info.tools]));
    return {
      servers: [...this.#providers.values()].map((provider) => {
        const { name, entry, transport, timeoutMs, toolTimeoutMs, maxResultBytes } = provider.settings;
        const shown = maskEntry(entry);
        return {
          name,
          transport,
          entry: shown.entry,
          masked: shown.masked,
          enabled: this.parts.catalog.isEnabled(name),
          status: provider.status(),
          tools: counts.get(name) ?? 0,
          timeoutMs,
          toolTimeoutMs,
          maxResultBytes,
          policy: this.#policyOf(name, entry),
          toolDecisions: this.#decisionsOf(name),
        };
      }),
    };
  }

  /**
   * Replaces a server's policy: its own toolPolicy rules (`<server>:*`, `<server>:<tool>`; every
   * other rule stays) and its entry's acceptNewTools, written to config.json, then in effect at
   * once: the catalog's policy replaced and the tools read again, the entry updated without a
   * reconnect. A tool's risk floor below what its annotations decide is refused, not saved.
   */
  setPolicy(name: string, change: ServerPolicyChange): Promise<McpServersView> {
    return this.#serially(async () => {
      const provider = this.#get(name);
      const policy = this.parts.toolPolicy;
      if (!policy) throw new CapstanError('INTERNAL_ERROR', 'this gateway cannot change toolPolicy');
      const decided = new Map(this.#decisionsOf(name).map((tool) => [tool.name, tool.decided]));
      for (const [tool, rule] of Object.entries(change.tools)) {
        const floor = decided.get(tool)?.riskLevel;
        if (rule.riskLevel && floor && RISK_ORDER.indexOf(rule.riskLevel) < RISK_ORDER.indexOf(floor)) {
          throw new CapstanError(
            'BAD_REQUEST',
            `${name}:${tool}: its annotations make it ${floor} risk; a policy can only raise that, not set ${rule.riskLevel}`,
            { field: `tools.${tool}.riskLevel` },
          );
        }
      }
      const own: ToolPolicyRule[] = [];
      const defaults = tightening(change.defaults);
      if (Object.keys(defaults).length > 0) own.push({ pattern: `${name}:*`, ...defaults });
      for (const [tool, rule] of Object.entries(change.tools).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const set = tightening(rule);
        if (Object.keys(set).length > 0) own.push({ pattern: `${name}:${tool}`, ...set });
      }
      const { acceptNewTools: accepting, ...rest } = provider.settings.entry;
      const entry: McpServerEntry = (change.acceptNewTools ?? accepting) ? { ...rest, acceptNewTools: true } : rest;
      let rules: readonly ToolPolicyRule[];
      try {
        const raw = readRawConfig(this.parts.dataDir);
        const servers = typeof raw.mcpServers === 'object' && raw.mcpServers !== null ? (raw.mcpServers as Record<string, unknown>) : {};
        const kept = (Array.isArray(raw.toolPolicy) ? (raw.toolPolicy as unknown[]) : []).filter((rule) => {
          const pattern = (rule as { pattern?: unknown } | null)?.pattern;
          return typeof pattern !== 'string' || serverRuleTool(name, pattern) === undefined;
        });
        rules = writeConfig(this.parts.dataDir, { ...raw, mcpServers: { ...servers, [name]: entry }, toolPolicy: [...kept, ...own] }).toolPolicy;
      } catch (error) {
        if (error instanceof ConfigError) throw new CapstanError('BAD_REQUEST', `config.json was not changed: ${error.message}`);
        throw error;
      }
      // What runs now matches the file, before anything awaits: the watcher reading it back changes nothing.
      provider.update(this.#settings(name, entry), { reconnect: false });
      await policy.apply(rules);
      return this.list();
    });
  }

  /** A server's policy as the toolPolicy in effect says it (several rules for the same tools make the strongest). */
  #policyOf(name: string, entry: McpServerEntry): ServerPolicy {
    let defaults: PolicyTightening = {};
    const tools: Record<string, PolicyTightening> = {};
    for (const { pattern, ...rule } of this.parts.toolPolicy?.rules() ?? []) {
      const tool = serverRuleTool(name, pattern);
      if (tool === '*') defaults = merged(defaults, rule);
      else if (tool !== undefined) tools[tool] = merged(tools[tool] ?? {}, rule);
    }
    return { defaults, tools, acceptNewTools: entry.acceptNewTools === true };
  }

  /** The server's tools in the catalog: what each declared, and what Capstan decides from that alone. */
  #decisionsOf(name: string): ToolDecisionView[] {
    return this.parts.catalog.entries().flatMap(({ contract }) =>
      contract.kind === 'tool' && contract.provider === name
        ? [{ name: contract.name, declared: contract.declared ?? null, decided: decideFromAnnotations(contract.declared ?? null) }]
        : [],
    );
  }

  /** Adds or replaces a server: saved, then (re)connected, or closed if the entry says `enabled: false`. */
  save(name: string, incoming: McpServerEntry): Promise<McpServersView> {
    return this.#serially(async () => {
      const known = this.parts.catalog.provider(name);
      if (known && !this.#providers.has(name)) throw new CapstanError('BAD_REQUEST', `"${name}" is already the name of a ${known.kind} provider`, { field: 'name' });
      const entry = unmaskEntry(incoming, this.#providers.get(name)?.settings.entry);
      this.#writeServers(name, (servers) => ({ ...servers, [name]: entry }));
      await this.#apply(name, entry, mcpSettings(name, entry).enabled);
      return this.list();
    });
  }

  /**
   * config.json edited by hand while the gateway runs: the servers added, changed or removed
   * there are bound, updated or unbound, without writing the file back. A server whose entry is
   * the one running is left alone, so the console's own writes, read back, change nothing.
   * Returns the names of the servers it changed.
   */
  applyConfig(entries: Record<string, McpServerEntry>, disabledProviders: readonly string[]): Promise<string[]> {
    return this.#serially(async () => {
      const taken = Object.keys(entries).filter((name) => !this.#providers.has(name) && this.parts.catalog.provider(name));
      if (taken.length > 0) throw new ConfigError(`mcpServers.${taken[0]}: "${taken[0]}" is already the name of a ${this.parts.catalog.provider(taken[0]!)!.kind} provider`);
      const changed: string[] = [];
      for (const name of [...this.#providers.keys()]) {
        if (Object.hasOwn(entries, name)) continue;
        this.#providers.delete(name);
        this.#sides.delete(name);
        await this.parts.catalog.removeProvider(name);
        changed.push(name);
      }
      for (const [name, entry] of Object.entries(entries)) {
        const running = this.#providers.get(name)?.settings.entry;
        if (running && canonical(running) === canonical(entry)) continue;
        await this.#apply(name, entry, (entry.enabled ?? true) && !disabledProviders.includes(name));
        changed.push(name);
      }
      return changed;
    });
  }

  /** Removes a server from config.json and the catalog, ending its process. */
  remove(name: string): Promise<McpServersView> {
    return this.#serially(async () => {
      this.#get(name);
      this.#writeServers(name, ({ [name]: _removed, ...rest }) => rest);
      this.#providers.delete(name);
      this.#sides.delete(name);
      await this.parts.catalog.removeProvider(name);
      return this.list();
    });
  }

  /** "Retry now". */
  reconnect(name: string): McpServersView {
    const provider = this.#get(name);
    if (!this.parts.catalog.isEnabled(name)) throw new CapstanError('PROVIDER_DISABLED', `provider "${name}" is disabled; enable it to connect`);
    provider.reconnect();
    return this.list();
  }

  /** The console switched a server on or off: config.json's `enabled` follows, so both say the same. */
  recordEnabled(name: string, enabled: boolean): Promise<void> {
    return this.#serially(async () => {
      const provider = this.#get(name);
      const { enabled: _previous, ...rest } = provider.settings.entry;
      const entry: McpServerEntry = enabled ? rest : { ...rest, enabled: false };
      this.#writeServers(name, (servers) => ({ ...servers, [name]: entry }));
      provider.update(this.#settings(name, entry), { reconnect: false });
    });
  }

  /** Ends every server's process; with `now`, signalled at once (Capstan is quitting). */
  async close({ now = false }: { now?: boolean } = {}): Promise<void> {
    await Promise.all([...this.#providers.values()].map((provider) => provider.close({ now })));
  }

  /** Adds or replaces a running server (config.json already says so). */
  async #apply(name: string, entry: McpServerEntry, enabled: boolean): Promise<void> {
    const provider = this.#providers.get(name);
    const running = provider?.settings.entry;
    const settings = this.#settings(name, entry);
    // Switched off first, so a server being disabled is not restarted on its way out.
    if (provider && !enabled) this.parts.catalog.setEnabled(name, false);
    // Only its roots changed: the server is told so (roots/list_changed) rather than restarted.
    if (provider && running && canonical({ ...running, roots: [] }) === canonical({ ...entry, roots: [] })) provider.update(settings, { reconnect: false });
    else if (provider) provider.update(settings);
    else await this.#bind(name, entry, enabled);
    this.parts.catalog.setEnabled(name, enabled);
  }

  async #bind(name: string, entry: McpServerEntry, enabled: boolean): Promise<void> {
    const provider = new McpServerProvider(this.#settings(name, entry), {
      graceMs: this.parts.graceMs,
      progressFor: this.parts.progressFor,
      log: this.parts.log,
      oauth: this.parts.oauth,
    });
    this.#providers.set(name, provider);
    await this.parts.catalog.addProvider(provider, { enabled });
  }

  /**
   * A server's settings with its client side, made the first time and kept after: new roots reach
   * it here (the connected server is told), and its secrets are read from the settings in force.
   */
  #settings(name: string, entry: McpServerEntry): McpSettings {
    let side = this.#sides.get(name);
    if (!side) {
      side = new McpClientSide({
        server: name,
        roots: entry.roots ?? [],
        secrets: () => this.#providers.get(name)?.secrets() ?? secretValues(entry),
        onLogLine: (line) => this.parts.publish?.({ type: 'serverLog', server: name, line }),
        ask: this.parts.ask,
      });
      this.#sides.set(name, side);
    } else side.setRoots(entry.roots ?? []);
    return mcpSettings(name, entry, side);
  }

  #side(name: string): McpClientSide {
    this.#get(name);
    return this.#sides.get(name)!;
  }

  /** A server's log lines (`notifications/message`), filtered as asked. */
  log(name: string, query: Omit<ServerLogQuery, 'name'>): ServerLogView {
    return this.#side(name).log.view({ level: query.level, after: query.after === undefined ? undefined : Number(query.after), limit: query.limit === undefined ? undefined : Number(query.limit) });
  }

  /** The operator's log level for a server: kept, and asked of it now if it is connected (and on every connection after). */
  async setLogLevel(name: string, level: LogLevel): Promise<ServerLogView> {
    const provider = this.#get(name);
    try {
      await this.#side(name).setLogLevel(level, provider.settings.timeoutMs);
    } catch (error) {
      throw new CapstanError('PROVIDER_UNAVAILABLE', `${name} did not take the log level ${level}: ${error instanceof Error ? error.message : String(error)}`, { provider: name });
    }
    return this.#side(name).log.view();
  }

  /** The protocol view: the last JSON-RPC messages with the server, both ways. */
  protocol(name: string, query: Omit<ProtocolLogQuery, 'name'>): ProtocolLogView {
    return this.#side(name).protocol.view({ q: query.q, requestId: query.requestId, limit: query.limit === undefined ? undefined : Number(query.limit) });
  }

  #get(name: string): McpServerProvider {
    const provider = this.#providers.get(name);
    if (!provider) throw new CapstanError('NOT_FOUND', `no MCP server "${name}"`);
    return provider;
  }

  /**
   * Changes config.json's `mcpServers`. The server's name leaves `disabledProviders` too: its
   * entry's `enabled` is its one switch from now on, so the next start cannot disagree with it.
   */
  #writeServers(name: string, change: (servers: Record<string, unknown>) => Record<string, unknown>): void {
    try {
      const raw = readRawConfig(this.parts.dataDir);
      const servers = typeof raw.mcpServers === 'object' && raw.mcpServers !== null ? (raw.mcpServers as Record<string, unknown>) : {};
      const next: Record<string, unknown> = { ...raw, mcpServers: change(servers) };
      if (Array.isArray(raw.disabledProviders) && raw.disabledProviders.includes(name)) {
        next.disabledProviders = raw.disabledProviders.filter((provider) => provider !== name);
      }
      writeConfig(this.parts.dataDir, next);
    } catch (error) {
      if (error instanceof ConfigError) throw new CapstanError('BAD_REQUEST', `config.json was not changed: ${error.message}`);
      throw error;
    }
  }

  #serially<T>(change: () => Promise<T>): Promise<T> {
    const next = this.#writing.then(change);
    this.#writing = next.catch(() => {});
    return next;
  }
}

/** An entry as parsed, keys sorted: equal entries read the same whatever the order or the defaults they spell out. */
function canonical(entry: McpServerEntry): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])]))
        : value;
  return JSON.stringify(sorted(McpServerEntry.parse(entry)));
}
