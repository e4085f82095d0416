/**
 * MCP servers as providers: the `mcpServers` entries of config.json (the shape other MCP hosts
 * use, so an entry can be pasted), the operator's `toolPolicy`, and the management API's views.
 * Secret-looking values never leave the gateway: views carry them masked, and a save that sends
 * a mask back keeps the stored value.
 */
import { z } from 'zod';
import { CAPABILITY_NAME_PATTERN, ProviderStatus, RiskLevel, ToolAnnotations } from './capability';

/** Names a server may not take: they are the builtin providers'. */
export const RESERVED_PROVIDER_NAMES = ['builtin', 'skills', 'gateway'] as const;

/** A server's name: its provider name and the first half of its capability ids (`everything:echo`). */
export const McpServerName = z
  .string()
  .regex(CAPABILITY_NAME_PATTERN, 'must be 1-128 of [A-Za-z0-9_.-]')
  .refine((name) => !(RESERVED_PROVIDER_NAMES as readonly string[]).includes(name), 'is reserved for a builtin provider');

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 600_000;
export const DEFAULT_MCP_MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** An HTTP header name (RFC 9110 token). */
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'is not a valid header name');
const EnvName = z.string().regex(/^[^=\0]+$/, 'is not a valid environment variable name');
const HttpUrl = z.string().refine((value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL');

/** The most roots one server is offered. */
export const MAX_ROOTS = 64;
/** An absolute folder path (POSIX `/…` or Windows `C:\…`, `\\server\share`), as a root is configured. */
export const RootPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(path), 'must be an absolute path')
  .refine((path) => !path.includes('\0'), 'must not contain NUL');

/**
 * One `mcpServers` entry. Stdio servers give `command` (with `args`, `env`, `cwd`); Streamable HTTP
 * servers give `url` (with `headers`). `type` is accepted as other hosts write it. Optional fields
 * stay absent when not given, so a saved entry reads back as the operator wrote it.
 */
export const McpServerEntry = z
  .strictObject({
    type: z.enum(['stdio', 'http', 'streamable-http']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(EnvName, z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: HttpUrl.optional(),
    headers: z.record(HeaderName, z.string()).optional(),
    /** False: configured but not connected (default true). */
    enabled: z.boolean().optional(),
    /** How long any request may go unanswered; progress on a tool call restarts it (default 60 s). */
    timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
    /** The most one tool call may take in all, progress or not (default 10 min). */
    toolTimeoutMs: z.number().int().min(100).max(86_400_000).optional(),
    /** The largest result accepted, as JSON bytes (default 4 MiB); larger is RESULT_TOO_LARGE. */
    maxResultBytes: z.number().int().min(1024).max(64 * 1024 * 1024).optional(),
    /**
     * Tools the server adds after it was pinned are pinned as they appear instead of held as new
     * (default false: held until the operator accepts them). A changed tool is held whatever this says.
     */
    acceptNewTools: z.boolean().optional(),
    /**
     * Folders the server may work in, offered to it with MCP roots (`roots/list`, as file:// URIs);
     * none by default. Absolute paths; a change is announced with `notifications/roots/list_changed`.
     */
    roots: z.array(RootPath).max(MAX_ROOTS).optional(),
    /**
     * A url server's OAuth sign-in (docs/mcp-servers.md): a client registered beforehand with its
     * authorization server (`clientId`, and `clientSecret` for a confidential one), the scope to
     * ask for when the server names none, or where Capstan's Client ID Metadata Document is
     * published. Without it Capstan registers itself (RFC 7591) where the server asks for OAuth.
     */
    oauth: z
      .strictObject({
        clientId: z.string().min(1).max(512).optional(),
        clientSecret: z.string().min(1).max(4096).optional(),
        scope: z.string().min(1).max(2048).optional(),
        clientMetadataUrl: HttpUrl.optional(),
      })
      .optional(),
  })
  .superRefine((entry, context) => {
    const stdio = entry.command !== undefined;
    const http = entry.url !== undefined;
    const problem = (message: string) => context.addIssue({ code: 'custom', message });
    if (stdio === http) return problem('give either "command" (a stdio server) or "url" (a Streamable HTTP server)');
    if (entry.type === 'stdio' && !stdio) return problem('"type": "stdio" needs "command"');
    if (entry.type !== undefined && entry.type !== 'stdio' && !http) return problem(`"type": "${entry.type}" needs "url"`);
    if (stdio && entry.headers) return problem('"headers" are for a url server; a stdio server takes "env"');
    if (http && (entry.args || entry.env || entry.cwd)) return problem('"args", "env" and "cwd" are for a command server; a url server takes "headers"');
    if (stdio && entry.oauth) return problem('"oauth" is for a url server');
    if (entry.oauth?.clientSecret && !entry.oauth.clientId) return problem('"oauth.clientSecret" needs "oauth.clientId"');
  });
export type McpServerEntry = z.infer<typeof McpServerEntry>;

export const McpTransport = z.enum(['stdio', 'http']);
export type McpTransport = z.infer<typeof McpTransport>;
export const transportOf = (entry: McpServerEntry): McpTransport => (entry.command !== undefined ? 'stdio' : 'http');

/**
 * An operator's tightening of what Capstan decided for the tools whose ids match `pattern`
 * (`*` matches any run of characters). It can raise risk and require confirmation or mark a tool
 * mutating; it can never lower anything, so `needConfirm` and `mutating` only take `true`.
 */
export const ToolPolicyRule = z.strictObject({
  pattern: z.string().min(1).max(300),
  riskLevel: RiskLevel.optional(),
  needConfirm: z.literal(true, 'can only be true: toolPolicy tightens, never loosens').optional(),
  mutating: z.literal(true, 'can only be true: toolPolicy tightens, never loosens').optional(),
});
export type ToolPolicyRule = z.infer<typeof ToolPolicyRule>;

/**
 * What the console's per-server policy sets, for all of a server's tools or for one: written to
 * config.json as the toolPolicy rule `<server>:*` or `<server>:<tool>`, so it too only tightens.
 */
export const PolicyTightening = z.strictObject({
  riskLevel: RiskLevel.optional(),
  needConfirm: z.literal(true, 'can only be true: a server policy tightens, never loosens').optional(),
  mutating: z.literal(true, 'can only be true: a server policy tightens, never loosens').optional(),
});
export type PolicyTightening = z.infer<typeof PolicyTightening>;

/** One server's policy as config.json holds it: its toolPolicy rules of the two forms, and its entry's acceptNewTools. */
export const ServerPolicy = z.strictObject({
  /** The rule `<server>:*`, for every tool of the server. */
  defaults: PolicyTightening,
  /** The rules `<server>:<tool>`, by tool name. */
  tools: z.record(z.string().regex(CAPABILITY_NAME_PATTERN, 'must be a tool name (1-128 of [A-Za-z0-9_.-])'), PolicyTightening),
  acceptNewTools: z.boolean(),
});
export type ServerPolicy = z.infer<typeof ServerPolicy>;

/** A tool of the server as it declared itself, and what Capstan decides from that alone (before any toolPolicy rule). */
export const ToolDecisionView = z.object({
  name: z.string(),
  declared: ToolAnnotations.nullable(),
  decided: z.object({ riskLevel: RiskLevel, needConfirm: z.boolean(), mutating: z.boolean() }),
});
export type ToolDecisionView = z.infer<typeof ToolDecisionView>;

/**
 * Replaces a server's policy: its `<server>:*` and `<server>:<tool>` toolPolicy rules (every
 * other rule is kept) and, when given, its entry's acceptNewTools. Nothing here can lower what
 * the annotations decide: the flags only take `true`, and a tool's risk floor below the level its
 * annotations give is refused (BAD_REQUEST, `field` naming it).
 */
export const SetServerPolicyInput = z.strictObject({
  name: z.string().min(1).max(128),
  defaults: PolicyTightening.default({}),
  tools: ServerPolicy.shape.tools.refine((tools) => Object.keys(tools).length <= 1000, 'at most 1000 tools').default({}),
  acceptNewTools: z.boolean().optional(),
});

/**
 * A URL server's OAuth state as the console and `capstan mcp-servers` show it: never a token.
 * `applies` is false for a stdio server or one whose entry sets its own Authorization header;
 * `not_used`: a URL server that has not asked for OAuth (no 401 yet) and holds nothing from it.
 */
export const McpServerAuth = z.object({
  applies: z.boolean(),
  state: z.enum(['not_used', 'signed_out', 'signing_in', 'signed_in']),
  /** Who the ID token names (email, name or subject), when the authorization server gave one. */
  signedInAs: z.string().nullable(),
  scopes: z.array(z.string()),
  expiresAt: z.string().nullable(),
  /** When Capstan refreshes the access token (a minute before it expires), when it holds a refresh token. */
  nextRefreshAt: z.string().nullable(),
  authorizationServer: z.string().nullable(),
  /** While signing in: the address to open in a browser. */
  authorizationUrl: z.string().nullable(),
  /** Why the last sign-in or refresh failed, naming what the operator can fix. */
  lastError: z.object({ reason: z.string(), at: z.string() }).nullable(),
});
export type McpServerAuth = z.infer<typeof McpServerAuth>;
export const ServerSignIn = z.object({ authorizationUrl: z.string(), auth: McpServerAuth });
export const ServerSignOut = z.object({ revokedAtServer: z.boolean(), auth: McpServerAuth });

/** What replaces a secret-looking value in every view; the last characters of long values follow it. */
export const SECRET_MASK = '••••••••';
export const isMasked = (value: string) => value.includes(SECRET_MASK);

/** One server as the console sees it: its entry (secrets masked), its state, and its effective limits. */
export const McpServerView = z.object({
  name: z.string(),
  transport: McpTransport,
  /** The entry as config.json holds it, every secret-looking value masked. */
  entry: McpServerEntry,
  /** Which values are masked, as paths: `env.GITHUB_TOKEN`, `headers.Authorization`, `args.3`, `url`. */
  masked: z.array(z.string()),
  enabled: z.boolean(),
  status: ProviderStatus,
  /** Tools listed at the last connection (kept, unavailable, while the server is down). */
  tools: z.number().int().nonnegative(),
  timeoutMs: z.number().int(),
  toolTimeoutMs: z.number().int(),
  maxResultBytes: z.number().int(),
  /** Its policy (config.json's rules for it and acceptNewTools); always present from this gateway. */
  policy: ServerPolicy.optional(),
  /** Its tools as listed at the last connection: what each declared and what Capstan decides from it. */
  toolDecisions: z.array(ToolDecisionView).optional(),
});
export type McpServerView = z.infer<typeof McpServerView>;

export const McpServersView = z.object({ servers: z.array(McpServerView) });
export type McpServersView = z.infer<typeof McpServersView>;

/** Adds or replaces a server; masked values sent back unchanged keep what is stored. */
export const SaveMcpServerInput = z.strictObject({ name: McpServerName, entry: McpServerEntry });
export const McpServerNameInput = z.strictObject({ name: z.string().min(1).max(128) });
