/**
 * `<data dir>/gateway.json`: how a local client (`capstan mcp`, `capstan call`) finds the gateway
 * of a data dir. It holds `{ url, pid, startedAt }`, written owner-only when a gateway starts
 * listening and removed when it closes, and no token: whoever connects brings their own, so
 * reading it grants nothing. The server writes it (server.ts), the CLI reads it (cli/localGateway.ts).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GATEWAY_FILE = 'gateway.json';

export interface GatewayFile {
  url: string;
  pid: number;
  startedAt: string;
}

/** Announces a listening gateway; the returned function withdraws the file if it is still this process's. */
export function writeGatewayFile(dataDir: string, url: string): () => void {
  const path = join(dataDir, GATEWAY_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() } satisfies GatewayFile)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  return () => {
    if (readGatewayFile(dataDir)?.pid === process.pid) rmSync(path, { force: true });
  };
}

/** The file's content, or undefined when it is absent or unreadable. */
export function readGatewayFile(dataDir: string): GatewayFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, GATEWAY_FILE), 'utf8')) as Partial<GatewayFile>;
    return typeof parsed.url === 'string' && Number.isInteger(parsed.pid) ? (parsed as GatewayFile) : undefined;
  } catch {
    return undefined;
  }
}

