/**
 * The rules a tool's arguments are checked by, in one place for the two checkers that apply
 * them: the gateway's (Ajv, electron/catalog/contract.ts), which decides, and the console's
 * (renderer/features/tool-detail/argumentCheck.ts), which tells the operator before a call
 * leaves. They cannot be one engine: Ajv compiles schemas to code with `new Function`, and the
 * console's CSP (`script-src 'self'`, shared/security.ts) forbids that, so the page interprets
 * the schema instead. What they share is everything that is a choice rather than the JSON
 * Schema specification itself: which dialect a schema is read in, which formats are checked
 * and how, and how a failure is named (field and error code).
 *
 * No Node APIs here: the renderer bundles this file.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** The dialects Capstan compiles; draft-04 and -06 are read as draft-07, their nearest. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

/**
 * The dialect a schema's `$schema` names. No `$schema` means 2020-12, the MCP specification's
 * default (and the dialect of Capstan's own tools); undefined means one Capstan does not read.
 */
export function schemaDialect(declared: string | undefined): SchemaDialect | undefined {
  if (declared === undefined || declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  if (/draft-0[467]\b/.test(declared)) return 'draft-07';
  return undefined;
}

export const UNREAD_DIALECT = (declared: string | undefined) =>
  `$schema "${declared}" is not a dialect Capstan reads (draft-04, -06, -07, 2019-09, 2020-12)`;

/**
 * The string formats checked, and how: ajv-formats' "full" set, the very functions the gateway
 * registers with `addFormats(ajv)`. A format not named here is not checked (JSON Schema's own
 * rule for unknown formats; Capstan's builtin schemas may not use one at all, strict mode
 * refuses it). ajv-formats' number formats (int32, float, ...) are left to the gateway.
 */
export const STRING_FORMATS: Readonly<Record<string, (value: string) => boolean>> = Object.fromEntries(
  Object.entries(fullFormats).flatMap(([name, format]) => {
    if (format === true) return [[name, () => true]];
    if (typeof format === 'string') return [];
    const definition = format instanceof RegExp || typeof format === 'function' ? { validate: format } : format;
    if ('type' in definition && definition.type !== undefined && definition.type !== 'string') return [];
    if ('async' in definition && definition.async) return [];
    const { validate } = definition;
    if (validate instanceof RegExp) return [[name, (value: string) => validate.test(value)]];
    if (typeof validate === 'function') return [[name, (value: string) => (validate as (value: string) => unknown)(value) === true]];
    return [];
  }),
);

/** The error codes an argument failure carries (shared/errors.ts documents them). */
export type ArgumentErrorCode = 'ARGUMENT_MISSING' | 'ARGUMENT_INVALID';

/** One reason the arguments would be refused, placed on the value at fault. */
export interface ArgumentProblem {
  code: ArgumentErrorCode;
  /** Where the value at fault is (or, for a missing one, would be): property names and array indexes. */
  path: readonly string[];
  /** The gateway's name for it: the path joined with dots, `(arguments)` for the whole object. */
  field: string;
  /** What is wrong, without the field's name: "is required", "must be at most 200 characters". */
  message: string;
}

export const fieldName = (path: readonly string[]): string => path.join('.') || '(arguments)';

/** A JSON Pointer segment back to the name it encodes (RFC 6901). */
export const unescapePointer = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** The wording both checkers use for a property the schema does not accept. */
export const NOT_ACCEPTED = 'is not an accepted argument';
