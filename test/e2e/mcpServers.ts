/**
 * Real MCP servers behind the console under test: server-everything, server-filesystem and
 * Capstan's own fixture server (test/support/mcpFixtureServer.ts), each a child process that
 * `capstan serve` starts from config.json. A spec sets them with
 * `test.use({ serveConfig: mcpConfig({ everything: everythingStdio() }) })`.
 */
import type { McpServerEntry } from '../../shared/mcp';
import type { CapstanServer } from './capstanServer';

export { everythingStdio, filesystemStdio, FIXTURE, fixtureStdio, startEverythingHttp } from '../support/mcp';

/** The default grants, and execute on every MCP server's tools (by default they get none). */
export const MCP_GRANTS = [
  { pattern: 'builtin:*', authority: 'execute' },
  { pattern: 'skills:*', authority: 'activate' },
  { pattern: '*', authority: 'execute' },
];

export const mcpConfig = (mcpServers: Record<string, McpServerEntry>, more: Record<string, unknown> = {}) => ({ grants: MCP_GRANTS, mcpServers, ...more });

/** Lets the console run these tools with one click (the operator's whitelist in Settings). */
export async function whitelist(capstan: CapstanServer, names: readonly string[]): Promise<void> {
  await send(capstan, 'PUT', '/settings', { whitelist: ['time_now', 'local_status', ...names] });
}

/** An answer, or the envelope of a refusal. */
export type Answer = Record<string, unknown> & { error?: { code: string; message: string } };

/** Another client's request, answered whatever its status: for the envelope of a refusal. */
export async function send(capstan: CapstanServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Answer }> {
  const response = await fetch(`${capstan.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${capstan.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

/** Waits until the gateway lists the provider in this state (ready: with its tools). */
export async function providerState(capstan: CapstanServer, name: string, state: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await send(capstan, 'GET', '/catalog');
    const provider = (body.providers as { name: string; tools: number; status?: { state: string } }[]).find((info) => info.name === name);
    if (provider?.status?.state === state && (state !== 'ready' || provider.tools > 0)) return;
    if (Date.now() > until) throw new Error(`provider ${name} did not become ${state} within ${timeoutMs} ms (it is ${provider?.status?.state ?? 'absent'})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
