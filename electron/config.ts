/**
 * Operator configuration: optional `config.json` in the data dir, validated at start-up so a
 * mistake is reported clearly instead of half-applied. The defaults live here, with the schema
 * they complete: the runtime receives the resulting values and does not decide them.
 */
import { chmodSync, closeSync, existsSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { Grant } from '../shared/capability';
import { McpServerEntry, McpServerName, ToolPolicyRule } from '../shared/mcp';
import { HarnConfig } from '../shared/harn';
import { parseAllowEntry } from './allowEntry';
import { TelemetryConfig } from './telemetry/settings';

export const CONFIG_FILE = 'config.json';

/** Out of the box: builtin tools and skills are fully usable; nothing else is granted. */
export const DEFAULT_GRANTS: readonly Grant[] = [
  { pattern: 'builtin:*', authority: 'execute' },
  { pattern: 'skills:*', authority: 'activate' },
];

/**
 * What agents' tasks get on top of `grants`: the operator's notes and to-dos are the operator's,
 * so an agent neither reads nor writes them unless config.json's `agentGrants` says otherwise.
 */
export const DEFAULT_AGENT_GRANTS: readonly Grant[] = [
  { pattern: 'builtin:note_*', authority: 'none' },
  { pattern: 'builtin:todo_*', authority: 'none' },
];

/** A model's input budget, a minimal base (system prompt, request, room for a reply) and a margin. */
export const DEFAULT_ADMISSION_BUDGET = { budgetTokens: 128_000, baseTokens: 8_000, marginTokens: 6_400 };

/** How long a cancelled or timed-out call may take to end before its outcome is unknown. */
export const DEFAULT_GRACE_MS = 5_000;

/** How long an agent's call waits for the operator's approval before it expires. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

/** How long a 2025-era MCP client's session may go without a request before it ends (its task finished). */
export const DEFAULT_MCP_SESSION_IDLE_MS = 30 * 60_000;

/** What one agent may hold at once (sessions of /mcp, tasks not ended, calls waiting for approval). */
export const DEFAULT_AGENT_QUOTAS = { mcpSessions: 64, tasks: 64, pendingApprovals: 20 };

/** The largest SKILL.md read. Bigger files are diagnostics: reading, hashing and counting tokens grow with size. */
export const DEFAULT_SKILL_MAX_FILE_BYTES = 256 * 1024;

const Tokens = z.number().int().nonnegative();

/** One `httpCheck.allow` entry, checked with the parser http_check itself uses. */
const AllowEntry = z.string().superRefine((entry, context) => {
  try {
    parseAllowEntry(entry);
  } catch (error) {
    context.addIssue({ code: 'custom', message: `"${entry}": ${(error as Error).message}` });
  }
});

export const CapstanConfig = z.strictObject({
  /** Authority ceilings per capability pattern, most specific pattern first in effect. */
  grants: z.array(Grant).default([...DEFAULT_GRANTS]),
  /** Added to `grants` for the tasks of agents' sessions (`agent:<name>…`); by default the operator's notes and to-dos stay the operator's. */
  agentGrants: z.array(Grant).default([...DEFAULT_AGENT_GRANTS]),
  /** The capability-context budget of each task, in tokens. */
  admission: z
    .strictObject({ budgetTokens: Tokens, baseTokens: Tokens, marginTokens: Tokens })
    .partial()
    .default({})
    .transform((given) => ({ ...DEFAULT_ADMISSION_BUDGET, ...given }))
    .refine((b) => b.budgetTokens - b.baseTokens - b.marginTokens > 0, 'budgetTokens must exceed baseTokens + marginTokens'),
  /** More skills directories, besides `<data dir>/skills`. */
  skillsDirs: z.array(z.string().min(1)).default([]),
  /** Limits on what a skills directory may hold. */
  skills: z
    .strictObject({ maxFileBytes: z.number().int().min(1024).max(4 * 1024 * 1024).default(DEFAULT_SKILL_MAX_FILE_BYTES) })
    .default({ maxFileBytes: DEFAULT_SKILL_MAX_FILE_BYTES }),
  /** How long a cancelled or timed-out call may take to end before its outcome is unknown. */
  cancellation: z.strictObject({ graceMs: z.number().int().min(0).max(600_000).default(DEFAULT_GRACE_MS) }).default({ graceMs: DEFAULT_GRACE_MS }),
  /** How long an agent's call that needs confirmation waits for the operator (1 s to 1 h). */
  approvals: z
    .strictObject({ timeoutMs: z.number().int().min(1000).max(3_600_000).default(DEFAULT_APPROVAL_TIMEOUT_MS) })
    .default({ timeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS }),
  /** Capstan's own MCP server (`/mcp`): how long a client's session may be idle (1 s to 24 h) before it ends. */
  mcp: z
    .strictObject({ sessionIdleMs: z.number().int().min(1000).max(86_400_000).default(DEFAULT_MCP_SESSION_IDLE_MS) })
    .default({ sessionIdleMs: DEFAULT_MCP_SESSION_IDLE_MS }),
  /**
   * What one agent may hold at once, so that no agent can push limits on everyone: MCP sessions,
   * tasks that have not ended, and calls waiting for the operator's approval. The operator has none.
   */
  quotas: z
    .strictObject({
      mcpSessions: z.number().int().min(1).max(10_000).default(DEFAULT_AGENT_QUOTAS.mcpSessions),
      tasks: z.number().int().min(1).max(10_000).default(DEFAULT_AGENT_QUOTAS.tasks),
      pendingApprovals: z.number().int().min(1).max(1000).default(DEFAULT_AGENT_QUOTAS.pendingApprovals),
    })
    .default({ ...DEFAULT_AGENT_QUOTAS }),
  /** Providers to start disabled, by name. */
  disabledProviders: z.array(z.string()).default([]),
  /** Where http_check may connect besides public addresses: exact host names, IP addresses or CIDRs. */
  httpCheck: z.strictObject({ allow: z.array(AllowEntry).default([]) }).default({ allow: [] }),
  /** MCP servers, each a provider named by its key: `{ command, args, env, cwd }` or `{ url, headers }`. */
  mcpServers: z
    .record(z.string(), McpServerEntry)
    .superRefine((servers, context) => {
      // Named here rather than as the record's key schema, so the error names the reason.
      for (const name of Object.keys(servers)) {
        const problem = McpServerName.safeParse(name).error?.issues[0];
        if (problem) context.addIssue({ code: 'custom', path: [name], message: problem.message });
      }
    })
    .default({}),
  /** The operator's tightening of tool policy per capability pattern; it never loosens. */
  toolPolicy: z.array(ToolPolicyRule).default([]),
  /** How to start Harn for a run (`POST /harn/runs`): `<command> <args...> <script>`. */
  harn: HarnConfig.default(HarnConfig.parse({})),
  /** OpenTelemetry export (electron/telemetry/settings.ts): off unless this or OTEL_EXPORTER_OTLP_* turns it on. */
  telemetry: TelemetryConfig.optional(),
});
export type CapstanConfig = z.output<typeof CapstanConfig>;

export class ConfigError extends Error {}

export function readConfig(dataDir: string): CapstanConfig {
  return parseConfig(join(dataDir, CONFIG_FILE), readRawConfig(dataDir));
}

/** config.json as written, before defaults: what a change is applied to, so every other key stays as it was. */
export function readRawConfig(dataDir: string): Record<string, unknown> {
  const path = join(dataDir, CONFIG_FILE);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`${path}: (root): must be a JSON object`);
  return raw as Record<string, unknown>;
}

function parseConfig(path: string, raw: unknown): CapstanConfig {
  const parsed = CapstanConfig.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Writes config.json whole and atomically: validated first (a change that would stop the next
 * start is refused), then a temporary file beside it is written, flushed and renamed over it, so
 * a crash leaves the old file or the new one, never half of either. The file may hold secrets
 * (headers, env), so it is written readable by its owner only.
 */
export function writeConfig(dataDir: string, raw: Record<string, unknown>): CapstanConfig {
  const path = configTarget(dataDir);
  const config = parseConfig(join(dataDir, CONFIG_FILE), raw);
  const mode = 0o600;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(raw, null, 2)}\n`, { mode });
  chmodSync(temporary, mode);
  const fd = openSync(temporary, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  return config;
}

/**
 * What an edit of config.json does while the gateway runs (see docs/configuration.md): these
 * settings apply at once (grants, agentGrants, quotas and admission to tasks, sessions and
 * approvals that begin after the edit); every other setting is read at start only, and a change
 * to it is reported as needing a restart.
 */
export const LIVE_SETTINGS = ['grants', 'agentGrants', 'quotas', 'admission', 'httpCheck', 'toolPolicy', 'mcpServers'] as const satisfies readonly (keyof CapstanConfig)[];
export const RESTART_SETTINGS = ['skillsDirs', 'skills', 'cancellation', 'approvals', 'mcp', 'harn', 'disabledProviders', 'telemetry'] as const satisfies readonly (keyof CapstanConfig)[];

/** How long config.json must be quiet before an edit is read: an editor's save is several events. */
export const CONFIG_WATCH_DEBOUNCE_MS = 250;

/**
 * config.json, or the file it links to (kept in a dotfiles repository, say): the gateway writes
 * and watches that file, so the link stays a link and an edit of its target is seen.
 */
function configTarget(dataDir: string): string {
  const path = join(dataDir, CONFIG_FILE);
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Calls `onEdit` once config.json has changed and been quiet for `debounceMs`. The data dir is
 * watched rather than the file, since an atomic write (the gateway's own, most editors') renames
 * a new file over it; so is the folder of the file config.json links to, if it is a link.
 * Returns the function that stops watching.
 */
export function watchConfig(dataDir: string, onEdit: () => void, debounceMs = CONFIG_WATCH_DEBOUNCE_MS): () => void {
  let timer: NodeJS.Timeout | undefined;
  let linked: { target: string; watcher: FSWatcher } | undefined;
  // The data dir as the target's path spells it, to tell a link to a file elsewhere from none.
  let home = dataDir;
  try {
    home = realpathSync(dataDir);
  } catch {
    // Not there yet: the watch below fails and says so.
  }
  const edited = () => {
    clearTimeout(timer);
    timer = setTimeout(onEdit, debounceMs);
  };
  // Where the link points now (it may be pointed elsewhere): that folder is watched for the target's name.
  const followLink = () => {
    const target = configTarget(dataDir);
    if (linked?.target === target) return;
    linked?.watcher.close();
    linked = undefined;
    const dir = dirname(target);
    if (dir === home) return;
    const name = basename(target);
    try {
      const watcher = watch(dir, { persistent: false }, (_event, filename) => {
        if (filename === null || filename === name) edited();
      });
      watcher.on('error', () => {});
      linked = { target, watcher };
    } catch {
      // An unwatchable target folder: edits there show after a restart, as before links were followed.
    }
  };
  let watcher: FSWatcher;
  try {
    watcher = watch(dataDir, { persistent: false }, (_event, filename) => {
      if (filename !== null && filename !== CONFIG_FILE) return;
      followLink();
      edited();
    });
  } catch {
    return () => {};
  }
  watcher.on('error', () => {});
  followLink();
  return () => {
    clearTimeout(timer);
    watcher.close();
    linked?.watcher.close();
  };
}
