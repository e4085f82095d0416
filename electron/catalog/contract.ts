/**
 * Turns provider definitions into validated, normalized contracts with their hashes, and holds
 * the compiled argument validators the gateway runs on every call.
 */
import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import addFormats from 'ajv-formats';
import {
  CHECKED_FORMATS,
  fieldName,
  MAX_SCHEMA_DEPTH,
  nestedDeeperThan,
  NOT_ACCEPTED,
  patternMatcher,
  schemaDialect,
  UNREAD_DIALECT,
  unescapePointer,
  type SchemaDialect,
} from '../../shared/argumentRules';
import { CAPABILITY_NAME_PATTERN, capabilityId, type CapabilityContract, type SkillContract, type ToolContract } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import { sha256Hex } from './digest';
import type { SkillSource } from './provider';
import type { ToolDefinition } from './tool';

/**
 * How every compiler here evaluates `pattern` and `patternProperties`: RE2, linear in the
 * value whatever the pattern (shared/argumentRules.ts patternMatcher), instead of Ajv's default
 * `new RegExp`, which backtracks. A pattern RE2 cannot take throws while the schema compiles,
 * so its tool becomes a diagnostic. (`code` names it in Ajv's standalone output, which Capstan
 * does not use.)
 */
export const RE2_ENGINE: RegExpEngine = Object.assign((pattern: string) => patternMatcher(pattern), { code: 'patternMatcher' });

/**
 * Capstan's own schemas: strict JSON Schema 2020-12, an unknown keyword is a mistake. The
 * formats are ajv-formats' set but `url`, which the console checks with too (shared/argumentRules.ts).
 */
export function createSchemaCompiler(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: false, useDefaults: false, code: { regExp: RE2_ENGINE } });
  addFormats.default(ajv, CHECKED_FORMATS);
  return ajv;
}

/**
 * Schemas written elsewhere (MCP servers): compiled in the dialect their `$schema` names, with
 * unknown keywords and formats ignored (JSON Schema's own rule) rather than refused, and their
 * `$id`s kept out of the shared registry so two servers (or two listings) cannot collide. A
 * fresh set per provider load, so the validators of replaced tools go with them.
 */
export class ExternalSchemaCompilers {
  readonly #compilers = new Map<string, Ajv | Ajv2019 | Ajv2020>();

  compile(schema: Record<string, unknown>): ValidateFunction {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : undefined;
    const dialect = schemaDialect(declared);
    if (!dialect) throw new Error(UNREAD_DIALECT(declared));
    // Draft-04 and -06 read as draft-07, their nearest compiler; the schema itself is kept as sent.
    const { $schema: _dropped, ...rest } = schema;
    return this.#compiler(dialect).compile(dialect === 'draft-07' && !declared?.includes('draft-07') ? rest : schema);
  }

  #compiler(dialect: SchemaDialect): Ajv | Ajv2019 | Ajv2020 {
    let compiler = this.#compilers.get(dialect);
    if (!compiler) {
      const options: Options = { strict: false, allErrors: false, useDefaults: false, addUsedSchema: false, logger: false, code: { regExp: RE2_ENGINE } };
      compiler = dialect === '2020-12' ? new Ajv2020(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv(options);
      addFormats.default(compiler, CHECKED_FORMATS);
      this.#compilers.set(dialect, compiler);
    }
    return compiler;
  }
}

/** SHA-256 of the contract's canonical JSON (RFC 8785): any change to it changes the hash. */
export const contractHash = (contract: CapabilityContract): string => sha256Hex(contract);

export interface CompiledTool {
  contract: ToolContract;
  definition: ToolDefinition;
  validateArguments: ValidateFunction;
}

export class ContractError extends Error {}

export function toolContract(
  ajv: Ajv2020,
  provider: string,
  definition: ToolDefinition,
  external: ExternalSchemaCompilers = new ExternalSchemaCompilers(),
): CompiledTool {
  const problem = (reason: string) => new ContractError(`tool "${definition.name}" is invalid: ${reason}`);
  if (!CAPABILITY_NAME_PATTERN.test(definition.name)) throw problem('name must be 1-128 of [A-Za-z0-9_.-]');
  if (!definition.description.trim()) throw problem('description is empty');
  if (definition.inputSchema.type !== 'object') throw problem('inputSchema must describe an object');
  // Before anything recurses through them (the compiler, the contract's hash, the validator on every call).
  for (const [part, schema] of [['inputSchema', definition.inputSchema], ['outputSchema', definition.outputSchema]] as const) {
    if (nestedDeeperThan(schema, MAX_SCHEMA_DEPTH)) throw problem(`${part} nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  let validateArguments: ValidateFunction;
  try {
    validateArguments = definition.externalSchema ? external.compile(definition.inputSchema) : ajv.compile(definition.inputSchema);
  } catch (error) {
    throw problem(`inputSchema does not compile: ${(error as Error).message}`);
  }
  const { name, title, description, riskLevel, needConfirm, mutating, inputSchema, returnExample, tags } = definition;
  // Only tools from outside carry these, so builtin contracts (and their hashes) stay as they were.
  // Icons and the not-runnable pair only when there are some, so other MCP contracts keep their hashes.
  const fromOutside =
    definition.declared === undefined
      ? {}
      : {
          outputSchema: definition.outputSchema ?? null,
          declared: definition.declared,
          tightenedBy: [],
          deprecated: definition.deprecated ?? false,
          ...(definition.icons?.length ? { icons: definition.icons } : {}),
          ...(definition.meta && Object.keys(definition.meta).length > 0 ? { meta: definition.meta } : {}),
          ...(definition.notRunnable ? { runnable: false as const, notRunnableReason: definition.notRunnable } : {}),
        };
  return {
    contract: {
      id: capabilityId(provider, name),
      kind: 'tool',
      provider,
      name,
      title: title.trim() || name,
      description: description.trim(),
      tags: [...new Set(tags)],
      riskLevel,
      needConfirm,
      mutating,
      modelDiscoverable: definition.modelDiscoverable ?? true,
      inputSchema,
      returnExample,
      ...fromOutside,
    },
    definition,
    validateArguments,
  };
}

export function skillContract(provider: string, source: SkillSource): SkillContract {
  return { ...source.contract, id: capabilityId(provider, source.contract.name), provider, kind: 'skill' };
}

/**
 * Checks call arguments against the contract's schema, raising the seed's error codes. The
 * console runs the same check before it sends (renderer/features/tool-detail/argumentCheck.ts),
 * naming fields the same way.
 */
export function assertValidArguments(tool: Pick<CompiledTool, 'validateArguments'>, args: Record<string, unknown>): void {
  if (tool.validateArguments(args)) return;
  const [error] = tool.validateArguments.errors ?? [];
  throw argumentError(error);
}

function argumentError(error: ErrorObject | undefined): CapstanError {
  if (!error) return new CapstanError('ARGUMENT_INVALID', 'arguments do not match the input schema');
  const path = error.instancePath.split('/').slice(1).map(unescapePointer);
  if (error.keyword === 'required') {
    const field = fieldName([...path, (error.params as { missingProperty: string }).missingProperty]);
    return new CapstanError('ARGUMENT_MISSING', field, { field });
  }
  if (error.keyword === 'additionalProperties') {
    const field = fieldName([...path, (error.params as { additionalProperty: string }).additionalProperty]);
    return new CapstanError('ARGUMENT_INVALID', `${field} ${NOT_ACCEPTED}`, { field });
  }
  const field = fieldName(path);
  return new CapstanError('ARGUMENT_INVALID', `${field} ${error.message ?? 'is invalid'}`, { field });
}
