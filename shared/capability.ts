/**
 * Capabilities as every client sees them: contracts, references, authority and the shapes of
 * discovery results. The words (capability, provider, binding, reference, authority...) are
 * defined in docs/ARCHITECTURE.md's vocabulary.
 */
import { z } from 'zod';

export const RiskLevel = z.enum(['low', 'medium', 'high']);
export type RiskLevel = z.infer<typeof RiskLevel>;

export const CapabilityKind = z.enum(['tool', 'skill']);
export type CapabilityKind = z.infer<typeof CapabilityKind>;

export const ProviderKind = z.enum(['builtin', 'skills', 'mcp', 'bridge']);
export type ProviderKind = z.infer<typeof ProviderKind>;

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

export const ToolContract = z.object({
  ...contractBase,
  kind: z.literal('tool'),
  inputSchema: z.record(z.string(), z.unknown()),
  returnExample: z.unknown(),
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

export const CapabilityContract = z.discriminatedUnion('kind', [ToolContract, SkillContract]);
export type CapabilityContract = z.infer<typeof CapabilityContract>;

/** What discovery hands out and what load, activate and execute must present back. */
export const CapabilityReference = z.strictObject({
  id: CapabilityId,
  catalogGeneration: z.number().int().nonnegative(),
  contractHash: z.string().regex(/^[0-9a-f]{64}$/),
  bindingGeneration: z.number().int().nonnegative(),
});
export type CapabilityReference = z.infer<typeof CapabilityReference>;

/** Authority ladders; each operation needs its rung. Skills stop at `activate`. */
export const TOOL_AUTHORITY = ['none', 'discover', 'inspect', 'load', 'execute'] as const;
export const SKILL_AUTHORITY = ['none', 'discover', 'inspect', 'activate'] as const;
export const Authority = z.enum(['none', 'discover', 'inspect', 'load', 'activate', 'execute']);
export type Authority = z.infer<typeof Authority>;

export const Grant = z.strictObject({
  /**
   * A capability id, or a pattern where `*` matches any run of characters (`builtin:*`, `*`).
   * Bounded because clients send patterns too: ids are at most 257 characters, stars aside.
   */
  pattern: z.string().min(1).max(300),
  authority: Authority,
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

export const ProviderInfo = z.object({
  name: z.string(),
  kind: ProviderKind,
  enabled: z.boolean(),
  bindingGeneration: z.number().int().nonnegative(),
  tools: z.number().int().nonnegative(),
  skills: z.number().int().nonnegative(),
  diagnostics: z.number().int().nonnegative(),
});
export type ProviderInfo = z.infer<typeof ProviderInfo>;

/** One capability in the operator's catalog view. */
export const CatalogEntry = z.object({
  contract: CapabilityContract,
  contractHash: z.string(),
  bindingGeneration: z.number().int().nonnegative(),
  revoked: z.boolean(),
});
export type CatalogEntry = z.infer<typeof CatalogEntry>;
