/**
 * Capabilities as every client sees them: contracts, references, authority and the shapes of
 * discovery results. The words (capability, provider, binding, reference, authority...) are
 * defined in docs/ARCHITECTURE.md's vocabulary.
 */
import { z } from 'zod';
import { PinHold } from './pins';

export const RiskLevel = z.enum(['low', 'medium', 'high']);
export type RiskLevel = z.infer<typeof RiskLevel>;

/**
 * `resource`, `resourceTemplate` and `prompt` are what an MCP server offers besides tools
 * (shared/resources.ts says how they are named and reached).
 */
export const CapabilityKind = z.enum(['tool', 'skill', 'resource', 'resourceTemplate', 'prompt']);
export type CapabilityKind = z.infer<typeof CapabilityKind>;

export const ProviderKind = z.enum(['builtin', 'skills', 'mcp', 'bridge']);
export type ProviderKind = z.infer<typeof ProviderKind>;

/** The builtin provider's name: its tools keep their bare names whatever other providers call theirs. */
export const BUILTIN_PROVIDER = 'builtin';

/** Capability and provider names: 1-128 of [A-Za-z0-9_.-]. */
export const CAPABILITY_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const CapabilityName = z.string().regex(CAPABILITY_NAME_PATTERN, 'must be 1-128 of [A-Za-z0-9_.-]');

/** `<provider>:<name>`, e.g. `builtin:time_now`, `skills:release-checklist`. */
export const capabilityId = (provider: string, name: string) => `${provider}:${name}`;
export const CapabilityId = z.string().regex(/^[A-Za-z0-9_.-]{1,128}:[A-Za-z0-9_.-]{1,128}$/, 'must be <provider>:<name>');

const contractBase = {
  id: CapabilityId,
  provider: CapabilityName,
  name: CapabilityName,
  title: z.string(),
  description: z.string().min(1),
  tags: z.array(z.string()),
  riskLevel: RiskLevel,
  needConfirm: z.boolean(),
  mutating: z.boolean(),
  /** False keeps a capability out of model-facing discovery (the operator still sees it). */
  modelDiscoverable: z.boolean(),
};

/**
 * What an MCP server declared about a tool. Hints from the server, not facts: Capstan decides
 * `riskLevel`, `needConfirm` and `mutating` from them conservatively, and config.json may only tighten.
 */
export const ToolAnnotations = z.object({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotations>;

/** An icon an MCP server declared for a tool (MCP's Icon: a URL or data: URI, and how to use it). */
export const ToolIcon = z.object({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});
export type ToolIcon = z.infer<typeof ToolIcon>;
/** The same Icon, for resources, templates and prompts. */
export const CapabilityIcon = ToolIcon;

/** An MCP object's `_meta` as its server sent it (kept for the operator; never interpreted). */
export const DeclaredMeta = z.record(z.string(), z.unknown());

export const ToolContract = z.object({
  ...contractBase,
  kind: z.literal('tool'),
  inputSchema: z.record(z.string(), z.unknown()),
  returnExample: z.unknown(),
  // The fields below are absent for builtin tools (so their contract hashes do not change).
  /** The JSON Schema of `structuredContent`, when the server declares one. */
  outputSchema: z.record(z.string(), z.unknown()).nullable().optional(),
  /** The annotations as the server declared them (null: it declared none). */
  declared: ToolAnnotations.nullable().optional(),
  /** The config.json policy patterns that tightened what Capstan decided (empty: none did). */
  tightenedBy: z.array(z.string()).optional(),
  /** Set by a provider's metadata (an MCP tool's `_meta`, a skill); builtins never are. */
  deprecated: z.boolean().optional(),
  /** The icons the server declared, as declared (absent: none). */
  icons: z.array(ToolIcon).optional(),
  /**
   * False for a tool Capstan lists but cannot run (an MCP tool whose server runs it only as an MCP
   * task, `execution.taskSupport: "required"`); `notRunnableReason` says why. Absent: it runs.
   * A call to it is refused with TOOL_NOT_RUNNABLE before anything runs, and tools_load refuses it.
   */
  runnable: z.literal(false).optional(),
  notRunnableReason: z.string().optional(),
  /** The tool's `_meta`, as declared (absent: none). */
  meta: DeclaredMeta.optional(),
});
export type ToolContract = z.infer<typeof ToolContract>;

export const SkillContract = z.object({
  ...contractBase,
  kind: z.literal('skill'),
  argumentHint: z.string().nullable(),
  allowedTools: z.array(z.string()),
  /** The SKILL.md this skill was read from. */
  path: z.string(),
  /** SHA-256 of the exact frontmatter bytes and body bytes that were parsed. */
  manifestHash: z.string(),
  bodyHash: z.string(),
});
export type SkillContract = z.infer<typeof SkillContract>;

/** What every MCP resource, template and prompt contract carries besides the base. */
const declaredBase = {
  ...contractBase,
  /** The icons the server declared, as declared (absent: none). */
  icons: z.array(CapabilityIcon).optional(),
  /** Its `_meta`, as declared (absent: none). */
  meta: DeclaredMeta.optional(),
  /** The MCP name the server gave it (the capability name is derived from it or from the URI: shared/resources.ts). */
  declaredName: z.string(),
};

/** One resource an MCP server lists: read with `resources/read` under the `read` authority. */
export const ResourceContract = z.object({
  ...declaredBase,
  kind: z.literal('resource'),
  uri: z.string(),
  mimeType: z.string().nullable(),
  /** The size in bytes the server declared, when it did. */
  size: z.number().nonnegative().nullable(),
  /** The server's annotations (audience, priority, lastModified), as declared. */
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type ResourceContract = z.infer<typeof ResourceContract>;

/** A resource template (RFC 6570): its variables are filled in, then the URI is read like a resource. */
export const ResourceTemplateContract = z.object({
  ...declaredBase,
  kind: z.literal('resourceTemplate'),
  uriTemplate: z.string(),
  /** The variable names of the template, in order of appearance. */
  variables: z.array(z.string()),
  mimeType: z.string().nullable(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type ResourceTemplateContract = z.infer<typeof ResourceTemplateContract>;

export const PromptArgument = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean(),
});
export type PromptArgument = z.infer<typeof PromptArgument>;

/** A prompt an MCP server offers: got with `prompts/get` (string arguments) under the `get` authority. */
export const PromptContract = z.object({
  ...declaredBase,
  kind: z.literal('prompt'),
  arguments: z.array(PromptArgument),
});
export type PromptContract = z.infer<typeof PromptContract>;

export const CapabilityContract = z.discriminatedUnion('kind', [ToolContract, SkillContract, ResourceContract, ResourceTemplateContract, PromptContract]);
export type CapabilityContract = z.infer<typeof CapabilityContract>;

/** What discovery hands out and what load, activate and execute must present back. */
export const CapabilityReference = z.strictObject({
  id: CapabilityId,
  catalogGeneration: z.number().int().nonnegative(),
  contractHash: z.string().regex(/^[0-9a-f]{64}$/),
  bindingGeneration: z.number().int().nonnegative(),
});
export type CapabilityReference = z.infer<typeof CapabilityReference>;

/** Authority ladders; each operation needs its rung. Skills stop at `activate`, resources (and templates) at `read`, prompts at `get`. */
export const TOOL_AUTHORITY = ['none', 'discover', 'inspect', 'load', 'execute'] as const;
export const SKILL_AUTHORITY = ['none', 'discover', 'inspect', 'activate'] as const;
export const RESOURCE_AUTHORITY = ['none', 'discover', 'inspect', 'read'] as const;
export const PROMPT_AUTHORITY = ['none', 'discover', 'inspect', 'get'] as const;
export const Authority = z.enum(['none', 'discover', 'inspect', 'load', 'activate', 'read', 'get', 'execute']);
export type Authority = z.infer<typeof Authority>;

export const Grant = z.strictObject({
  /**
   * A capability id, or a pattern where `*` matches any run of characters (`builtin:*`, `*`).
   * Bounded because clients send patterns too: ids are at most 257 characters, stars aside.
   */
  pattern: z.string().min(1).max(300),
  authority: Authority,
  /**
   * Only capabilities of this kind (absent: every kind). How a configured MCP server's tools are
   * granted to agents without its resources and prompts (electron/host.ts); config.json may use it too.
   */
  kind: CapabilityKind.optional(),
});
export type Grant = z.infer<typeof Grant>;

export const Diagnostic = z.object({
  provider: z.string(),
  /** The file at fault, when there is one. */
  path: z.string().nullable(),
  /** 1-based line, when known. */
  line: z.number().int().positive().nullable(),
  /** The capability the problem concerns, when it can be named. */
  capability: z.string().nullable(),
  reason: z.string(),
});
export type Diagnostic = z.infer<typeof Diagnostic>;

/** A connected provider's health (MCP servers); providers that cannot fail have none. */
export const ProviderStatus = z.object({
  /** `sign_in_required`: a URL server that needs an OAuth sign-in; it waits for one instead of retrying. */
  state: z.enum(['connecting', 'ready', 'failed', 'disabled', 'sign_in_required']),
  /** Why it failed (or is reconnecting), in words; null when ready. */
  reason: z.string().nullable(),
  since: z.string(),
  /** When the next connection attempt is due, while failed; null otherwise. */
  retryAt: z.string().nullable(),
  /** The last lines the server wrote to stderr (a bounded tail; secrets are the server's to keep out). */
  stderr: z.array(z.string()),
  /** The protocol revision negotiated, once connected. */
  protocolVersion: z.string().nullable(),
});
export type ProviderStatus = z.infer<typeof ProviderStatus>;

export const ProviderInfo = z.object({
  name: z.string(),
  kind: ProviderKind,
  enabled: z.boolean(),
  status: ProviderStatus.optional(),
  bindingGeneration: z.number().int().nonnegative(),
  tools: z.number().int().nonnegative(),
  skills: z.number().int().nonnegative(),
  /** An MCP server's resources and templates, and its prompts (absent: none, or not an MCP server). */
  resources: z.number().int().nonnegative().optional(),
  prompts: z.number().int().nonnegative().optional(),
  diagnostics: z.number().int().nonnegative(),
});
export type ProviderInfo = z.infer<typeof ProviderInfo>;

/** One capability in the operator's catalog view. */
export const CatalogEntry = z.object({
  contract: CapabilityContract,
  contractHash: z.string(),
  bindingGeneration: z.number().int().nonnegative(),
  revoked: z.boolean(),
  /** Present while the operator has not accepted what its provider now says (shared/pins.ts): no task sees it, nobody runs it. */
  held: PinHold.optional(),
});
export type CatalogEntry = z.infer<typeof CatalogEntry>;
