/**
 * How an operation travels over HTTP, for every client of the contract (the console's HTTP
 * transport, the CLI): its route's method and path with the parameters filled in, a GET's input
 * as the query string and any other input as the JSON body, as the gateway's routes read them.
 */
import { operations, type OperationInput, type OperationName } from './api';

/** One operation's HTTP request: what the gateway's route for it reads. */
export interface OperationRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: URL;
  /** The JSON body, or null for a GET or an operation without input. */
  body: string | null;
}

export function operationRequest<K extends OperationName>(baseUrl: string, operation: K, input: OperationInput<K>): OperationRequest {
  const { method, path } = operations[operation];
  const url = new URL(withPathParams(path, input), baseUrl);
  // GET operations take their (flat) input as the query string, as the gateway reads it, but
  // for the fields the path already carries (`/mcp-servers/:name/log`): the gateway merges them.
  if (method === 'GET' && input !== undefined) url.search = queryString(withoutPathParams(path, input));
  return { method, url, body: method === 'GET' || input === undefined ? null : JSON.stringify(input) };
}

/**
 * Fills a route's parameters (`/tasks/:id/cancel`) from the input's fields of the same name.
 * The fields stay in the body too: the gateway merges path and body, and the schema wants them.
 */
export function withPathParams(path: string, input: unknown): string {
  const fields = (input ?? {}) as Record<string, unknown>;
  return path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(fields[name] ?? '')));
}

function withoutPathParams(path: string, input: unknown): Record<string, unknown> {
  const fields = { ...(input as Record<string, unknown>) };
  for (const [, name] of path.matchAll(/:(\w+)/g)) delete fields[name!];
  return fields;
}

/** A flat input as a query string; absent (undefined) fields are left out rather than sent as "undefined". */
export function queryString(input: unknown): string {
  const entries = Object.entries(input as Record<string, unknown>).filter(([, value]) => value !== undefined);
  return new URLSearchParams(entries.map(([key, value]): [string, string] => [key, String(value)])).toString();
}
