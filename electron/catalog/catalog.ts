/**
 * The catalog: every capability of every enabled provider, through one binding per provider.
 * Its generation grows on every change; snapshots freeze it for tasks; references taken from a
 * snapshot are verified against the live bindings before anything runs.
 *
 * Kept whole at about 490 lines: bindings, snapshots, holds and verification share the generation
 * counters, and a reference's check reads best beside the code that bumps them; what could stand
 * apart already does (contracts, snapshots, tool policy).
 */
import { BUILTIN_PROVIDER, type CapabilityReference, type CatalogEntry, type Diagnostic, type ProviderInfo } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import type { CatalogChanged } from '../../shared/events';
import type { z } from 'zod';
import { ContractError, contractHash, createSchemaCompiler, ExternalSchemaCompilers, skillContract, toolContract, type CompiledTool } from './contract';
import type { PinHold } from '../../shared/pins';
import { declaredContracts } from './declared';
import type { Provider, SkillSource } from './provider';
import { Snapshot, type SnapshotEntry } from './snapshot';
import type { ToolPolicy } from './toolPolicy';

/** How long a load compiles tools before it lets the event loop run. */
const YIELD_EVERY_MS = 10;

/** The provider name the gateway's own diagnostics are filed under. */
export const GATEWAY_DIAGNOSTICS = 'gateway';

/**
 * Which of a provider's pinnable tools are held (services/pins.ts), asked at each load with their
 * descriptors as the provider sent them.
 */
export type HoldCheck = (
  provider: string,
  tools: readonly { id: string; name: string; descriptor: Record<string, unknown> }[],
  identity?: Record<string, unknown>,
) => Map<string, PinHold>;

export interface LiveEntry extends SnapshotEntry {
  /** Set while the operator has not accepted what the provider now says: no task sees it, nobody runs it. */
  held?: PinHold;
  tool?: CompiledTool;
  /** Only how to read the body: the contract is the entry's own, not kept twice. */
  skill?: Pick<SkillSource, 'readBody'>;
  /** An MCP template's or prompt's descriptor as its server sent it: what its pin is taken over (a tool's is its definition's). */
  descriptor?: Record<string, unknown>;
}

interface Binding {
  provider: Provider;
  enabled: boolean;
  generation: number;
  /** The provider's connection number at the last load (providers that connect to something). */
  connection: number | undefined;
  entries: Map<string, LiveEntry>;
  diagnostics: Diagnostic[];
  stopWatching?: () => void;
  /** Reloads of one binding run one after another. */
  reloading: Promise<unknown>;
  /**
   * Each tool compiled at the last load, by its definition's JSON: a reload compiles only what
   * changed (compiling 10,000 schemas took seconds on every list_changed). Kept for one connection.
   */
  compiled: Map<string, CompiledTool>;
}

/** What the catalog says of a change; catalogView.ts adds what changed in the operator's view. */
export type CatalogChange = Pick<z.infer<typeof CatalogChanged>, 'catalogGeneration' | 'provider' | 'reason'>;

export interface CatalogOptions {
  /** config.json's toolPolicy: applied to every tool contract, it only ever tightens. */
  toolPolicy?: ToolPolicy;
}

export class Catalog {
  readonly #ajv = createSchemaCompiler();
  readonly #toolPolicy: ToolPolicy;
  readonly #bindings = new Map<string, Binding>();
  readonly #revoked = new Set<string>();
  #holdCheck: HoldCheck | undefined;
  #viewSnapshot: Snapshot | undefined;
  /** The gateway's own findings about how it runs (a wide-open setting), shown with the providers'. */
  #gatewayDiagnostics: Diagnostic[] = [];
  /** The gateway's findings that a source replaces as a whole (config.json's watcher), by source. */
  readonly #gatewaySources = new Map<string, Diagnostic[]>();
  readonly #listeners = new Set<(change: CatalogChange) => void>();
  /** Providers bound in the background whose first load has not finished (addProvider's `background`). */
  readonly #loading = new Map<string, Promise<void>>();
  #generation = 0;
  #snapshot: Snapshot | undefined;

  constructor({ toolPolicy = (contract) => contract }: CatalogOptions = {}) {
    this.#toolPolicy = toolPolicy;
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * Binds a provider, loads it, and follows its changes when it can be watched. With
   * `background`, it returns once the provider is bound: the catalog answers meanwhile without its
   * capabilities, `loading()` names it, and its `loaded` change follows (10,000 skills need not
   * hold up the builtins). A background load that fails is a diagnostic of the provider.
   */
  async addProvider(provider: Provider, { enabled = true, background = false }: { enabled?: boolean; background?: boolean } = {}): Promise<void> {
    if (this.#bindings.has(provider.name)) throw new Error(`provider "${provider.name}" is already bound`);
    const binding: Binding = { provider, enabled, generation: 0, connection: undefined, entries: new Map(), diagnostics: [], reloading: Promise.resolve(), compiled: new Map() };
    this.#bindings.set(provider.name, binding);
    provider.setActive?.(enabled);
    const watch = () => {
      // Unbound while it loaded: nothing to watch.
      if (this.#bindings.get(provider.name) !== binding) return;
      binding.stopWatching = provider.watch?.((change = 'contents') => {
        if (change === 'status') this.#emit({ catalogGeneration: this.#generation, provider: provider.name, reason: 'status' });
        else void this.reload(provider.name).catch(() => {});
      });
    };
    if (!background) {
      await this.reload(provider.name);
      watch();
      return;
    }
    const loading = this.reload(provider.name)
      .catch((error: unknown) => {
        this.#loading.delete(provider.name);
        binding.diagnostics = [{ provider: provider.name, path: null, line: null, capability: null, reason: `could not be loaded: ${(error as Error).message}` }];
        this.#emit({ catalogGeneration: this.#generation, provider: provider.name, reason: 'diagnostics' });
      })
      .finally(() => this.#loading.delete(provider.name))
      .then(watch);
    this.#loading.set(provider.name, loading);
  }

  /** The providers whose first load is still running, by name; empty once the catalog is complete. */
  loading(): string[] {
    return [...this.#loading.keys()];
  }

  /** Resolves when every provider bound so far has finished its first load. */
  async whenLoaded(): Promise<void> {
    await Promise.all(this.#loading.values());
  }

  /**
   * Unbinds a provider and ends what it started. Its capabilities leave the catalog; references
   * to them fail with STALE_CAPABILITY (binding).
   */
  async removeProvider(name: string): Promise<void> {
    const binding = this.#binding(name);
    this.#bindings.delete(name);
    binding.stopWatching?.();
    await binding.reloading;
    this.#changed(name, 'changed');
    await binding.provider.close?.();
  }

  /** Reads a provider again; the binding and catalog generations grow only if something changed. */
  reload(name: string): Promise<void> {
    const binding = this.#binding(name);
    const next = binding.reloading.then(() => this.#load(binding));
    binding.reloading = next.catch(() => {});
    return next;
  }

  async #load(binding: Binding): Promise<void> {
    const { provider } = binding;
    const contents = await provider.load();
    const entries = new Map<string, LiveEntry>();
    const diagnostics: Diagnostic[] = contents.diagnostics.map((d) => ({ ...d, provider: provider.name }));
    const generation = binding.generation + 1;
    const external = new ExternalSchemaCompilers();
    const add = (entry: LiveEntry, path: string | null) => {
      if (entries.has(entry.contract.name)) {
        diagnostics.push({ provider: provider.name, path, line: null, capability: entry.contract.id, reason: `duplicate name "${entry.contract.name}"` });
        return;
      }
      entries.set(entry.contract.name, entry);
    };
    const before = contents.connection === binding.connection ? binding.compiled : new Map<string, CompiledTool>();
    const compiledNow = new Map<string, CompiledTool>();
    let yielded = performance.now();
    for (const definition of contents.tools) {
      // A long list is compiled in slices, so the gateway answers meanwhile.
      if (performance.now() - yielded > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        yielded = performance.now();
      }
      try {
        const key = JSON.stringify(definition);
        const compiled = before.get(key) ?? toolContract(this.#ajv, provider.name, definition, external);
        compiledNow.set(key, compiled);
        const tool = { ...compiled, contract: this.#toolPolicy(compiled.contract) };
        add({ contract: tool.contract, contractHash: contractHash(tool.contract), bindingGeneration: generation, tool }, null);
      } catch (error) {
        if (!(error instanceof ContractError)) throw error;
        diagnostics.push({ provider: provider.name, path: null, line: null, capability: null, reason: error.message });
      }
    }
    // An MCP server's resources, templates and prompts (declared.ts); templates and prompts are pinned like tools.
    const declared = declaredContracts(provider.name, contents);
    diagnostics.push(...declared.problems.map((reason) => ({ provider: provider.name, path: null, line: null, capability: null, reason })));
    const declaredPinnable: { id: string; name: string; descriptor: Record<string, unknown> }[] = [];
    for (const { contract, descriptor } of declared.contracts) {
      const duplicate = entries.has(contract.name);
      add({ contract, contractHash: contractHash(contract), bindingGeneration: generation, ...(descriptor ? { descriptor } : {}) }, null);
      if (descriptor && !duplicate) declaredPinnable.push({ id: contract.id, name: contract.name, descriptor });
    }
    const pinnable = contents.tools.flatMap((definition) => {
      const entry = entries.get(definition.name);
      return definition.descriptor && entry?.tool ? [{ id: entry.contract.id, name: definition.name, descriptor: definition.descriptor }] : [];
    });
    pinnable.push(...declaredPinnable);
    if (this.#holdCheck && (pinnable.length > 0 || contents.identity)) {
      for (const [name, hold] of this.#holdCheck(provider.name, pinnable, contents.identity)) {
        const entry = entries.get(name);
        if (entry) entries.set(name, { ...entry, held: hold });
      }
    }
    for (const skill of contents.skills) {
      const contract = skillContract(provider.name, skill);
      try {
        add({ contract, contractHash: contractHash(contract), bindingGeneration: generation, skill: { readBody: skill.readBody } }, contract.path);
      } catch (error) {
        // A value canonical JSON cannot hold: one skill's problem, never the whole catalog's.
        diagnostics.push({ provider: provider.name, path: contract.path, line: null, capability: contract.id, reason: (error as Error).message });
      }
    }

    binding.compiled = compiledNow;
    const first = binding.generation === 0;
    const reconnected = contents.connection !== binding.connection;
    binding.connection = contents.connection;
    const changed = first || reconnected || !sameContracts(binding.entries, entries);
    const diagnosticsChanged = JSON.stringify(diagnostics) !== JSON.stringify(binding.diagnostics);
    binding.diagnostics = diagnostics;
    if (changed) {
      binding.generation = generation;
      binding.entries = entries;
      // Done before the change is told, so whoever reads the catalog on it finds nothing loading.
      this.#loading.delete(provider.name);
      this.#changed(provider.name, first ? 'loaded' : 'changed');
    } else if (diagnosticsChanged) {
      this.#emit({ catalogGeneration: this.#generation, provider: provider.name, reason: 'diagnostics' });
    }
  }

  setEnabled(name: string, enabled: boolean): void {
    const binding = this.#binding(name);
    if (binding.enabled === enabled) return;
    binding.enabled = enabled;
    binding.provider.setActive?.(enabled);
    this.#changed(name, enabled ? 'enabled' : 'disabled');
  }

  /** A revoked capability is refused everywhere, whatever snapshot a task holds. */
  setRevoked(id: string, revoked: boolean): void {
    if (this.#revoked.has(id) === revoked) return;
    if (revoked) this.#revoked.add(id);
    else this.#revoked.delete(id);
    this.#changed(id.split(':')[0] ?? id, revoked ? 'revoked' : 'restored');
  }

  isRevoked(id: string): boolean {
    return this.#revoked.has(id);
  }

  isEnabled(provider: string): boolean {
    return this.#bindings.get(provider)?.enabled ?? false;
  }

  providers(): ProviderInfo[] {
    return [...this.#bindings.values()].map(({ provider, enabled, generation, entries, diagnostics }) => {
      const all = [...entries.values()];
      const status = provider.status?.();
      return {
        name: provider.name,
        kind: provider.kind,
        enabled,
        ...(status ? { status } : {}),
        bindingGeneration: generation,
        tools: all.filter((e) => e.contract.kind === 'tool').length,
        skills: all.filter((e) => e.contract.kind === 'skill').length,
        // Only for a provider that has some (an MCP server declaring them), so other providers' infos stay as they were.
        ...countIf('resources', all.filter((e) => e.contract.kind === 'resource' || e.contract.kind === 'resourceTemplate').length),
        ...countIf('prompts', all.filter((e) => e.contract.kind === 'prompt').length),
        diagnostics: diagnostics.length,
      };
    });
  }

  diagnostics(): Diagnostic[] {
    return [...this.#gatewayDiagnostics, ...[...this.#gatewaySources.values()].flat(), ...[...this.#bindings.values()].flatMap((binding) => binding.diagnostics)];
  }

  /** Adds the gateway's own finding (provider `gateway`), for the operator's Diagnostics view. */
  addGatewayDiagnostic(reason: string): void {
    this.#gatewayDiagnostics = [...this.#gatewayDiagnostics, { provider: GATEWAY_DIAGNOSTICS, path: null, line: null, capability: null, reason }];
    this.#emit({ catalogGeneration: this.#generation, provider: GATEWAY_DIAGNOSTICS, reason: 'diagnostics' });
  }

  /** Replaces the gateway's findings from one source (such as config.json's watcher); none clears them. */
  setGatewayDiagnostics(source: string, reasons: readonly string[]): void {
    const before = this.#gatewaySources.get(source) ?? [];
    if (before.length === reasons.length && before.every((diagnostic, index) => diagnostic.reason === reasons[index])) return;
    if (reasons.length === 0) this.#gatewaySources.delete(source);
    else this.#gatewaySources.set(source, reasons.map((reason) => ({ provider: GATEWAY_DIAGNOSTICS, path: null, line: null, capability: null, reason })));
    this.#emit({ catalogGeneration: this.#generation, provider: GATEWAY_DIAGNOSTICS, reason: 'diagnostics' });
  }

  /** The operator's view: every capability of the enabled providers, revoked ones flagged. */
  entries(): CatalogEntry[] {
    const listed = this.snapshot().entries.map(({ contract, contractHash, bindingGeneration }) => ({
      contract,
      contractHash,
      bindingGeneration,
      revoked: this.#revoked.has(contract.id),
    }));
    return [...listed, ...this.held().map(({ contract, contractHash, bindingGeneration, held }) => ({ contract, contractHash, bindingGeneration, revoked: this.#revoked.has(contract.id), held }))];
  }

  /**
   * The operator's snapshot: the tasks' one and the held capabilities besides (so the operator
   * lists, searches and reviews them), the same object while nothing is held.
   */
  viewSnapshot(): Snapshot {
    const snapshot = this.snapshot();
    const held = this.held();
    if (held.length === 0) return snapshot;
    if (this.#viewSnapshot?.catalogGeneration !== this.#generation || this.#viewSnapshot.entries.length !== snapshot.entries.length + held.length) {
      const entries = [...snapshot.entries, ...held.map(({ contract, contractHash, bindingGeneration }) => ({ contract, contractHash, bindingGeneration }))];
      entries.sort((a, b) => (a.contract.id < b.contract.id ? -1 : a.contract.id > b.contract.id ? 1 : 0));
      this.#viewSnapshot = new Snapshot(this.#generation, entries);
    }
    return this.#viewSnapshot;
  }

  /** The held capabilities of the enabled providers, for the operator's review. */
  held(): (LiveEntry & { held: PinHold })[] {
    return [...this.#bindings.values()].filter((b) => b.enabled).flatMap((b) => [...b.entries.values()].filter((entry): entry is LiveEntry & { held: PinHold } => entry.held !== undefined));
  }

  /** How holds are decided (services/pins.ts); set before the providers that pin load. */
  holdWith(check: HoldCheck): void {
    this.#holdCheck = check;
  }

  /**
   * The seed's tool lookup for `/tools/call`: an exact name or canonical id, never a near match.
   * A tool of a disabled provider or a revoked tool is refused with its own code.
   */
  resolveTool(nameOrId: string): LiveEntry & { tool: CompiledTool } {
    const candidates = nameOrId.includes(':')
      ? [this.live(nameOrId)]
      : [...this.#bindings.values()].map((binding) => binding.entries.get(nameOrId));
    let tools = candidates.filter((entry): entry is LiveEntry & { tool: CompiledTool } => entry?.tool !== undefined);
    if (tools.length === 0) throw new CapstanError('TOOL_NOT_FOUND', `no tool is registered as "${nameOrId}"`);
    // A builtin keeps its bare name: a provider naming a tool `time_now` cannot take the seed's
    // `{"tool": "time_now"}` away from every caller; its own tool is called by id.
    if (tools.length > 1 && tools.some((entry) => entry.contract.provider === BUILTIN_PROVIDER)) {
      tools = tools.filter((entry) => entry.contract.provider === BUILTIN_PROVIDER);
    }
    if (tools.length > 1) {
      const ids = tools.map((entry) => entry.contract.id).join(', ');
      throw new CapstanError('TOOL_NOT_FOUND', `"${nameOrId}" names several tools (${ids}); call it by id`);
    }
    const [tool] = tools as [LiveEntry & { tool: CompiledTool }];
    this.assertAvailable(tool.contract.id);
    return tool;
  }

  /** The live entry for an id, or undefined when its provider is unbound or it is not provided. */
  live(id: string): LiveEntry | undefined {
    const [provider = '', ...rest] = id.split(':');
    return this.#bindings.get(provider)?.entries.get(rest.join(':'));
  }

  /** The current snapshot; the same object until the catalog changes. */
  snapshot(): Snapshot {
    if (this.#snapshot?.catalogGeneration !== this.#generation) {
      // A held capability is in no task's snapshot: no model reads what its provider now says.
      const entries = [...this.#bindings.values()].filter((b) => b.enabled).flatMap((b) => [...b.entries.values()].filter((entry) => !entry.held));
      this.#snapshot = new Snapshot(
        this.#generation,
        entries.map(({ contract, contractHash, bindingGeneration }) => ({ contract, contractHash, bindingGeneration })),
      );
    }
    return this.#snapshot;
  }

  /** Refuses when the capability cannot be used right now, whatever snapshot names it. */
  assertAvailable(id: string): void {
    const provider = id.split(':')[0] ?? '';
    if (this.#bindings.has(provider) && !this.isEnabled(provider)) {
      throw new CapstanError('PROVIDER_DISABLED', `provider "${provider}" is disabled`);
    }
    if (this.#revoked.has(id)) throw new CapstanError('CAPABILITY_REVOKED', `${id} has been revoked`);
    const held = this.live(id)?.held;
    if (held) {
      const what = held.kind === 'new' ? 'appeared after its server was added' : `changed (${held.changed.join(', ')})`;
      throw new CapstanError('CONTRACT_CHANGED', `${id} ${what} and waits for the operator to review it; it cannot be loaded or called until accepted`, {
        hold: held.kind,
        changed: held.changed,
      });
    }
    const status = this.#bindings.get(provider)?.provider.status?.();
    if (status?.state === 'sign_in_required') {
      throw new CapstanError('MCP_SIGN_IN_REQUIRED', `provider "${provider}" needs an OAuth sign-in${status.reason ? ` (${status.reason})` : ''}; sign in from the console or with \`capstan mcp-servers login ${provider}\``, { provider });
    }
    if (status && status.state !== 'ready') {
      const why = status.state === 'failed' ? `failed${status.reason ? ` (${status.reason})` : ''}${status.retryAt ? `; next attempt at ${status.retryAt}` : ''}` : 'still connecting';
      throw new CapstanError('PROVIDER_UNAVAILABLE', `provider "${provider}" is not connected: ${why}`, { provider, state: status.state });
    }
  }

  /** The provider bound under a name, if any. */
  provider(name: string): Provider | undefined {
    return this.#bindings.get(name)?.provider;
  }

  /**
   * Checks a reference against the task's snapshot and the live binding, and returns the live
   * entry. Any difference fails with STALE_CAPABILITY naming the part that changed: a
   * reference never runs another implementation than the one it was issued for.
   */
  verify(reference: CapabilityReference, snapshot: Snapshot): LiveEntry {
    const held = snapshot.get(reference.id);
    if (!held) throw new CapstanError('CAPABILITY_NOT_FOUND', `${reference.id} is not in this task's snapshot`);
    this.assertAvailable(reference.id);
    const stale = (part: string, message: string) =>
      new CapstanError('STALE_CAPABILITY', `${reference.id}: ${message}`, { part });
    if (reference.catalogGeneration !== snapshot.catalogGeneration) {
      throw stale('catalogGeneration', `the reference is from catalog generation ${reference.catalogGeneration}, the task's snapshot is ${snapshot.catalogGeneration}`);
    }
    if (reference.contractHash !== held.contractHash) throw stale('contractHash', 'the contract hash does not match the snapshot');
    if (reference.bindingGeneration !== held.bindingGeneration) throw stale('bindingGeneration', 'the binding generation does not match the snapshot');
    const binding = this.#bindings.get(held.contract.provider);
    if (!binding) throw stale('binding', `provider "${held.contract.provider}" is no longer bound`);
    if (binding.generation !== reference.bindingGeneration) {
      throw stale('bindingGeneration', `provider "${held.contract.provider}" changed (binding generation ${reference.bindingGeneration} → ${binding.generation})`);
    }
    const live = binding.entries.get(held.contract.name);
    if (!live) throw stale('binding', 'the provider no longer offers it');
    if (live.contractHash !== reference.contractHash) throw stale('contractHash', 'its contract changed');
    return live;
  }

  onChange(listener: (change: CatalogChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Stops watching and ends what providers started. Child processes are signalled at once, so
   * a caller that cannot wait (a process about to exit) still ends them; the promise settles
   * when they are gone.
   */
  close(): Promise<void> {
    const bindings = [...this.#bindings.values()];
    for (const binding of bindings) binding.stopWatching?.();
    this.#listeners.clear();
    return Promise.all(bindings.map((binding) => binding.provider.close?.())).then(() => undefined);
  }

  #binding(name: string): Binding {
    const binding = this.#bindings.get(name);
    if (!binding) throw new CapstanError('NOT_FOUND', `no provider "${name}"`);
    return binding;
  }

  #changed(provider: string, reason: CatalogChange['reason']): void {
    this.#generation += 1;
    this.#emit({ catalogGeneration: this.#generation, provider, reason });
  }

  #emit(change: CatalogChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}

const countIf = (name: 'resources' | 'prompts', count: number) => (count > 0 ? { [name]: count } : {});

function sameContracts(a: Map<string, LiveEntry>, b: Map<string, LiveEntry>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, entry] of a) {
    const other = b.get(name);
    if (other?.contractHash !== entry.contractHash || other.held?.currentHash !== entry.held?.currentHash) return false;
  }
  return true;
}
