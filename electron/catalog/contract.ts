/**
 * Turns provider definitions into validated, normalized contracts with their hashes, and holds
 * the compiled argument validators the gateway runs on every call.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { CAPABILITY_NAME_PATTERN, capabilityId, type SkillContract, type ToolContract } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import { sha256Hex } from './digest';
import type { SkillSource } from './provider';
import type { ToolDefinition } from './tool';

export function createSchemaCompiler(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: false, useDefaults: false });
  addFormats.default(ajv);
  return ajv;
}

/** SHA-256 of the contract's canonical JSON (RFC 8785): any change to it changes the hash. */
export const contractHash = (contract: ToolContract | SkillContract): string => sha256Hex(contract);

export interface CompiledTool {
  contract: ToolContract;
  definition: ToolDefinition;
  validateArguments: ValidateFunction;
}

export class ContractError extends Error {}

export function toolContract(ajv: Ajv2020, provider: string, definition: ToolDefinition): CompiledTool {
  const problem = (reason: string) => new ContractError(`tool "${definition.name}" is invalid: ${reason}`);
  if (!CAPABILITY_NAME_PATTERN.test(definition.name)) throw problem('name must be 1-128 of [A-Za-z0-9_.-]');
  if (!definition.description.trim()) throw problem('description is empty');
  if (definition.inputSchema.type !== 'object') throw problem('inputSchema must describe an object');
  let validateArguments: ValidateFunction;
  try {
    validateArguments = ajv.compile(definition.inputSchema);
  } catch (error) {
    throw problem(`inputSchema does not compile: ${(error as Error).message}`);
  }
  const { name, title, description, riskLevel, needConfirm, mutating, inputSchema, returnExample, tags } = definition;
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
    },
    definition,
    validateArguments,
  };
}

export function skillContract(provider: string, source: SkillSource): SkillContract {
  return { ...source.contract, id: capabilityId(provider, source.contract.name), provider, kind: 'skill' };
}

/** Checks call arguments against the contract's schema, raising the seed's error codes. */
export function assertValidArguments(tool: Pick<CompiledTool, 'validateArguments'>, args: Record<string, unknown>): void {
  if (tool.validateArguments(args)) return;
  const [error] = tool.validateArguments.errors ?? [];
  throw argumentError(error);
}

function argumentError(error: ErrorObject | undefined): CapstanError {
  if (!error) return new CapstanError('ARGUMENT_INVALID', 'arguments do not match the input schema');
  const path = error.instancePath.split('/').slice(1).map(unescapePointer);
  if (error.keyword === 'required') {
    const field = [...path, (error.params as { missingProperty: string }).missingProperty].join('.');
    return new CapstanError('ARGUMENT_MISSING', `${field}`, { field });
  }
  if (error.keyword === 'additionalProperties') {
    const field = [...path, (error.params as { additionalProperty: string }).additionalProperty].join('.');
    return new CapstanError('ARGUMENT_INVALID', `${field} is not an accepted argument`, { field });
  }
  const field = path.join('.') || '(arguments)';
  return new CapstanError('ARGUMENT_INVALID', `${field} ${error.message ?? 'is invalid'}`, { field });
}

const unescapePointer = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');
