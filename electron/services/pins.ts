/**
 * Pinned contracts (shared/pins.ts): no MCP server changes what a tool says or does without the
 * operator seeing it. When a server is first added, its tools are pinned as they are (the
 * operator chose it). From then on, at every listing, a tool whose descriptor hashes otherwise
 * than its pin, or that has no pin, is held: the catalog keeps it out of every task and refuses
 * it with CONTRACT_CHANGED, until the operator reviews the change and accepts it here.
 *
 * Each pin, hold and acceptance is a ledger entry: the pins and holds in the gateway's name, an
 * acceptance in the operator's.
 */
import { CapstanError } from '../../shared/errors';
import { changedParts, descriptorFindings, type PinDiff, type PinHold, type PinsView, type ServerFlag } from '../../shared/pins';
import { SYSTEM } from '../../shared/principal';
import type { Catalog, HoldCheck } from '../catalog/catalog';
import { sha256Hex } from '../catalog/digest';
import type { Ledger } from '../runtime/ledger';
import type { PinRow, PinStore } from '../store/pinStore';

/** The row that marks a provider as pinned, even one that listed no tools when it was added. */
const SERVER_ROW = '';

export class Pins {
  /** Servers whose identity (serverInfo, instructions) differs from its pin, by provider. */
  readonly #servers = new Map<string, { flag: ServerFlag; identity: Record<string, unknown> }>();

  constructor(
    private readonly parts: {
      store: PinStore;
      ledger: Pick<Ledger, 'append' | 'holdsOf'>;
      catalog: Catalog;
      /** Whether a server's new tools are pinned as they appear (its config entry's `acceptNewTools`). */
      acceptsNewTools?: (provider: string) => boolean;
    },
  ) {}

  /** The catalog's HoldCheck: which of a provider's listed tools are held now. */
  readonly check: HoldCheck = (provider, tools, identity) => {
    const { store, ledger } = this.parts;
    const pins = store.of(provider);
    const now = new Date().toISOString();
    const listed = tools.map((tool) => ({ ...tool, hash: sha256Hex(tool.descriptor) }));
    if (!pins.has(SERVER_ROW)) {
      // The operator added this server: what it offers now is what they chose. On record first:
      // saving the pins commits the ledger's open batch before them, so neither goes without the other.
      ledger.append({ kind: 'pin_set', details: { provider, tools: listed.length }, principal: SYSTEM });
      store.save([
        { provider, name: SERVER_ROW, hash: identity ? sha256Hex(identity) : '', descriptor: identity ?? {}, pinnedAt: now },
        ...listed.map(({ name, hash, descriptor }) => ({ provider, name, hash, descriptor, pinnedAt: now })),
      ]);
      return new Map();
    }
    if (identity) this.#checkIdentity(provider, pins.get(SERVER_ROW)!, identity, now);
    const holds = new Map<string, PinHold>();
    const listedNames = new Set(listed.map(({ name }) => name));
    // Pins whose tool is gone, by their descriptor less the name: a new tool matching one is a rename.
    const gone = new Map([...pins.values()].filter((pin) => pin.name !== SERVER_ROW && !listedNames.has(pin.name)).map((pin) => [sha256Hex(withoutName(pin.descriptor)), pin]));
    const acceptedNew: typeof listed = [];
    for (const { id, name, hash, descriptor } of listed) {
      const pin = pins.get(name);
      if (pin?.hash === hash) continue;
      const renamed = pin ? undefined : gone.get(sha256Hex(withoutName(descriptor)));
      if (!pin && !renamed && this.parts.acceptsNewTools?.(provider)) {
        acceptedNew.push({ id, name, hash, descriptor });
        continue;
      }
      const hold: PinHold = {
        id,
        provider,
        name,
        kind: pin ? 'changed' : renamed ? 'renamed' : 'new',
        pinnedHash: pin?.hash ?? renamed?.hash ?? null,
        ...(renamed ? { renamedFrom: renamed.name } : {}),
        currentHash: hash,
        changed: changedParts(pin?.descriptor ?? renamed?.descriptor ?? null, descriptor),
        findings: descriptorFindings(descriptor),
        since: now,
      };
      // Recorded once per descriptor, across restarts too: the ledger already knows a hold it recorded.
      const recorded = ledger.holdsOf(id).findLast((entry) => entry.details.currentHash === hash);
      if (recorded) hold.since = recorded.at;
      else {
        ledger.append({
          kind: 'contract_held',
          capability: id,
          details: { hold: hold.kind, changed: hold.changed, pinnedHash: hold.pinnedHash, currentHash: hash, findings: hold.findings },
          principal: SYSTEM,
        });
      }
      holds.set(name, hold);
    }
    if (acceptedNew.length > 0) {
      // The operator's setting accepts new tools for them: pinned as they appear, on record (first, as above).
      for (const { id, hash } of acceptedNew) ledger.append({ kind: 'pin_set', capability: id, details: { provider, tools: 1, hash, acceptNewTools: true }, principal: SYSTEM });
      store.save(acceptedNew.map(({ name, hash, descriptor }) => ({ provider, name, hash, descriptor, pinnedAt: now })));
    }
    return holds;
  };

  list(): PinsView {
    return { held: this.parts.catalog.held().map((entry) => entry.held), servers: [...this.#servers.values()].map(({ flag }) => flag) };
  }

  /**
   * A server's identity against its pin: pinned at its first connection (or, for a server pinned
   * before identities were, now); a change is flagged once, on record and in Diagnostics, until
   * the operator accepts it. The server's instructions reach no model through Capstan, so its
   * tools stay usable; each is held for its own changes.
   */
  #checkIdentity(provider: string, pin: PinRow, identity: Record<string, unknown>, now: string): void {
    const hash = sha256Hex(identity);
    if (pin.hash === '') {
      this.parts.store.save([{ ...pin, hash, descriptor: identity, pinnedAt: now }]);
      return;
    }
    if (pin.hash === hash) {
      if (this.#servers.delete(provider)) this.#diagnose(provider, undefined);
      return;
    }
    if (this.#servers.get(provider)?.flag.currentHash === hash) return;
    const flag: ServerFlag = { provider, pinnedHash: pin.hash, currentHash: hash, changed: changedParts(pin.descriptor, identity), findings: descriptorFindings(identity), since: now };
    const recorded = this.parts.ledger.holdsOf(null).findLast((entry) => entry.details.provider === provider && entry.details.currentHash === hash);
    if (recorded) flag.since = recorded.at;
    else {
      this.parts.ledger.append({ kind: 'contract_held', details: { provider, server: true, changed: flag.changed, pinnedHash: pin.hash, currentHash: hash, findings: flag.findings }, principal: SYSTEM });
    }
    this.#servers.set(provider, { flag, identity });
    this.#diagnose(provider, flag);
  }

  #diagnose(provider: string, flag: ServerFlag | undefined): void {
    const reasons = flag ? [`MCP server "${provider}" says something else of itself (${flag.changed.join(', ')}) than when it was pinned: review it (capstan pins diff ${provider}) and accept it`] : [];
    // After the load that found it: a diagnostic announces a catalog change of its own.
    queueMicrotask(() => this.parts.catalog.setGatewayDiagnostics(`pins:${provider}`, reasons));
  }

  /** The held tool's descriptor as pinned and as its server sends it now. */
  diff(id: string): PinDiff {
    const server = this.#servers.get(id);
    if (server) {
      const pinned = this.parts.store.of(id).get(SERVER_ROW)?.descriptor ?? null;
      const { flag } = server;
      const hold: PinHold = { id, provider: id, name: '', kind: 'changed', pinnedHash: flag.pinnedHash, currentHash: flag.currentHash, changed: flag.changed, findings: flag.findings, since: flag.since };
      return { hold, pinned, current: server.identity };
    }
    const { hold, descriptor } = this.#held(id);
    const pinned = this.parts.store.of(hold.provider).get(hold.name)?.descriptor ?? null;
    return { hold, pinned, current: descriptor };
  }

  /**
   * The operator accepts what the server now says: pinned anew, recorded, and the provider
   * reloaded so the tool is available at once. `hash` binds the acceptance to the descriptor the
   * operator reviewed: if the server changed it again meanwhile, nothing is accepted.
   */
  async accept(id: string, hash?: string): Promise<PinsView> {
    const server = this.#servers.get(id);
    if (server) return this.#acceptServer(id, server, hash);
    const { hold, descriptor } = this.#held(id);
    if (hash !== undefined && hash !== hold.currentHash) {
      throw new CapstanError('BAD_REQUEST', `${id} changed again since it was reviewed (its hash is no longer ${hash}); review it again`, { field: 'hash' });
    }
    this.parts.ledger.append({
      kind: 'pin_accepted',
      capability: id,
      details: { hold: hold.kind, hash: hold.currentHash, previousHash: hold.pinnedHash, ...(hold.renamedFrom ? { renamedFrom: hold.renamedFrom } : {}) },
    });
    this.parts.store.save([{ provider: hold.provider, name: hold.name, hash: hold.currentHash, descriptor, pinnedAt: new Date().toISOString() }]);
    // A rename accepted: the old name's pin is the new one's now.
    if (hold.renamedFrom !== undefined) this.parts.store.forgetTool(hold.provider, hold.renamedFrom);
    await this.parts.catalog.reload(hold.provider);
    return this.list();
  }

  #acceptServer(provider: string, { flag, identity }: { flag: ServerFlag; identity: Record<string, unknown> }, hash?: string): PinsView {
    if (hash !== undefined && hash !== flag.currentHash) {
      throw new CapstanError('BAD_REQUEST', `${provider} changed again since it was reviewed (its hash is no longer ${hash}); review it again`, { field: 'hash' });
    }
    this.parts.ledger.append({ kind: 'pin_accepted', details: { provider, server: true, hash: flag.currentHash, previousHash: flag.pinnedHash } });
    this.parts.store.save([{ provider, name: SERVER_ROW, hash: flag.currentHash, descriptor: identity, pinnedAt: new Date().toISOString() }]);
    this.#servers.delete(provider);
    this.#diagnose(provider, undefined);
    return this.list();
  }

  #held(id: string): { hold: PinHold; descriptor: Record<string, unknown> } {
    const live = this.parts.catalog.live(id);
    // A tool's descriptor is its definition's; an MCP template's or prompt's is kept on its entry.
    const descriptor = live?.tool?.definition.descriptor ?? live?.descriptor;
    if (!live?.held || !descriptor) throw new CapstanError('CAPABILITY_NOT_FOUND', `no held capability "${id}"`);
    return { hold: live.held, descriptor };
  }
}

/** A descriptor less its name: what a rename keeps. */
function withoutName(descriptor: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, ...rest } = descriptor;
  return rest;
}
