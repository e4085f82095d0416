/**
 * Secret-looking values in an MCP server entry: header and env values whose name says secret
 * (Authorization, X-Api-Key, GITHUB_TOKEN, DB_PASSWORD…) or whose value looks like a credential
 * (`Bearer …`, `sk-…`, `ghp_…`, a JWT), the value after a `--token`-like argument, and a URL's
 * password or secret query parameters. Views carry them masked; a save that sends a mask back
 * unchanged keeps the stored value; any other value containing the mask is refused, so a mask
 * can never be saved as a secret by mistake.
 */
import { CapstanError } from '../../../shared/errors';
import { isMasked, SECRET_MASK, type McpServerEntry } from '../../../shared/mcp';

/** Shorter values are not masked: a two-letter "secret" would mask half of every text. */
const MIN_SECRET_CHARS = 4;
/** The shortest piece of a secret an open-ended text is masked for (redactOpenEnded). */
const OPEN_PIECE_CHARS = 3;
const SECRET_NAME = /auth|token|secret|passw|pwd|api[-_]?key|access[-_]?key|private[-_]?key|credential|cookie|session|signature/i;
const SECRET_VALUE =
  /^(bearer|basic|token)\s+\S{8,}|^(sk|pk|rk)[-_][A-Za-z0-9_-]{12,}|^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|^github_pat_|^glpat-|^xox[abpr]-|^AKIA[0-9A-Z]{16}$|^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./i;
/** `--token`, `--api-key=…`: an argument naming a secret (the value is the next argument, or after `=`). */
const SECRET_FLAG = /^--?[A-Za-z0-9_-]*?(token|secret|passw|pwd|api[-_]?key|access[-_]?key|private[-_]?key|credential)[A-Za-z0-9_-]*$/i;

/** A header or environment variable whose name says it holds a secret (`Authorization`, `*_TOKEN`…), whatever its value. */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);
export const looksSecret = (name: string | undefined, value: string): boolean =>
  value.length > 0 && ((name !== undefined && SECRET_NAME.test(name)) || SECRET_VALUE.test(value.trim()));

/** The mask for one value: never the value, at most its scheme and last four characters. */
export function mask(value: string): string {
  const scheme = /^(bearer|basic|token)\s+/i.exec(value)?.[0] ?? '';
  const rest = value.slice(scheme.length);
  return `${scheme}${SECRET_MASK}${rest.length >= 16 ? rest.slice(-4) : ''}`;
}

/** A value's masked form, or itself when it does not look secret. */
type Masker = (value: string) => string;

export interface MaskedEntry {
  entry: McpServerEntry;
  /** Paths of the masked values: `env.NAME`, `headers.Name`, `args.3`, `url`. */
  masked: string[];
}

/** The entry with every secret-looking value masked, for every view. */
export function maskEntry(entry: McpServerEntry): MaskedEntry {
  const masked: string[] = [];
  const out: McpServerEntry = { ...entry };
  const maskRecord = (field: 'env' | 'headers') => {
    const record = entry[field];
    if (!record) return;
    out[field] = Object.fromEntries(
      Object.entries(record).map(([name, value]) => {
        if (!looksSecret(name, value)) return [name, value];
        masked.push(`${field}.${name}`);
        return [name, mask(value)];
      }),
    );
  };
  maskRecord('env');
  maskRecord('headers');
  if (entry.args) {
    out.args = entry.args.map((arg, index) => {
      const shown = maskArgument(arg, entry.args![index - 1], mask);
      if (shown !== arg) masked.push(`args.${index}`);
      return shown;
    });
  }
  if (entry.oauth?.clientSecret) {
    masked.push('oauth.clientSecret');
    out.oauth = { ...entry.oauth, clientSecret: mask(entry.oauth.clientSecret) };
  }
  if (entry.url) {
    const shown = maskUrl(entry.url, mask);
    if (shown !== entry.url) {
      masked.push('url');
      out.url = shown;
    }
  }
  return { entry: out, masked };
}

/**
 * The entry to save: each value that comes back exactly as the view showed it keeps the stored
 * value at the same place; a value containing the mask anywhere else is refused.
 */
export function unmaskEntry(incoming: McpServerEntry, stored: McpServerEntry | undefined): McpServerEntry {
  const shown = stored ? maskEntry(stored).entry : undefined;
  const keep = (path: string, value: string, shownValue: string | undefined, storedValue: string | undefined): string => {
    if (!isMasked(value)) return value;
    if (shownValue !== undefined && storedValue !== undefined && value === shownValue && shownValue !== storedValue) return storedValue;
    throw new CapstanError('BAD_REQUEST', `${path}: a masked value can only be sent back unchanged, to keep the stored one; type the whole new value`, {
      field: path,
    });
  };
  const out: McpServerEntry = { ...incoming };
  for (const field of ['env', 'headers'] as const) {
    const record = incoming[field];
    if (record) out[field] = Object.fromEntries(Object.entries(record).map(([name, value]) => [name, keep(`${field}.${name}`, value, shown?.[field]?.[name], stored?.[field]?.[name])]));
  }
  if (incoming.args) out.args = incoming.args.map((arg, index) => keep(`args.${index}`, arg, shown?.args?.[index], stored?.args?.[index]));
  if (incoming.url) out.url = keep('url', incoming.url, shown?.url, stored?.url);
  if (incoming.oauth?.clientSecret) {
    out.oauth = { ...incoming.oauth, clientSecret: keep('oauth.clientSecret', incoming.oauth.clientSecret, shown?.oauth?.clientSecret, stored?.oauth?.clientSecret) };
  }
  return out;
}

/** secretValues by entry: entries are replaced, never changed in place, and the protocol view asks for every message. */
const secretsOfEntry = new WeakMap<McpServerEntry, readonly string[]>();

/** Every secret value an entry holds, so they can be masked wherever else they turn up (stderr, error messages); longest first. */
export function secretValues(entry: McpServerEntry): readonly string[] {
  let found = secretsOfEntry.get(entry);
  if (!found) secretsOfEntry.set(entry, (found = Object.freeze(longestFirst(collectSecrets(entry)))));
  return found;
}

/** Secrets in the order `redact` needs them: one inside another must not be masked first, leaving pieces of the longer. */
export const longestFirst = (secrets: string[]): string[] => secrets.sort((a, b) => b.length - a.length);

function collectSecrets(entry: McpServerEntry): string[] {
  const found: string[] = [];
  const collect: Masker = (value) => {
    found.push(value);
    return value;
  };
  for (const [name, value] of [...Object.entries(entry.env ?? {}), ...Object.entries(entry.headers ?? {})]) {
    if (looksSecret(name, value)) found.push(value.replace(/^(bearer|basic|token)\s+/i, ''));
  }
  entry.args?.forEach((arg, index) => maskArgument(arg, entry.args![index - 1], collect));
  if (entry.url) maskUrl(entry.url, collect);
  if (entry.oauth?.clientSecret) found.push(entry.oauth.clientSecret);
  return found.filter((value) => value.length >= MIN_SECRET_CHARS);
}

export function redact(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) if (secret.length >= MIN_SECRET_CHARS) redacted = redacted.replaceAll(secret, SECRET_MASK);
  return redacted;
}

/**
 * `redact` over every string in a JSON value, keys included: a server's answer or error may quote
 * a credential it was sent. The same value when nothing needed masking, so that an answer without
 * secrets costs a walk and no copy.
 */
export function redactJson<T>(value: T, secrets: readonly string[]): T {
  return secrets.length === 0 || !quotes(value, secrets) ? value : masked(value, secrets);
}

/** Whether any string in the value (keys too) holds a secret: a walk that makes nothing. */
function quotes(value: unknown, secrets: readonly string[]): boolean {
  if (typeof value === 'string') return secrets.some((secret) => secret.length >= MIN_SECRET_CHARS && value.includes(secret));
  if (Array.isArray(value)) return value.some((item) => quotes(item, secrets));
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) if (Object.hasOwn(value, key) && (quotes(key, secrets) || quotes((value as Record<string, unknown>)[key], secrets))) return true;
  return false;
}

function masked<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => masked(item, secrets));
    return items.some((item, index) => item !== value[index]) ? (items as T) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const pair: [string, unknown] = [redact(key, secrets), masked(item, secrets)];
    changed ||= pair[0] !== key || pair[1] !== item;
    return pair;
  });
  return changed ? (Object.fromEntries(entries) as T) : value;
}

/**
 * `redact`, then cut to `max` characters with an ellipsis: masked before the cut, so that a cut
 * through a secret cannot leave a piece of it that no longer matches. Text of any length: only
 * as much is masked as can show, with room for the longest secret to end. `openEnded`: the text
 * stops before its end (a line still being written), see redactOpenEnded.
 */
export function redactClipped(text: string, secrets: readonly string[], max: number, { openEnded = false } = {}): string {
  const room = max + Math.max(0, ...secrets.map((secret) => secret.length));
  const cut = text.length > room;
  const redacted = cut || openEnded ? redactOpenEnded(cut ? text.slice(0, room) : text, secrets) : redact(text, secrets);
  return cut || redacted.length > max ? `${redacted.slice(0, max)}…` : redacted;
}

/**
 * `redact` for text that stops before its end (a line still being written, or cut): a secret it
 * stops partway through is masked too, since the rest of it is not there to be matched. A piece
 * shorter than OPEN_PIECE_CHARS is left, or any text ending in a secret's first letter would be.
 */
export function redactOpenEnded(text: string, secrets: readonly string[]): string {
  const redacted = redact(text, secrets);
  let cut = redacted.length;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_CHARS) continue;
    for (let size = Math.min(secret.length - 1, redacted.length); size >= OPEN_PIECE_CHARS; size--) {
      if (redacted.length - size < cut && redacted.endsWith(secret.slice(0, size))) {
        cut = redacted.length - size;
        break;
      }
    }
  }
  return cut === redacted.length ? redacted : `${redacted.slice(0, cut)}${SECRET_MASK}`;
}

function maskArgument(arg: string, previous: string | undefined, masker: Masker): string {
  const assigned = /^(--?[^=\s]+)=(.*)$/s.exec(arg);
  if (assigned && SECRET_FLAG.test(assigned[1]!) && assigned[2]) return `${assigned[1]}=${masker(assigned[2])}`;
  if ((previous !== undefined && SECRET_FLAG.test(previous)) || looksSecret(undefined, arg)) return masker(arg);
  return arg;
}

/** Masks a URL's password and secret query values in its own text (the URL API would percent-encode the mask). */
function maskUrl(value: string, masker: Masker): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  let shown = value;
  if (url.password) shown = shown.replace(`:${url.password}@`, `:${masker(url.password)}@`);
  const queryAt = shown.indexOf('?');
  if (queryAt < 0) return shown;
  const hashAt = shown.indexOf('#', queryAt);
  const query = shown.slice(queryAt + 1, hashAt < 0 ? undefined : hashAt);
  const pairs = query.split('&').map((pair) => {
    const [name = '', ...rest] = pair.split('=');
    const param = rest.join('=');
    return param && looksSecret(safeDecode(name), safeDecode(param)) ? `${name}=${masker(param)}` : pair;
  });
  return `${shown.slice(0, queryAt + 1)}${pairs.join('&')}${hashAt < 0 ? '' : shown.slice(hashAt)}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
