/**
 * The gateway's side of the API contract: one handler per operation, and the dispatch that
 * every transport (HTTP routes, IPC channels) goes through, validating input on the way in.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  operations,
  REQUEST_ID_PATTERN,
  type OperationName,
  type OperationOutput,
  type Operations,
} from '../../shared/api';
import { CapstanError } from '../../shared/errors';
import type { Catalog } from '../catalog/catalog';
import type { Database } from '../store/database';
import { readConsoleSettings, writeConsoleSettings } from '../store/settings';
import type { Confirmations } from './confirmations';
import { createToolCaller, type CallContext } from './toolCalls';

export type { CallContext };

export type ApiHandlers = {
  [K in OperationName]: (input: z.output<Operations[K]['input']>, context: CallContext) => Promise<OperationOutput<K>>;
};

export function createApiHandlers(parts: { db: Database; catalog: Catalog; confirmations: Confirmations }): ApiHandlers {
  const callTool = createToolCaller(parts);
  return {
    listTools: async () => ({ generation: parts.catalog.generation, tools: parts.catalog.list() }),
    callTool: (input, context) => callTool(input, context),
    getSettings: async () => readConsoleSettings(parts.db),
    saveSettings: async (input) => writeConsoleSettings(parts.db, input),
  };
}

/** Validates a transport's raw input against the contract, then runs the operation. */
export async function dispatch<K extends OperationName>(
  handlers: ApiHandlers,
  operation: K,
  rawInput: unknown,
  context: CallContext,
): Promise<OperationOutput<K>> {
  const parsed = operations[operation].input.safeParse(rawInput);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new CapstanError('BAD_REQUEST', `BAD_REQUEST: ${where}${issue?.message ?? 'invalid input'}`);
  }
  const handler = handlers[operation] as (input: unknown, context: CallContext) => Promise<OperationOutput<K>>;
  return handler(parsed.data, context);
}

/** The client's requestId when it is well formed, else a fresh one. */
export function resolveRequestId(candidate: unknown): string {
  return typeof candidate === 'string' && REQUEST_ID_PATTERN.test(candidate) ? candidate : `req-${randomUUID()}`;
}
