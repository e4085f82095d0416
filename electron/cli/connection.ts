/**
 * Which gateway an operator command talks to, and with what token: `--url` (or CAPSTAN_URL),
 * else the gateway running for the data dir (`<data dir>/gateway.json`, as `capstan mcp` and
 * `capstan harn` find it; never started from here). The token is the operator's, from
 * `--token-file`, CAPSTAN_TOKEN_FILE or CAPSTAN_TOKEN, as for `capstan serve`.
 */
import { liveGateway } from './localGateway';
import { defaultDataDir } from '../paths';
import { readTokenFile, UsageError } from '../server';
import { EXIT, OperatorError } from './errors';

export interface ConnectionFlags {
  url?: string | undefined;
  'token-file'?: string | undefined;
  'data-dir'?: string | undefined;
}

/** The parseArgs options every operator command takes. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

export interface Answer {
  status: number;
  /** The JSON body; a body that is not JSON is an error before it gets here. */
  body: Record<string, unknown>;
}

export interface Gateway {
  url: string;
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer>;
}

export async function connect(flags: ConnectionFlags, command: string): Promise<Gateway> {
  const warn = (message: string) => void process.stderr.write(`capstan ${command}: warning: ${message}\n`);
  const tokenFile = flags['token-file'] ?? (process.env.CAPSTAN_TOKEN_FILE || undefined);
  const token = tokenFile ? readTokenFile({ value: tokenFile, from: flags['token-file'] ? '--token-file' : 'CAPSTAN_TOKEN_FILE' }, warn) : process.env.CAPSTAN_TOKEN;
  if (!token) throw new UsageError("give the gateway's operator token with --token-file FILE or CAPSTAN_TOKEN");
  const dataDir = flags['data-dir'] ?? (process.env.CAPSTAN_DATA_DIR || defaultDataDir());
  const url = flags.url ?? (process.env.CAPSTAN_URL || (await liveGateway(dataDir))?.url);
  if (!url) {
    throw new OperatorError(`no gateway is running for ${dataDir}; start \`capstan serve\`, or give --url`, EXIT.unreachable, 'GATEWAY_UNREACHABLE');
  }
  return {
    url,
    request: async (method, path, body) => {
      let response: Response;
      try {
        response = await fetch(new URL(path, url), {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? null : JSON.stringify(body),
        });
      } catch (error) {
        const why = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        // After a POST the call may have run: the ledger, not this message, can tell.
        const maybe = method === 'POST' ? '; the call may or may not have run (look it up in the ledger)' : '';
        throw new OperatorError(`the gateway at ${url} did not answer (${why})${maybe}`, EXIT.unreachable, 'GATEWAY_UNREACHABLE');
      }
      const text = await response.text();
      try {
        return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
      } catch {
        throw new OperatorError(`${url} answered HTTP ${response.status} with a body that is not JSON: is it a Capstan gateway?`, EXIT.failed);
      }
    },
  };
}

/** The gateway's error envelope as an OperatorError (exit 1), or the body when the answer is a success. */
export function expectOk(answer: Answer): Record<string, unknown> {
  if (answer.status < 400) return answer.body;
  const error = answer.body.error as { code?: string; message?: string } | undefined;
  throw new OperatorError(error?.message ?? `HTTP ${answer.status}`, EXIT.failed, error?.code ?? `HTTP_${answer.status}`);
}
