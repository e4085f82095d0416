/** What a provider hands the catalog: raw definitions, validated there into contracts. */
import type { Diagnostic, ProviderKind, ProviderStatus, SkillContract } from '../../shared/capability';
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
  /**
   * What an MCP server lists besides tools, as it sent them (`Resource`, `ResourceTemplate`,
   * `Prompt` objects): validated into contracts by declared.ts. Absent: none.
   */
  resources?: readonly unknown[];
  resourceTemplates?: readonly unknown[];
  prompts?: readonly unknown[];
  /** Definitions the provider could not read; they stay out of the catalog. */
  diagnostics: readonly Omit<Diagnostic, 'provider'>[];
  /**
   * For a provider that connects to something: grows with every (re)connection. A new
   * connection is a new binding, so the binding generation grows even if no contract changed.
   */
  connection?: number;
  /**
   * What the provider says of itself (an MCP server's serverInfo and instructions), pinned like
   * its tools (services/pins.ts); absent while it is not connected.
   */
  identity?: Record<string, unknown>;
}

/** What changed: what the provider offers (reload it), or only its status (tell the clients). */
export type ProviderChange = 'contents' | 'status';

export interface Provider {
  /** Unique among providers; the first half of every capability id it supplies. */
  name: string;
  kind: ProviderKind;
  load(): Promise<ProviderContents> | ProviderContents;
  /** Calls back whenever the provider's source (or status) may have changed; returns a stop function. */
  watch?(onChange: (change?: ProviderChange) => void): () => void;
  /**
   * The health of a provider that connects to something (an MCP server); providers that cannot
   * fail have none. While it is not `ready` its tools stay listed and calls get PROVIDER_UNAVAILABLE.
   */
  status?(): ProviderStatus;
  /** Told when its binding is switched on (also at the start) or off: a connected provider connects or disconnects. */
  setActive?(active: boolean): void;
  /** Ends what it started (child processes, connections): on removal and at shutdown. */
  close?(): Promise<void>;
}
