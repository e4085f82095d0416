/** What a provider hands the catalog: raw definitions, validated there into contracts. */
import type { Diagnostic, ProviderKind, SkillContract } from '../../shared/capability';
import type { ToolDefinition } from './tool';

/** A skill as its provider read it; `readBody` reads the source again for activation. */
export interface SkillSource {
  contract: Omit<SkillContract, 'id' | 'provider' | 'kind'>;
  readBody(): Promise<SkillBody>;
}

export interface SkillBody {
  manifestHash: string;
  bodyHash: string;
  body: string;
}

export interface ProviderContents {
  tools: readonly ToolDefinition[];
  skills: readonly SkillSource[];
  /** Definitions the provider could not read; they stay out of the catalog. */
  diagnostics: readonly Omit<Diagnostic, 'provider'>[];
}

export interface Provider {
  /** Unique among providers; the first half of every capability id it supplies. */
  name: string;
  kind: ProviderKind;
  load(): Promise<ProviderContents> | ProviderContents;
  /** Calls back whenever the provider's source may have changed; returns a stop function. */
  watch?(onChange: () => void): () => void;
}
