/**
 * The MCP server form's state and its way to and from config.json's entry. Pure, so the page's
 * validation and the entry it saves are tested without a browser.
 *
 * Secrets: the gateway never sends a secret-looking value back, only SECRET_MASK in its place
 * (McpServerView.masked lists where). A masked value stays masked in the draft until the
 * operator replaces it; sending the mask back tells the gateway to keep what it stores.
 */
import { McpServerEntry, McpServerName, RESERVED_PROVIDER_NAMES, RootPath, type McpServerView } from '../../../../shared/mcp';

export type Transport = 'stdio' | 'http';

/** One argument, env variable or header; `masked` while it still holds the gateway's mask. */
export interface Row {
  key: string;
  value: string;
  masked: boolean;
  /** The mask as the gateway sent it, to put back if the operator changes their mind. */
  stored?: string;
}

/** Names whose values the page hides as they are typed (the gateway masks by its own, wider rule). */
export const looksSecret = (key: string) => /auth|token|secret|key|pass|cookie|credential|session/i.test(key);

const maskedRow = (key: string, value: string, masked: boolean): Row => (masked ? { key, value, masked, stored: value } : { key, value, masked });

export interface ServerDraft {
  name: string;
  transport: Transport;
  command: string;
  args: Row[];
  env: Row[];
  cwd: string;
  url: string;
  /** The url holds a secret (a token in its query): masked like a value, with the mask as sent. */
  urlMasked: boolean;
  urlStored: string | null;
  headers: Row[];
  enabled: boolean;
  /** Typed as text so a half-typed number stays on screen; checked by validateDraft. */
  timeoutMs: string;
  toolTimeoutMs: string;
  maxResultBytes: string;
  /** `type` as the entry wrote it, kept when the transport stays the same. */
  type: McpServerEntry['type'];
  /** Folders offered to the server as MCP roots, one per row (values only); none by default. */
  roots: Row[];
  /** A url server's OAuth client, as config.json has it (its secret masked): not edited here, kept on save. */
  oauth?: McpServerEntry['oauth'];
}

export const emptyDraft = (): ServerDraft => ({
  name: '',
  transport: 'stdio',
  command: '',
  args: [],
  env: [],
  cwd: '',
  url: '',
  urlMasked: false,
  urlStored: null,
  headers: [],
  enabled: true,
  timeoutMs: '',
  toolTimeoutMs: '',
  maxResultBytes: '',
  type: undefined,
  roots: [],
});

const rows = (record: Record<string, string> | undefined, prefix: string, masked: ReadonlySet<string>): Row[] =>
  Object.entries(record ?? {}).map(([key, value]) => maskedRow(key, value, masked.has(`${prefix}.${key}`)));

export function draftFromView(view: McpServerView): ServerDraft {
  const { entry } = view;
  const masked = new Set(view.masked);
  const text = (value: number | undefined) => (value === undefined ? '' : String(value));
  return {
    name: view.name,
    transport: view.transport,
    command: entry.command ?? '',
    args: (entry.args ?? []).map((value, index) => maskedRow('', value, masked.has(`args.${index}`))),
    env: rows(entry.env, 'env', masked),
    cwd: entry.cwd ?? '',
    url: entry.url ?? '',
    urlMasked: masked.has('url'),
    urlStored: masked.has('url') ? (entry.url ?? null) : null,
    headers: rows(entry.headers, 'headers', masked),
    enabled: entry.enabled ?? true,
    timeoutMs: text(entry.timeoutMs),
    toolTimeoutMs: text(entry.toolTimeoutMs),
    maxResultBytes: text(entry.maxResultBytes),
    type: entry.type,
    roots: (entry.roots ?? []).map((value) => ({ key: '', value, masked: false })),
    ...(entry.oauth && { oauth: entry.oauth }),
  };
}

const record = (list: readonly Row[]) => Object.fromEntries(list.map((row) => [row.key.trim(), row.value]));
const number = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));

/** The config.json entry the draft stands for; empty optional fields are left out, as an operator would write it. */
export function entryFromDraft(draft: ServerDraft): McpServerEntry {
  const limits = {
    ...(number(draft.timeoutMs) !== undefined && { timeoutMs: number(draft.timeoutMs) }),
    ...(number(draft.toolTimeoutMs) !== undefined && { toolTimeoutMs: number(draft.toolTimeoutMs) }),
    ...(number(draft.maxResultBytes) !== undefined && { maxResultBytes: number(draft.maxResultBytes) }),
  };
  const keepType = draft.type !== undefined && (draft.type === 'stdio') === (draft.transport === 'stdio');
  const roots = draft.roots.map((row) => row.value.trim());
  const common = { ...(keepType && { type: draft.type }), ...(draft.enabled ? {} : { enabled: false }), ...limits, ...(roots.length > 0 && { roots }) };
  if (draft.transport === 'stdio') {
    return {
      ...common,
      command: draft.command.trim(),
      ...(draft.args.length > 0 && { args: draft.args.map((row) => row.value) }),
      ...(draft.env.length > 0 && { env: record(draft.env) }),
      ...(draft.cwd.trim() !== '' && { cwd: draft.cwd.trim() }),
    } as McpServerEntry;
  }
  return { ...common, url: draft.url.trim(), ...(draft.headers.length > 0 && { headers: record(draft.headers) }), ...(draft.oauth && { oauth: draft.oauth }) } as McpServerEntry;
}

/** Field id → what is wrong with it, in words the field's description reads out. */
export type FieldErrors = Record<string, string>;

const LIMITS = {
  timeoutMs: { min: 100, max: 3_600_000 },
  toolTimeoutMs: { min: 100, max: 86_400_000 },
  maxResultBytes: { min: 1024, max: 64 * 1024 * 1024 },
} as const;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function checkRows(list: readonly Row[], field: 'env' | 'headers', errors: FieldErrors): void {
  const seen = new Set<string>();
  list.forEach((row, index) => {
    const key = row.key.trim();
    const id = `${field}.${index}.key`;
    if (key === '') errors[id] = 'Give a name, or remove the row.';
    else if (field === 'headers' && !HEADER_NAME.test(key)) errors[id] = 'Not a valid header name (letters, digits and !#$%&\'*+.^_`|~- only).';
    else if (field === 'env' && /[=\0]/.test(key)) errors[id] = 'A variable name cannot contain "=".';
    else if (seen.has(field === 'headers' ? key.toLowerCase() : key)) errors[id] = 'Given twice.';
    seen.add(field === 'headers' ? key.toLowerCase() : key);
  });
}

/** What the page says before anything is sent; the gateway checks again and has the last word. */
export function validateDraft(draft: ServerDraft, takenNames: readonly string[], adding: boolean): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (adding) {
    if (name === '') errors.name = 'Give the server a name.';
    else if ((RESERVED_PROVIDER_NAMES as readonly string[]).includes(name)) errors.name = `"${name}" is reserved for a builtin provider.`;
    else if (!McpServerName.safeParse(name).success) errors.name = 'Use 1-128 letters, digits, ".", "_" or "-".';
    else if (takenNames.includes(name)) errors.name = `A provider named "${name}" exists already.`;
  }
  if (draft.transport === 'stdio') {
    if (draft.command.trim() === '') errors.command = 'Give the command that starts the server.';
    checkRows(draft.env, 'env', errors);
  } else {
    if (draft.url.trim() === '') errors.url = 'Give the URL of the server\'s MCP endpoint.';
    else if (!draft.urlMasked && !isHttpUrl(draft.url.trim())) errors.url = 'Must be an http:// or https:// URL.';
    checkRows(draft.headers, 'headers', errors);
  }
  draft.roots.forEach((row, index) => {
    const path = row.value.trim();
    if (path === '') errors[`roots.${index}.value`] = 'Give a folder, or remove the row.';
    else if (!RootPath.safeParse(path).success) errors[`roots.${index}.value`] = 'Give an absolute path (starting with / or a drive letter).';
  });
  for (const [field, { min, max }] of Object.entries(LIMITS) as [keyof typeof LIMITS, { min: number; max: number }][]) {
    const text = draft[field].trim();
    if (text === '') continue;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) errors[field] = 'A whole number, or leave it empty for the default.';
    else if (value < min || value > max) errors[field] = `Between ${min.toLocaleString('en')} and ${max.toLocaleString('en')}.`;
  }
  // The shared schema has the last word in the page too: anything it refuses that the checks above missed.
  if (Object.keys(errors).length === 0) {
    const parsed = McpServerEntry.safeParse(entryFromDraft(draft));
    if (!parsed.success) errors.form = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'entry'}: ${issue.message}`).join('; ');
  }
  return errors;
}
