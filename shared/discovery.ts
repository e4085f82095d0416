/**
 * Model-facing discovery (capabilities_list, capabilities_search, capabilities_inspect,
 * tools_load, skills_activate) and the operator's catalog views. Model-facing operations run
 * in a task (or a session's active task) and see only what that task may discover.
 */
import { z } from 'zod';
import {
  Authority,
  CapabilityContract,
  CapabilityKind,
  CapabilityReference,
  CatalogEntry,
  Diagnostic,
  ProviderInfo,
  ToolAnnotations,
} from './capability';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
export const SEARCH_ANALYZER = 'lexical-v1';

const TaskScope = {
  /** The task to run in; or give `sessionId` to use (or start) that session's task. */
  taskId: z.string().min(1).max(128).optional(),
  sessionId: z.string().min(1).max(128).optional(),
};

const Page = {
  /** 1-100, default 20; more than 100 is ARGUMENT_INVALID. */
  limit: z.number().int().positive().optional(),
  cursor: z.string().max(512).optional(),
  kind: CapabilityKind.optional(),
  provider: z.string().max(128).optional(),
};

export const CapabilitiesListInput = z.strictObject({ ...TaskScope, ...Page });
export const CapabilitiesSearchInput = z.strictObject({ ...TaskScope, ...Page, query: z.string().max(1000) });
export const CapabilitiesInspectInput = z.strictObject({ ...TaskScope, reference: CapabilityReference });
export const ToolsLoadInput = z.strictObject({ ...TaskScope, reference: CapabilityReference });
export const SkillsActivateInput = z.strictObject({
  ...TaskScope,
  /** A reference from discovery (model activation), or a `name` with `direct: true` (the operator's `/name`). */
  reference: CapabilityReference.optional(),
  name: z.string().max(128).optional(),
  direct: z.boolean().default(false),
});

export const DiscoveryItem = z.object({
  reference: CapabilityReference,
  kind: CapabilityKind,
  provider: z.string(),
  name: z.string(),
  title: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  /** Present (false) only for a tool Capstan lists but cannot run; `notRunnableReason` says why. tools_load and calls refuse it (TOOL_NOT_RUNNABLE). */
  runnable: z.literal(false).optional(),
  notRunnableReason: z.string().optional(),
});
export type DiscoveryItem = z.infer<typeof DiscoveryItem>;

export const MatchedField = z.enum(['name', 'tags', 'description', 'provider', 'kind']);

const PageOutput = {
  taskId: z.string(),
  catalogGeneration: z.number().int(),
  nextCursor: z.string().nullable(),
};

export const CapabilitiesListOutput = z.object({ ...PageOutput, items: z.array(DiscoveryItem) });
export const CapabilitiesSearchOutput = z.object({
  ...PageOutput,
  analyzer: z.literal(SEARCH_ANALYZER),
  items: z.array(DiscoveryItem.extend({ score: z.number(), matched: z.array(MatchedField) })),
});
export const CapabilitiesInspectOutput = z.object({
  taskId: z.string(),
  reference: CapabilityReference,
  contract: CapabilityContract,
  held: Authority,
  /**
   * For a tool: the MCP annotations an agent is told (its provider's, tightened by Capstan's
   * decision: shared/mcpTools.ts toolAnnotations), as a loaded tool lists them. The contract keeps
   * what the provider declared (`declared`), its `outputSchema`, `icons` and `title` as declared.
   */
  annotations: ToolAnnotations.optional(),
});

const Admission = z.object({
  tokens: z.number().int(),
  inUse: z.number().int(),
  ceiling: z.number().int(),
  scope: z.enum(['step', 'task']),
});

export const ToolsLoadOutput = z.object({
  taskId: z.string(),
  reference: CapabilityReference,
  inputSchema: z.record(z.string(), z.unknown()),
  admission: Admission,
});
export const SkillsActivateOutput = z.discriminatedUnion('status', [
  z.object({ status: z.literal('activated'), taskId: z.string(), reference: CapabilityReference, body: z.string(), admission: Admission }),
  /** A direct `/name` activation that does not fit is skipped, with the reason, rather than failed. */
  z.object({
    status: z.literal('skipped'),
    taskId: z.string(),
    reference: CapabilityReference,
    message: z.string(),
    need: z.number().int(),
    inUse: z.number().int(),
    ceiling: z.number().int(),
  }),
]);

/** The operator's console sees the whole catalog, whatever a task may discover. */
export const CatalogView = z.object({
  catalogGeneration: z.number().int(),
  /** Providers still reading their first contents at start (`skills`); a `loaded` catalog event follows each. */
  loading: z.array(z.string()).optional(),
  capabilities: z.array(CatalogEntry),
  providers: z.array(ProviderInfo),
  diagnostics: z.array(Diagnostic),
});
export type CatalogView = z.infer<typeof CatalogView>;

/** The operator's search pages: 100 hits unless asked otherwise, at most 500. */
export const CATALOG_SEARCH_PAGE = 100;
export const MAX_CATALOG_SEARCH_PAGE = 500;

/** The console's risk filter (shared/policy.ts's ToolFilter). */
export const RiskFilter = z.enum(['all', 'low-risk', 'confirm']);

/**
 * `GET /catalog/search`: one page of the lexical-v1 ranking over the whole catalog, narrowed by
 * the console's filters, with the counts a list needs (its length, each facet's), so a client
 * holds only the hits it shows and pages in more as the operator scrolls.
 */
export const CatalogSearchInput = z.strictObject({
  query: z.string().max(1000),
  /** Risk filter, default `all`. */
  filter: RiskFilter.optional(),
  kind: CapabilityKind.optional(),
  provider: z.string().max(128).optional(),
  /** Where the page starts in the filtered ranking (default 0). */
  offset: z.coerce.number().int().nonnegative().max(1_000_000).optional(),
  limit: z.coerce.number().int().positive().max(MAX_CATALOG_SEARCH_PAGE).optional(),
});
export type CatalogSearchInput = z.input<typeof CatalogSearchInput>;
const count = z.number().int().nonnegative();
export const CatalogSearchOutput = z.object({
  analyzer: z.literal(SEARCH_ANALYZER),
  /** The catalog the page was ranked in; pages are ranked as each is asked, and a catalog event says to ask again. */
  catalogGeneration: z.number().int(),
  /** Lexical matches, before any filter (0: no lexical match). */
  matches: count,
  /** Hits after every filter: the length of the list this page is part of. */
  total: count,
  /**
   * How many hits each facet value would give, with every other filter applied: kinds under the
   * risk filter and the provider, providers under the risk filter and the kind.
   */
  facets: z.object({ kinds: z.object({ tool: count, skill: count, resource: count, resourceTemplate: count, prompt: count }), providers: z.array(z.object({ provider: z.string(), count })) }),
  offset: count,
  /** Best first, ties by canonical id: hits `offset` to `offset + limit` of the filtered ranking. */
  hits: z.array(z.object({ id: z.string(), score: z.number(), matched: z.array(MatchedField) })),
});
export type CatalogSearchOutput = z.infer<typeof CatalogSearchOutput>;

export const DiagnosticsOutput = z.object({ diagnostics: z.array(Diagnostic) });
export const ProviderEnabledInput = z.strictObject({ provider: z.string().min(1).max(128), enabled: z.boolean() });
export const CapabilityRevokedInput = z.strictObject({ id: z.string().min(1).max(300), revoked: z.boolean() });

/** A skill's SKILL.md body, as activation would hand it to a model, and what that costs (the operator's Skill view). */
export const SkillTextInput = z.strictObject({ id: z.string().min(1).max(300) });
export const SkillText = z.object({
  id: z.string(),
  path: z.string(),
  /** The body after the frontmatter, exactly as read (untrusted text: show it with shared/visibleText.ts). */
  body: z.string(),
  bodyHash: z.string(),
  /** What activating it admits into a task's context: the body counted with the o200k_base tokenizer, as admission counts it. */
  tokens: z.number().int().nonnegative(),
});
export type SkillText = z.infer<typeof SkillText>;

/** The lines around a diagnostic's line in its skill file; only a file and line a current diagnostic names are read. */
export const DiagnosticExcerptInput = z.strictObject({ path: z.string().min(1).max(4096), line: z.coerce.number().int().positive() });
export const DiagnosticExcerpt = z.object({
  path: z.string(),
  line: z.number().int(),
  /** The 1-based number of the first line in `lines`. */
  firstLine: z.number().int().positive(),
  /** At most 7 lines of at most 241 characters, control and bidirectional characters made visible. */
  lines: z.array(z.string()).max(7),
});
export type DiagnosticExcerpt = z.infer<typeof DiagnosticExcerpt>;
