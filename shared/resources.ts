/**
 * An MCP server's resources, resource templates and prompts as Capstan's API carries them: the
 * operations' inputs and outputs (shared/api.ts lists the operations), for the console, the CLI,
 * curl and agents alike.
 *
 * Each is a capability of the catalog, named `<server>:resource.…`, `<server>:template.…` or
 * `<server>:prompt.…` (electron/catalog/declared.ts says why: URIs are not unique across
 * servers). A resource is asked for by that id, or by its URI when only one server lists it (or
 * with `server` to say which). Reads and gets run in a task, under the grant (`read`, `get`), and
 * are recorded in the ledger like tool calls, with digests of what was asked and answered, never
 * the text itself.
 */
import { z } from 'zod';
import { CapabilityIcon, PromptArgument } from './capability';

const Id = z.string().min(1).max(300);
const Server = z.string().min(1).max(128);
/** Where the operation runs, as for a tool call: the caller's session (its manual-calls task) unless named. */
const where = {
  sessionId: z.string().min(1).max(128).optional(),
  taskId: z.string().min(1).max(128).optional(),
};

/** Prompt arguments and template variables are strings (MCP's PromptArgument has no type). */
export const PromptArguments = z.record(z.string().max(1024), z.string().max(64 * 1024));

export const ResourceListInput = z.strictObject({
  /** Only this MCP server's. */
  server: Server.optional(),
  ...where,
});
export type ResourceListInput = z.input<typeof ResourceListInput>;

const listed = {
  id: z.string(),
  server: z.string(),
  /** The name the server gave it. */
  name: z.string(),
  title: z.string(),
  description: z.string(),
  icons: z.array(CapabilityIcon).optional(),
};

export const ResourceItem = z.object({ ...listed, uri: z.string(), mimeType: z.string().nullable(), size: z.number().nullable() });
export type ResourceItem = z.infer<typeof ResourceItem>;
export const ResourceTemplateItem = z.object({ ...listed, uriTemplate: z.string(), variables: z.array(z.string()), mimeType: z.string().nullable() });
export type ResourceTemplateItem = z.infer<typeof ResourceTemplateItem>;
export const PromptItem = z.object({ ...listed, arguments: z.array(PromptArgument) });
export type PromptItem = z.infer<typeof PromptItem>;

/** What the caller may discover (granted at least `discover`) in the task the listing ran in. */
export const ResourceList = z.object({ taskId: z.string(), resources: z.array(ResourceItem), templates: z.array(ResourceTemplateItem) });
export type ResourceList = z.infer<typeof ResourceList>;
export const PromptList = z.object({ taskId: z.string(), prompts: z.array(PromptItem) });
export type PromptList = z.infer<typeof PromptList>;

export const ReadResourceInput = z
  .strictObject({
    /** The URI to read: a listed resource's, or one a template of the server describes. */
    uri: z.string().min(1).max(8192).optional(),
    /** Or the resource's catalog id (`<server>:resource.…`), or a template's (`<server>:template.…`) with `variables` or a `uri` it describes. */
    id: Id.optional(),
    /** A template's variables, which the gateway expands into the URI (RFC 6570). */
    variables: PromptArguments.optional(),
    /** Which server's, when the URI alone could name several. */
    server: Server.optional(),
    requestId: z.string().max(1024).optional(),
    ...where,
  })
  .refine((input) => input.uri !== undefined || input.id !== undefined, { message: 'give the uri or the id of the resource to read', path: ['uri'] });
export type ReadResourceInput = z.input<typeof ReadResourceInput>;

/** One part of a resource as its server sent it: text, or a blob in base64. */
export const ResourceContents = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  text: z.string().optional(),
  blob: z.string().optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type ResourceContents = z.infer<typeof ResourceContents>;

export const ReadResourceOutput = z.object({
  requestId: z.string(),
  taskId: z.string(),
  /** The capability the read ran under: the resource's id, or the template's for a URI it describes. */
  id: z.string(),
  uri: z.string(),
  contents: z.array(ResourceContents),
  /** The size of `contents` as JSON, what the ledger's digest covers and the server's limit bounds. */
  bytes: z.number().int().nonnegative(),
  durationMs: z.number(),
});
export type ReadResourceOutput = z.infer<typeof ReadResourceOutput>;

export const GetPromptInput = z
  .strictObject({
    /** The prompt's name as its server gives it, or its catalog id (`<server>:prompt.…`). */
    name: z.string().min(1).max(1024).optional(),
    id: Id.optional(),
    server: Server.optional(),
    arguments: PromptArguments.default({}),
    requestId: z.string().max(1024).optional(),
    ...where,
  })
  .refine((input) => input.name !== undefined || input.id !== undefined, { message: 'give the name or the id of the prompt', path: ['name'] });
export type GetPromptInput = z.input<typeof GetPromptInput>;

export const PromptMessage = z.looseObject({ role: z.enum(['user', 'assistant']), content: z.unknown() });
export type PromptMessage = z.infer<typeof PromptMessage>;

export const GetPromptOutput = z.object({
  requestId: z.string(),
  taskId: z.string(),
  id: z.string(),
  description: z.string().optional(),
  messages: z.array(PromptMessage),
  bytes: z.number().int().nonnegative(),
  durationMs: z.number(),
});
export type GetPromptOutput = z.infer<typeof GetPromptOutput>;

/** `completion/complete` for one argument of a prompt or one variable of a template, by the capability's id. */
export const CompleteInput = z.strictObject({
  id: Id,
  argument: z.strictObject({ name: z.string().min(1).max(1024), value: z.string().max(4096) }),
  /** The values already chosen for the other arguments, which a server may narrow by. */
  context: PromptArguments.optional(),
  ...where,
});
export type CompleteInput = z.input<typeof CompleteInput>;

export const CompleteOutput = z.object({
  id: z.string(),
  /** At most 100, as MCP allows. */
  values: z.array(z.string()).max(100),
  total: z.number().int().nonnegative().optional(),
  hasMore: z.boolean().optional(),
});
export type CompleteOutput = z.infer<typeof CompleteOutput>;

/** The operator follows a resource's updates (resources/subscribe), or stops. */
export const ResourceSubscriptionInput = z.strictObject({ id: Id, subscribed: z.boolean() });
export const ResourceSubscriptions = z.object({ subscribed: z.array(z.string()) });
export type ResourceSubscriptions = z.infer<typeof ResourceSubscriptions>;

/** A followed resource changed (its server's notifications/resources/updated): read it again to see how. */
export const ResourceUpdated = z.object({ type: z.literal('resourceUpdated'), id: z.string(), provider: z.string(), uri: z.string(), at: z.string() });

/** The gateway holds at most this many resource subscriptions at once (each is a server's resources/subscribe). */
export const MAX_RESOURCE_SUBSCRIPTIONS = 64;
