/**
 * Contracts for what an MCP server offers besides tools: its resources, resource templates and
 * prompts, validated from the objects its server listed (untrusted: each is checked with zod, and
 * one that does not fit becomes a diagnostic, never the whole listing's failure).
 *
 * Naming. A capability id is `<provider>:<name>` with names of [A-Za-z0-9_.-] (shared/capability.ts),
 * and a resource is known by its URI, which fits none of that. Two servers may list the same URI
 * (two copies of one server, `file:///` on two machines), so the URI alone names nothing for sure;
 * the server name in front of every id does, and the name after it is derived from the URI:
 *
 *   <server>:resource.<slug of the URI>-<first 8 hex of SHA-256(URI)>
 *   <server>:template.<slug of the URI template>-<8 hex>
 *   <server>:prompt.<prompt name>            (slug and hash too when the name does not fit)
 *
 * The slug keeps the id readable; the hash keeps it unique (two URIs with one slug, `a/b` and
 * `a-b`, differ there) and stable (it depends on the URI only, not on what else the server lists).
 * The kind prefix keeps a resource, a template and a prompt apart from a tool of the same name and
 * lets a grant pattern name them as a group (`everything:prompt.*`).
 */
import { z } from 'zod';
import {
  CAPABILITY_NAME_PATTERN,
  CapabilityIcon,
  capabilityId,
  type PromptContract,
  type ResourceContract,
  type ResourceTemplateContract,
} from '../../shared/capability';
import { patternMatcher } from '../../shared/argumentRules';
import { sha256Hex } from './digest';
import type { ProviderContents } from './provider';

/** Longest slug kept in a name: the kind prefix, the dash and 8 hex digits still fit in 128. */
const SLUG_MAX = 100;

const Icons = z.array(CapabilityIcon).optional().catch(undefined);
const Meta = z.record(z.string(), z.unknown()).optional().catch(undefined);
const Annotations = z.record(z.string(), z.unknown()).optional().catch(undefined);
const Text = z.string().max(64 * 1024);

const DeclaredResource = z.object({
  uri: z.string().min(1).max(8192),
  name: Text,
  title: Text.optional(),
  description: Text.optional(),
  mimeType: z.string().max(256).optional(),
  size: z.number().nonnegative().optional(),
  icons: Icons,
  annotations: Annotations,
  _meta: Meta,
});

/**
 * The most expressions a URI template may have. Each becomes part of the pattern a URI is
 * matched with (templateMatcher), and a template of hundreds made every read by URI cost seconds
 * of the event loop; real templates have a handful.
 */
export const MAX_TEMPLATE_EXPRESSIONS = 32;

const DeclaredTemplate = z.object({
  uriTemplate: z
    .string()
    .min(1)
    .max(8192)
    .refine((template) => [...template.matchAll(/\{[^}]{1,512}\}/g)].length <= MAX_TEMPLATE_EXPRESSIONS, { message: `has more than ${MAX_TEMPLATE_EXPRESSIONS} expressions` }),
  name: Text,
  title: Text.optional(),
  description: Text.optional(),
  mimeType: z.string().max(256).optional(),
  icons: Icons,
  annotations: Annotations,
  _meta: Meta,
});

const DeclaredPrompt = z.object({
  name: z.string().min(1).max(1024),
  title: Text.optional(),
  description: Text.optional(),
  arguments: z
    .array(z.object({ name: z.string().min(1).max(1024), title: Text.optional(), description: Text.optional(), required: z.boolean().optional() }))
    .max(256)
    .optional(),
  icons: Icons,
  _meta: Meta,
});

export class DeclaredError extends Error {}

/** A readable, allowed-characters form of a URI (or any text), for the name part of an id. */
function slug(text: string): string {
  const plain = text
    .replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, (scheme) => `${scheme.slice(0, -3)}-`)
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return plain.slice(0, SLUG_MAX) || 'x';
}

const hashed = (prefix: string, text: string) => `${prefix}.${slug(text)}-${sha256Hex(text).slice(0, 8)}`;

/** The capability name of a resource with this URI (see the header: why a slug and a hash). */
export const resourceName = (uri: string) => hashed('resource', uri);
export const templateName = (uriTemplate: string) => hashed('template', uriTemplate);
export function promptName(name: string): string {
  const plain = `prompt.${name}`;
  return CAPABILITY_NAME_PATTERN.test(plain) ? plain : hashed('prompt', name);
}

function parse<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const label = typeof (raw as { name?: unknown })?.name === 'string' ? ` "${String((raw as { name: string }).name).slice(0, 100)}"` : '';
  throw new DeclaredError(`${what}${label} is invalid: ${issue?.path.join('.') || 'it'} ${issue?.message ?? 'does not fit'}`);
}

/** What every declared contract shares: shown, searched and counted like a tool, low risk, read only. */
function base(provider: string, name: string, declared: { name: string; title?: string | undefined; description?: string | undefined }, kind: string) {
  const title = declared.title?.trim() || declared.name.trim() || name;
  return {
    id: capabilityId(provider, name),
    provider,
    name,
    title,
    description: declared.description?.trim() || `${title} (the server gave no description)`,
    tags: ['mcp', kind],
    riskLevel: 'low' as const,
    needConfirm: false,
    mutating: false,
    modelDiscoverable: true,
    declaredName: declared.name,
  };
}

/** Icons and `_meta` only when declared, so a contract without them keeps its hash. */
const extras = (declared: { icons?: unknown[] | undefined; _meta?: Record<string, unknown> | undefined; annotations?: Record<string, unknown> | undefined }) => ({
  ...(declared.icons?.length ? { icons: declared.icons as z.infer<typeof CapabilityIcon>[] } : {}),
  ...(declared._meta && Object.keys(declared._meta).length > 0 ? { meta: declared._meta } : {}),
  ...(declared.annotations && Object.keys(declared.annotations).length > 0 ? { annotations: declared.annotations } : {}),
});

export function resourceContract(provider: string, raw: unknown): ResourceContract {
  const declared = parse(DeclaredResource, raw, 'resource');
  return {
    ...base(provider, resourceName(declared.uri), declared, 'resource'),
    kind: 'resource',
    uri: declared.uri,
    mimeType: declared.mimeType ?? null,
    size: declared.size ?? null,
    ...extras(declared),
  };
}

export function resourceTemplateContract(provider: string, raw: unknown): ResourceTemplateContract {
  const declared = parse(DeclaredTemplate, raw, 'resource template');
  return {
    ...base(provider, templateName(declared.uriTemplate), declared, 'template'),
    kind: 'resourceTemplate',
    uriTemplate: declared.uriTemplate,
    variables: templateVariables(declared.uriTemplate),
    mimeType: declared.mimeType ?? null,
    ...extras(declared),
  };
}

export function promptContract(provider: string, raw: unknown): PromptContract {
  const declared = parse(DeclaredPrompt, raw, 'prompt');
  return {
    ...base(provider, promptName(declared.name), declared, 'prompt'),
    kind: 'prompt',
    arguments: (declared.arguments ?? []).map(({ name, title, description, required }) => ({
      name,
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      required: required ?? false,
    })),
    ...extras(declared),
  };
}

/**
 * Every declaration of a provider's listing as a contract, with the descriptor as sent for the
 * ones pinned like tools (services/pins.ts): templates and prompts, whose text a model reads.
 * Resources are not pinned: a server's list of them is data (files come and go), not what it says
 * of itself. A declaration that does not fit is a problem (a diagnostic), never the listing's failure.
 */
export function declaredContracts(
  provider: string,
  { resources = [], resourceTemplates = [], prompts = [] }: Pick<ProviderContents, 'resources' | 'resourceTemplates' | 'prompts'>,
): { contracts: { contract: ResourceContract | ResourceTemplateContract | PromptContract; descriptor?: Record<string, unknown> }[]; problems: string[] } {
  const contracts: { contract: ResourceContract | ResourceTemplateContract | PromptContract; descriptor?: Record<string, unknown> }[] = [];
  const problems: string[] = [];
  const kinds = [
    [resources, resourceContract, false],
    [resourceTemplates, resourceTemplateContract, true],
    [prompts, promptContract, true],
  ] as const;
  for (const [list, contractOf, pinned] of kinds) {
    for (const raw of list) {
      try {
        const contract = contractOf(provider, raw);
        contracts.push(pinned ? { contract, descriptor: raw as Record<string, unknown> } : { contract });
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  return { contracts, problems };
}

/** The variable names of an RFC 6570 template (`{id}`, `{+path}`, `{?a,b*}`, `{x:3}`), each once, in order. */
export function templateVariables(uriTemplate: string): string[] {
  const names: string[] = [];
  for (const [, expression = ''] of uriTemplate.matchAll(/\{([^}]{1,512})\}/g)) {
    for (const part of expression.replace(/^[+#./;?&]/, '').split(',')) {
      const name = part.replace(/(\*|:\d+)$/, '').trim();
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/**
 * Whether a URI is one a template describes. The template is the server's (untrusted), so it is
 * turned into a pattern evaluated in linear time (RE2, shared/argumentRules.ts), never a
 * backtracking RegExp: literal parts must match as written, and each expression takes what its
 * operator may expand to (`{x}` one path segment's characters, `{+x}`/`{#x}` anything, `{?x}`/`{&x}` a query part).
 */
export function templateMatcher(uriTemplate: string): (uri: string) => boolean {
  // Asked for every template a read by URI might mean, at every read: each compiled once.
  let matcher = matchers.get(uriTemplate);
  if (!matcher) {
    if (matchers.size >= MAX_MATCHERS_KEPT) matchers.clear();
    matchers.set(uriTemplate, (matcher = compileTemplate(uriTemplate)));
  }
  return matcher;
}

const matchers = new Map<string, (uri: string) => boolean>();
const MAX_MATCHERS_KEPT = 4096;

function compileTemplate(uriTemplate: string): (uri: string) => boolean {
  const escape = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, (c) => `\\${c}`);
  let pattern = '^';
  let last = 0;
  for (const match of uriTemplate.matchAll(/\{([^}]{1,512})\}/g)) {
    pattern += escape(uriTemplate.slice(last, match.index));
    const operator = match[1]!.charAt(0);
    pattern += operator === '+' || operator === '#' ? '.*' : operator === '?' || operator === '&' ? '(?:[?&][^#]*)?' : operator === '/' ? '(?:/[^?#]*)?' : '[^/?#&]*';
    last = match.index + match[0].length;
  }
  pattern += `${escape(uriTemplate.slice(last))}$`;
  try {
    const matcher = patternMatcher(pattern);
    return (uri) => matcher.test(uri);
  } catch {
    return () => false;
  }
}
