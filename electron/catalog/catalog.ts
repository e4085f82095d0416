/**
 * All tools of all providers, by exact name. Its generation grows on every change so clients
 * can tell a fresh registry from a stale one.
 */
import type { ToolDescriptor } from '../../shared/api';
import { createSchemaCompiler, toolContract, type ToolContract } from './contract';
import type { ToolDefinition } from './tool';

export class Catalog {
  readonly #ajv = createSchemaCompiler();
  readonly #tools = new Map<string, ToolContract>();
  #generation = 0;

  get generation(): number {
    return this.#generation;
  }

  /** Adds a provider's tools; a duplicate or invalid definition is refused as a whole. */
  register(provider: string, definitions: readonly ToolDefinition[]): void {
    const contracts = definitions.map((definition) => toolContract(this.#ajv, provider, definition));
    for (const { descriptor } of contracts) {
      if (this.#tools.has(descriptor.name)) throw new Error(`tool "${descriptor.name}" is already registered`);
    }
    for (const contract of contracts) this.#tools.set(contract.descriptor.name, contract);
    this.#generation += 1;
  }

  list(): ToolDescriptor[] {
    return [...this.#tools.values()].map((contract) => contract.descriptor);
  }

  /** Exact lookup only: an unknown name is never matched to a similar one. */
  find(name: string): ToolContract | undefined {
    return this.#tools.get(name);
  }
}
