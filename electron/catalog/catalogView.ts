/**
 * The operator's catalog view (`GET /catalog`) as it changes: each catalog change becomes a delta
 * against the view before it, and the view has an entity tag, so a console follows 10,000 skills
 * without reading ~7 MB again on every event, and a reconnecting one asks `If-None-Match`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CatalogEntry, Diagnostic } from '../../shared/capability';
import { catalogTag } from '../../shared/catalogDelta';
import type { CatalogChanged, CatalogDelta } from '../../shared/events';
import type { PinHold } from '../../shared/pins';
import type { Catalog, CatalogChange } from './catalog';
import type { SnapshotEntry } from './snapshot';

/**
 * The most capabilities (and diagnostics) one delta carries, about 200 KB: above it the event
 * says only that the catalog changed, and clients read the view again. Well under an event
 * stream's 1 MiB of unsent bytes (transports/eventStream.ts), so one event never drops a client.
 */
export const MAX_DELTA_ITEMS = 250;

interface Held {
  generation: number;
  /** The snapshot's entries, in canonical id order. */
  entries: readonly SnapshotEntry[];
  revoked: ReadonlySet<string>;
  /** The held capabilities' holds, by id. */
  holds: ReadonlyMap<string, PinHold>;
  /** Each provider's diagnostics, with their JSON to tell which changed. */
  diagnostics: ReadonlyMap<string, { list: Diagnostic[]; json: string }>;
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class CatalogViews {
  readonly #catalog: Catalog;
  /** Tags from another process (a restarted gateway) must never match this one's, whatever the generation. */
  readonly #instance = randomBytes(6).toString('base64url');
  #held: Held;

  /** Takes the catalog as it is now as the view every later delta starts from. */
  constructor(catalog: Catalog) {
    this.#catalog = catalog;
    this.#held = this.#capture();
  }

  /**
   * The entity tag of the view as it is now. Capabilities change only with the generation; providers
   * (status, counts) and diagnostics can change without it, so their digest is part of the tag.
   */
  tag(): string {
    const catalog = this.#catalog;
    return tagOf(this.#instance, catalog.generation, catalog.providers(), catalog.diagnostics());
  }

  /** The catalog change as the event clients hear, with its delta against the previous change's view. */
  event(change: CatalogChange): CatalogChanged {
    const before = this.#held;
    const after = this.#capture();
    this.#held = after;
    return { type: 'catalog', ...change, delta: this.#delta(before, after) };
  }

  #capture(): Held {
    const catalog = this.#catalog;
    const diagnostics = new Map<string, Diagnostic[]>();
    for (const diagnostic of catalog.diagnostics()) {
      const list = diagnostics.get(diagnostic.provider) ?? [];
      list.push(diagnostic);
      diagnostics.set(diagnostic.provider, list);
    }
    // The operator's view: held capabilities too (the tasks' snapshot leaves them out).
    const { entries } = catalog.viewSnapshot();
    return {
      generation: catalog.generation,
      entries,
      holds: new Map(catalog.held().map(({ contract, held }) => [contract.id, held])),
      revoked: new Set(entries.flatMap(({ contract }) => (catalog.isRevoked(contract.id) ? [contract.id] : []))),
      diagnostics: new Map([...diagnostics].map(([provider, list]) => [provider, { list, json: JSON.stringify(list) }])),
    };
  }

  #delta(before: Held, after: Held): CatalogDelta | null {
    const catalog = this.#catalog;
    const providers = catalog.providers();
    const bindingGeneration = new Map(providers.map((provider) => [provider.name, provider.bindingGeneration]));
    const upserted: CatalogEntry[] = [];
    const removed: string[] = [];
    let items = 0;
    const full = () => ++items > MAX_DELTA_ITEMS;
    const entry = (listed: SnapshotEntry, revoked: boolean): CatalogEntry => {
      const hold = after.holds.get(listed.contract.id);
      return { contract: listed.contract, contractHash: listed.contractHash, bindingGeneration: listed.bindingGeneration, revoked, ...(hold ? { held: hold } : {}) };
    };

    // Both lists are in canonical id order: one walk finds what came, went or changed.
    const old = before.entries;
    const now = after.entries;
    let i = 0;
    let j = 0;
    while (i < old.length || j < now.length) {
      const order = i >= old.length ? 1 : j >= now.length ? -1 : byId(old[i]!.contract.id, now[j]!.contract.id);
      if (order < 0) {
        if (full()) return null;
        removed.push(old[i++]!.contract.id);
        continue;
      }
      const next = now[j++]!;
      const id = next.contract.id;
      const revoked = after.revoked.has(id);
      const previous = order === 0 ? old[i++]! : undefined;
      // Unlisted entries take their provider's binding generation (the client's side of this is
      // shared/catalogDelta.ts), so an entry is listed if that would not give its own.
      const same =
        previous !== undefined &&
        previous.contractHash === next.contractHash &&
        before.revoked.has(id) === revoked &&
        before.holds.get(id)?.currentHash === after.holds.get(id)?.currentHash &&
        next.bindingGeneration === bindingGeneration.get(next.contract.provider);
      if (same) continue;
      if (full()) return null;
      upserted.push(entry(next, revoked));
    }

    const diagnostics: CatalogDelta['diagnostics'] = [];
    for (const provider of new Set([...before.diagnostics.keys(), ...after.diagnostics.keys()])) {
      const current = after.diagnostics.get(provider);
      if (current?.json === before.diagnostics.get(provider)?.json) continue;
      const list = current?.list ?? [];
      items += list.length;
      if (items > MAX_DELTA_ITEMS) return null;
      diagnostics.push({ provider, diagnostics: list });
    }

    return {
      from: before.generation,
      upserted,
      removed,
      providers,
      diagnostics,
      // Providers still loading in the background, as GET /catalog names them.
      loading: catalog.loading(),
      tag: tagOf(this.#instance, after.generation, providers, catalog.diagnostics()),
    };
  }
}

function tagOf(instance: string, generation: number, providers: unknown, diagnostics: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify([providers, diagnostics])).digest('base64url').slice(0, 16);
  return catalogTag(instance, generation, digest);
}

/** Whether an `If-None-Match` header names this tag (a list, weak tags compared weakly, or `*`). */
export function matchesIfNoneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value.replace(/^W\//, '') === tag;
  });
}
