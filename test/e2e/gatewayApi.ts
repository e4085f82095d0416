/** Another client of the same gateway: the test itself, over HTTP with the token, as curl or a script would be. */
import type { CapstanServer } from './capstanServer';

export async function gatewayApi<T = unknown>(capstan: CapstanServer, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${capstan.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${capstan.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const answer = (await response.json()) as T;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

export interface TaskAnswer {
  id: string;
  title: string;
  state: string;
}
