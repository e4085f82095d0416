/**
 * An immutable copy of the catalog at one generation. A task sees only its snapshot; the
 * lexical index over it is built once, on first search, and shared by every task holding it.
 */
import type { CapabilityContract, CapabilityReference } from '../../shared/capability';
import { LexicalIndex } from './lexical';

export interface SnapshotEntry {
  contract: CapabilityContract;
  contractHash: string;
  bindingGeneration: number;
}

export class Snapshot {
  /** Entries in canonical id order; position i is document i of the lexical index. */
  readonly entries: readonly SnapshotEntry[];
  readonly #byId: ReadonlyMap<string, SnapshotEntry>;
  #index: LexicalIndex | undefined;

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

  reference(entry: SnapshotEntry): CapabilityReference {
    return {
      id: entry.contract.id,
      catalogGeneration: this.catalogGeneration,
      contractHash: entry.contractHash,
      bindingGeneration: entry.bindingGeneration,
    };
  }
}
