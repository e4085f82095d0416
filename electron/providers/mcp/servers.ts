/**
 * The MCP servers of config.json's `mcpServers`, each bound to the catalog as a provider, and
 * the console's edits to them. Every change is written to config.json first (atomically, other
 * keys kept as they were), then applied, so what runs is what the next start will read. Views
 * mask secret-looking values; nothing here logs an entry.
 */
import { CapstanError } from '../../../shared/errors';
import { McpServerEntry, type McpServersView } from '../../../shared/mcp';
import type { Catalog } from '../../catalog/catalog';
import { ConfigError, readRawConfig, writeConfig } from '../../config';
import type { Logger } from '../../logger';
import type { CallParts } from './calls';
import { McpServerProvider } from './provider';
import { maskEntry, unmaskEntry } from './secrets';
import { mcpSettings } from './settings';

export interface McpServersParts {
  dataDir: string;
  catalog: Catalog;
  graceMs: number;
  log: Logger;
  progressFor: CallParts['progressFor'];
}

export class McpServers {
  readonly #providers = new Map<string, McpServerProvider>();
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
        };
      }),
    };
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
      provider.update(mcpSettings(name, entry), { reconnect: false });
    });
  }

  /** Ends every server's process; with `now`, signalled at once (Capstan is quitting). */
  async close({ now = false }: { now?: boolean } = {}): Promise<void> {
    await Promise.all([...this.#providers.values()].map((provider) => provider.close({ now })));
  }

  /** Adds or replaces a running server (config.json already says so). */
  async #apply(name: string, entry: McpServerEntry, enabled: boolean): Promise<void> {
    const settings = mcpSettings(name, entry);
    const provider = this.#providers.get(name);
    // Switched off first, so a server being disabled is not restarted on its way out.
    if (provider && !enabled) this.parts.catalog.setEnabled(name, false);
    if (provider) provider.update(settings);
    else await this.#bind(name, entry, enabled);
    this.parts.catalog.setEnabled(name, enabled);
  }

  async #bind(name: string, entry: McpServerEntry, enabled: boolean): Promise<void> {
    const provider = new McpServerProvider(mcpSettings(name, entry), {
      graceMs: this.parts.graceMs,
      progressFor: this.parts.progressFor,
      log: this.parts.log,
    });
    this.#providers.set(name, provider);
    await this.parts.catalog.addProvider(provider, { enabled });
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
