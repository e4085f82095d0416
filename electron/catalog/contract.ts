/**
 * Turns a provider's tool definition into a validated contract: a checked descriptor plus the
 * compiled argument validator the gateway runs on every call.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ToolDescriptor } from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import type { ToolDefinition } from './tool';

export const CAPABILITY_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export interface ToolContract {
  descriptor: ToolDescriptor;
  definition: ToolDefinition;
  validateArguments: ValidateFunction;
}

export function createSchemaCompiler(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: false, useDefaults: false });
  addFormats.default(ajv);
  return ajv;
}

export function toolContract(ajv: Ajv2020, provider: string, definition: ToolDefinition): ToolContract {
  const problem = (reason: string) => new Error(`${provider} tool "${definition.name}" is invalid: ${reason}`);
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
    descriptor: { name, title, description, riskLevel, needConfirm, mutating, inputSchema, returnExample, provider, tags },
    definition,
    validateArguments,
  };
}

/** Checks call arguments against the contract's schema, raising the seed's error codes. */
export function assertValidArguments(contract: ToolContract, args: Record<string, unknown>): void {
  if (contract.validateArguments(args)) return;
  const [error] = contract.validateArguments.errors ?? [];
  throw argumentError(error);
}

function argumentError(error: ErrorObject | undefined): CapstanError {
  if (!error) return new CapstanError('ARGUMENT_INVALID', 'ARGUMENT_INVALID: arguments do not match the input schema');
  const path = error.instancePath.split('/').slice(1).map(unescapePointer);
  if (error.keyword === 'required') {
    const field = [...path, (error.params as { missingProperty: string }).missingProperty].join('.');
    return new CapstanError('ARGUMENT_MISSING', `ARGUMENT_MISSING: ${field}`, { field });
  }
  if (error.keyword === 'additionalProperties') {
    const field = [...path, (error.params as { additionalProperty: string }).additionalProperty].join('.');
    return new CapstanError('ARGUMENT_INVALID', `ARGUMENT_INVALID: ${field} is not an accepted argument`, { field });
  }
  const field = path.join('.') || '(arguments)';
  return new CapstanError('ARGUMENT_INVALID', `ARGUMENT_INVALID: ${field} ${error.message ?? 'is invalid'}`, { field });
}

const unescapePointer = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');
