/**
 * RJSF's validator, backed by the console's own argument check (argumentCheck.ts) instead of
 * @rjsf/validator-ajv8: Ajv compiles schemas to code, which the CSP forbids, and RJSF asks its
 * validator even with validation off (to pick a oneOf/anyOf option or follow an `if`). Errors
 * come out as the same problems the page shows on fields and the gateway would raise.
 */
import { ErrorSchemaBuilder, type ErrorSchema, type RJSFSchema, type RJSFValidationError, type ValidationData, type ValidatorType } from '@rjsf/utils';
import type { ArgumentProblem } from '../../../shared/argumentRules';
import { checkArguments } from './argumentCheck';

/** The problems as RJSF's error schema, each shown on its field as "<field> <message>". */
export function toErrorSchema(problems: readonly ArgumentProblem[]): ErrorSchema {
  const builder = new ErrorSchemaBuilder();
  for (const problem of problems) builder.addErrors(`${problem.field} ${problem.message}`, problem.path.length ? [...problem.path] : undefined);
  return builder.ErrorSchema;
}

/** A part of the schema, checked on its own: the root's definitions come along for its `$ref`s. */
function withRootDefinitions(schema: RJSFSchema, rootSchema: RJSFSchema | undefined): Record<string, unknown> {
  if (!rootSchema || rootSchema === schema) return schema as Record<string, unknown>;
  const root = rootSchema as Record<string, unknown>;
  const part = schema as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...part };
  if (root.$schema !== undefined && part.$schema === undefined) merged.$schema = root.$schema;
  for (const key of ['$defs', 'definitions'] as const) {
    if (typeof root[key] === 'object' && root[key] !== null) merged[key] = { ...(root[key] as object), ...((part[key] as object | undefined) ?? {}) };
  }
  return merged;
}

export const argumentValidator: ValidatorType = {
  validateFormData(formData, schema): ValidationData<unknown> {
    const problems = checkArguments(schema as Record<string, unknown>, formData ?? {});
    const errors: RJSFValidationError[] = problems.map((problem) => ({
      name: problem.code,
      message: problem.message,
      property: problem.path.length ? `.${problem.path.join('.')}` : '',
      stack: `${problem.field} ${problem.message}`,
    }));
    return { errors, errorSchema: toErrorSchema(problems) };
  },
  isValid(schema, formData, rootSchema) {
    if (typeof schema !== 'object' || schema === null) return schema !== false;
    return checkArguments(withRootDefinitions(schema, rootSchema), formData ?? null).length === 0;
  },
  rawValidation(schema, formData) {
    const problems = checkArguments(schema as Record<string, unknown>, formData ?? {});
    return { errors: problems.length ? (problems as never[]) : undefined };
  },
};
