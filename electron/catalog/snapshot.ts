/**
 * An immutable copy of the catalog at one generation. A task sees only its snapshot; the
 * lexical index over it is built once, on first search, and shared by every task holding it.
 */
import type { CapabilityContract, CapabilityKind, CapabilityReference } from '../../shared/capability';
import { matchesFilter, type ToolFilter } from '../../shared/policy';
import { LexicalIndex } from './lexical';

export interface SnapshotEntry {
  contract: CapabilityContract;
  contractHash: string;
  bindingGeneration: number;
}

/**
 * What the console's search counts for every match, as columns by document: its kind, its
 * provider and the risk filters it passes. Counting thousands of matches from these reads a few
 * bytes each, where reading each contract chased 10,000 objects across the heap (half of a
 * search's time in a profile). Read only, as the snapshot is.
 */
export interface SnapshotFacets {
  kinds: readonly CapabilityKind[];
  /** By document: its kind's position in `kinds`. */
  kind: Uint8Array;
  /** In order of name, as the search lists them. */
  providers: readonly string[];
  /** By document: its provider's position in `providers`. */
  provider: Uint32Array;
  /** By document: the bits (`FILTER_BITS`) of the risk filters it passes. */
  filters: Uint8Array;
}

/** Each risk filter's bit in the columns ('all' passes everything: no bit); every filter must have one. */
export const FILTER_BITS: Readonly<Record<Exclude<ToolFilter, 'all'>, number>> = { 'low-risk': 1, confirm: 2 };

export class Snapshot {
  /** Entries in canonical id order; position i is document i of the lexical index. */
  readonly entries: readonly SnapshotEntry[];
  readonly #byId: ReadonlyMap<string, SnapshotEntry>;
  #index: LexicalIndex | undefined;
  #facets: SnapshotFacets | undefined;

  constructor(
    readonly catalogGeneration: number,
    entries: readonly SnapshotEntry[],
  ) {
    this.entries = Object.freeze([...entries].sort((a, b) => (a.contract.id < b.contract.id ? -1 : a.contract.id > b.contract.id ? 1 : 0)));
    this.#byId = new Map(this.entries.map((entry) => [entry.contract.id, entry]));
  }

  get(id: string): SnapshotEntry | undefined {
    return this.#byId.get(id);
  }

  get index(): LexicalIndex {
    this.#index ??= new LexicalIndex(
      this.entries.map(({ contract }) => ({
        id: contract.id,
        name: contract.name,
        kind: contract.kind,
        provider: contract.provider,
        tags: contract.tags,
        description: contract.description,
      })),
    );
    return this.#index;
  }

  get facets(): SnapshotFacets {
    this.#facets ??= facetsOf(this.entries);
    return this.#facets;
  }

  reference(entry: SnapshotEntry): CapabilityReference {
    return {
      id: entry.contract.id,
      catalogGeneration: this.catalogGeneration,
      contractHash: entry.contractHash,
      bindingGeneration: entry.bindingGeneration,
    };
  }
}

function facetsOf(entries: readonly SnapshotEntry[]): SnapshotFacets {
  const kinds: CapabilityKind[] = [];
  const kindAt = new Map<CapabilityKind, number>();
  const providers = [...new Set(entries.map(({ contract }) => contract.provider))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const providerAt = new Map(providers.map((name, at) => [name, at]));
  const kind = new Uint8Array(entries.length);
  const provider = new Uint32Array(entries.length);
  const filters = new Uint8Array(entries.length);
  const filterBits = Object.entries(FILTER_BITS) as [keyof typeof FILTER_BITS, number][];
  entries.forEach(({ contract }, doc) => {
    if (!kindAt.has(contract.kind)) kindAt.set(contract.kind, kinds.push(contract.kind) - 1);
    kind[doc] = kindAt.get(contract.kind)!;
    provider[doc] = providerAt.get(contract.provider)!;
    for (const [filter, bit] of filterBits) if (matchesFilter(contract, filter)) filters[doc]! |= bit;
  });
  return { kinds, kind, providers, provider, filters };
}
