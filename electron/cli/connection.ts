/**
 * Which gateway a command talks to, and with what token, for every command that talks to a
 * running gateway over its API (`tools`, `call`, `tasks`, `harn run`): `--url` (or CAPSTAN_URL),
 * else the gateway running for the data dir (`<data dir>/gateway.json`, as `capstan mcp` finds
 * it; never started from here). The token is the operator's, from `--token-file`,
 * CAPSTAN_TOKEN_FILE or CAPSTAN_TOKEN, as for `capstan serve`. The requests themselves are
 * client.ts's, loaded only by a command that connects (`capstan mcp` reads its token here too,
 * and relays over MCP instead, without the contract's schemas).
 */
import { defaultDataDir } from '../paths';
import { readTokenFile, UsageError } from '../server';
import type { Client } from './client';
import { EXIT, OperatorError } from './errors';
import { liveGateway } from './localGateway';
import { err } from './terminal';

export interface ConnectionFlags {
  url?: string | undefined;
  'token-file'?: string | undefined;
  'data-dir'?: string | undefined;
}

/** The parseArgs options every command that connects takes. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

/**
 * The token from `--token-file`, CAPSTAN_TOKEN_FILE or CAPSTAN_TOKEN (a file's looseness is
 * warned about); `missing` is the usage error when there is none.
 */
export function readToken(flags: Pick<ConnectionFlags, 'token-file'>, command: string, missing: string): string {
  return readTokenFrom(flags, command, missing).token;
}

/** The token and where it came from (`--token-file FILE`, `CAPSTAN_TOKEN_FILE (FILE)`, `CAPSTAN_TOKEN`), for a refusal to name. */
export function readTokenFrom(flags: Pick<ConnectionFlags, 'token-file'>, command: string, missing: string): { token: string; from: string } {
  const warn = (message: string) => err(`capstan ${command}: warning: ${message}\n`);
  const tokenFile = flags['token-file'] ?? (process.env.CAPSTAN_TOKEN_FILE || undefined);
  const token = tokenFile ? readTokenFile({ value: tokenFile, from: flags['token-file'] ? '--token-file' : 'CAPSTAN_TOKEN_FILE' }, warn) : process.env.CAPSTAN_TOKEN;
  if (!token) throw new UsageError(missing);
  const from = !tokenFile ? 'CAPSTAN_TOKEN' : flags['token-file'] ? `--token-file ${tokenFile}` : `CAPSTAN_TOKEN_FILE (${tokenFile})`;
  return { token, from };
}

/** The data dir a command works on: `--data-dir`, CAPSTAN_DATA_DIR or the per-user default. */
export const dataDirOf = (flags: Pick<ConnectionFlags, 'data-dir'>): string => flags['data-dir'] ?? (process.env.CAPSTAN_DATA_DIR || defaultDataDir());

/** The client of the gateway the flags name, under the operator's token; nothing is sent yet. */
export async function connect(flags: ConnectionFlags, command: string): Promise<Client> {
  const { token, from } = readTokenFrom(flags, command, "no token was given: give the gateway's token, the operator's, with --token-file FILE or CAPSTAN_TOKEN");
  const [url, { createClient }] = await Promise.all([gatewayUrl(flags), import('./client')]);
  return createClient(url, token, from);
}

async function gatewayUrl(flags: ConnectionFlags): Promise<string> {
  const url = flags.url ?? (process.env.CAPSTAN_URL || undefined);
  if (url) return url;
  const dataDir = dataDirOf(flags);
  const running = await liveGateway(dataDir);
  if (!running) {
    throw new OperatorError(`no gateway is running for ${dataDir}; start \`capstan serve\`, or give --url`, EXIT.unreachable, 'GATEWAY_UNREACHABLE');
  }
  return running.url;
}
