/**
 * The Providers panel's rows: every provider of the catalog, joined with its MCP server entry
 * when it has one, and the configured servers the catalog does not list (yet). The catalog's
 * status wins: it is what the tool cards follow, so the panel and the cards never disagree.
 */
import type { ProviderInfo, ProviderKind, ProviderStatus } from '../../../shared/capability';
import type { McpServerView } from '../../../shared/mcp';

export interface ProviderRowModel {
  name: string;
  kind: ProviderKind;
  enabled: boolean;
  status: ProviderStatus | undefined;
  /** The catalog's figures; absent for a configured server the catalog does not list. */
  info: ProviderInfo | undefined;
  /** The config.json entry, for MCP servers (edit, remove). */
  server: McpServerView | undefined;
}

export function providerRows(providers: readonly ProviderInfo[], servers: readonly McpServerView[] | undefined): ProviderRowModel[] {
  const byName = new Map((servers ?? []).map((server) => [server.name, server]));
  const rows: ProviderRowModel[] = providers.map((info) => ({
    name: info.name,
    kind: info.kind,
    enabled: info.enabled,
    status: info.status ?? byName.get(info.name)?.status,
    info,
    server: byName.get(info.name),
  }));
  const listed = new Set(providers.map((info) => info.name));
  for (const server of servers ?? []) {
    if (!listed.has(server.name)) rows.push({ name: server.name, kind: 'mcp', enabled: server.enabled, status: server.status, info: undefined, server });
  }
  return rows;
}
