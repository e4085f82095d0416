/**
 * Capstan as an MCP server, as every side sees it (the host's `/mcp`, the `capstan mcp` relay):
 * its serverInfo, its instructions and its tools.
 *
 * The tools Capstan serves over MCP: the seed's five discovery operations and `capability_call`,
 * each one gateway operation. Their input schemas are the operations' own (shared/discovery.ts)
 * less what the entry decides for the client (the session and task it runs in, the operator's
 * direct `/name` activation), so what an agent may send and what dispatch accepts cannot drift.
 */
import { z } from 'zod';
import type { OperationName } from './api';
import { CapabilityReference, type ToolAnnotations, type ToolContract, type ToolIcon } from './capability';
import {
  CapabilitiesInspectInput,
  CapabilitiesListInput,
  CapabilitiesSearchInput,
  MAX_PAGE_SIZE,
  DEFAULT_PAGE_SIZE,
  SkillsActivateInput,
  ToolsLoadInput,
} from './discovery';

/** MCP's Tool descriptor, as `tools/list` sends it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  annotations?: ToolAnnotations;
  icons?: ToolIcon[];
}

/**
 * The MCP annotations an agent is told for a tool (a loaded tool's tools/list entry,
 * capabilities_inspect): what its provider declared, tightened and never loosened by what Capstan
 * decided (riskLevel, needConfirm, mutating, after config.json's toolPolicy).
 *
 * - readOnlyHint: true only if the provider said so and Capstan treats the tool as not mutating.
 * - destructiveHint (meaningful when not read-only): true if the provider said so or left it out
 *   (MCP's default), or Capstan asks for confirmation; false only if both agree it is not.
 * - idempotentHint and openWorldHint: as declared, else MCP's defaults (false, true); Capstan
 *   decides nothing about them.
 * - title: the declared annotation title, when there is one.
 *
 * Capstan's own tools (builtins, which declare nothing: `declared` is absent) are told by Capstan's
 * decision alone, as before.
 */
export function toolAnnotations(contract: ToolContract): ToolAnnotations {
  if (contract.declared === undefined) return { readOnlyHint: !contract.mutating, destructiveHint: contract.mutating, idempotentHint: false };
  const declared = contract.declared ?? {};
  const readOnlyHint = declared.readOnlyHint === true && !contract.mutating;
  const providerDestructive = declared.readOnlyHint !== true && declared.destructiveHint !== false;
  return {
    ...(declared.title !== undefined ? { title: declared.title } : {}),
    readOnlyHint,
    destructiveHint: !readOnlyHint && (providerDestructive || contract.needConfirm),
    idempotentHint: declared.idempotentHint ?? false,
    openWorldHint: declared.openWorldHint ?? true,
  };
}

export interface CapstanTool {
  operation: OperationName;
  descriptor: McpTool;
  /** The top-level arguments the tool takes; any other is refused rather than passed on. */
  accepts: ReadonlySet<string>;
}

/**
 * Discovery only reads the catalog and the task's own context: nothing outside Capstan changes,
 * so the five are read-only in MCP's sense. Loading and activating charge the task's context
 * budget, and doing it twice charges nothing more, hence idempotent.
 */
const DISCOVERY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
/**
 * A call can run any loaded tool, http_check and MCP servers' tools included, so it claims
 * nothing: it may change things and reach outside. The tool's own risk is in its contract.
 */
const CALL = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;

const FIELD_HELP: Record<string, string> = {
  limit: `How many results, 1-${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when absent.`,
  cursor: "The previous page's nextCursor, to read the next page of the same listing.",
  kind: 'Only tools or only skills.',
  provider: 'Only capabilities of this provider (builtin, skills, or an MCP server name).',
  query: 'Words to match against names, tags, descriptions, provider names and kinds (lexical-v1: no embeddings).',
  reference: 'The reference exactly as discovery returned it (id, catalogGeneration, contractHash, bindingGeneration).',
  arguments: "The tool's arguments, valid against the inputSchema tools_load returned.",
};

/**
 * Fields whose JSON Schema zod does not write the way MCP clients read it: a record of anything
 * comes out as `additionalProperties: {}`, which the inspector's --strict flags as unportable.
 */
const FIELD_SCHEMA: Record<string, Record<string, unknown>> = {
  arguments: { type: 'object', additionalProperties: true },
};

const CapabilityCallInput = z.strictObject({ reference: CapabilityReference, arguments: z.record(z.string(), z.unknown()).optional() });

function define(name: string, operation: OperationName, title: string, description: string, input: z.ZodObject, annotations: McpTool['annotations']): CapstanTool {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(input, { io: 'input' }) as { $schema?: string; properties?: Record<string, Record<string, unknown>> };
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    if (FIELD_SCHEMA[field]) schema.properties![field] = { ...FIELD_SCHEMA[field], ...(FIELD_HELP[field] ? { description: FIELD_HELP[field] } : {}) };
    else if (FIELD_HELP[field]) property.description = FIELD_HELP[field];
  }
  // The seed's page bound, told to the model rather than found out from ARGUMENT_INVALID.
  if (schema.properties?.limit) schema.properties.limit = { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: FIELD_HELP.limit };
  return {
    operation,
    descriptor: { name, title, description, inputSchema: { ...schema, type: 'object' }, annotations },
    accepts: new Set(Object.keys(input.shape)),
  };
}

const scoped = { taskId: true, sessionId: true } as const;

export const CAPSTAN_TOOLS: ReadonlyMap<string, CapstanTool> = new Map(
  [
    define(
      'capabilities_list',
      'capabilitiesList',
      'List capabilities',
      "Lists the tools and skills this session's task may discover, 20 per page by default (at most 100); pass nextCursor back as cursor for the next page. Each item carries the reference to inspect, load or activate it with.",
      CapabilitiesListInput.omit(scoped),
      DISCOVERY,
    ),
    define(
      'capabilities_search',
      'capabilitiesSearch',
      'Search capabilities',
      'Searches the tools and skills this task may discover with the deterministic lexical-v1 analyzer (exact name, name terms, tags, description, provider, kind). No result only means no lexical match. Paged like capabilities_list.',
      CapabilitiesSearchInput.omit(scoped),
      DISCOVERY,
    ),
    define(
      'capabilities_inspect',
      'capabilitiesInspect',
      'Inspect a capability',
      "Returns the validated contract of one capability (input schema, risk, whether a call needs the operator's approval) and the authority this task holds on it. Fails with STALE_CAPABILITY if it changed since discovery.",
      CapabilitiesInspectInput.omit(scoped),
      DISCOVERY,
    ),
    define(
      'tools_load',
      'toolsLoad',
      'Load a tool',
      "Admits a tool's schema to this task's capability context and makes it callable with capability_call (and, for clients that keep a session, under its own name). Fails with BUDGET_EXCEEDED when it does not fit, or STALE_CAPABILITY.",
      ToolsLoadInput.omit(scoped),
      DISCOVERY,
    ),
    define(
      'skills_activate',
      'skillsActivate',
      'Activate a skill',
      "Verifies a skill's SKILL.md against its reference and admits its body to this task's context for the current step; returns the body. Fails with BUDGET_EXCEEDED or STALE_CAPABILITY.",
      SkillsActivateInput.pick({ reference: true }).required(),
      DISCOVERY,
    ),
    define(
      'capability_call',
      'callTool',
      'Call a loaded tool',
      "Calls a tool loaded with tools_load, by its reference, in this session's task, through Capstan's policy: grants, argument validation, the mutation gate, and the operator's approval for tools that need confirmation (progress is reported while it waits). Every call is in Capstan's ledger under its requestId.",
      CapabilityCallInput,
      CALL,
    ),
  ].map((tool) => [tool.descriptor.name, tool]),
);

export const CAPSTAN_TOOL_DESCRIPTORS: readonly McpTool[] = [...CAPSTAN_TOOLS.values()].map((tool) => tool.descriptor);

export const SERVER_INFO = { name: 'capstan', title: 'Capstan', version: '0.1.0' };

export const INSTRUCTIONS =
  'Capstan is a capability gateway. Find tools and skills with capabilities_search or capabilities_list, ' +
  'read a contract with capabilities_inspect, then load a tool with tools_load and run it with capability_call ' +
  '(skills: search, inspect, then skills_activate). Pass references exactly as they were returned; on ' +
  'STALE_CAPABILITY, discover again. Calls to tools that need confirmation wait for the operator.';
