import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { CapstanError } from '../../../shared/errors';
import { defineTool, ToolArgumentError } from '../../catalog/tool';
import { pinnedLookup, type Addresses, type DestinationPolicy } from './destinations';

const REPORTED_HEADERS = ['content-type', 'content-length', 'server', 'location', 'cache-control', 'last-modified', 'etag'];

interface HttpCheckArgs {
  url: string;
  method?: 'HEAD' | 'GET';
  timeoutMs?: number;
}

/** Why a request failed, in the words an operator searches for (ECONNREFUSED, ENOTFOUND...). */
function failureCode(error: unknown): string {
  const { code, cause, name } = error as { code?: string; cause?: { code?: string }; name?: string };
  return code ?? cause?.code ?? name ?? 'ERROR';
}

/**
 * One request to the checked addresses only. The URL still gives the Host header and the TLS
 * server name, so certificates are verified against the name the operator typed. A fresh
 * connection each time (no agent): no socket from an earlier check is reused, and the latency
 * includes connecting.
 */
function send(target: URL, method: string, addresses: Addresses, signal: AbortSignal): Promise<IncomingMessage> {
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    request(target, { method, agent: false, lookup: pinnedLookup(addresses), signal, headers: { 'user-agent': 'Capstan http_check' } }, resolve)
      .on('error', reject)
      .end();
  });
}

export function httpCheckTool(destinations: DestinationPolicy) {
  return defineTool<HttpCheckArgs>({
    name: 'http_check',
    title: 'HTTP check',
    description:
      'Check whether an HTTP(S) address answers, used for pre-release interface inspection: status, latency and selected headers. Reaches the network, so each call needs confirmation. Refuses loopback, private, link-local and other special-purpose addresses (DESTINATION_REFUSED) unless the operator allows them in config.json (httpCheck.allow); the name is resolved once and the connection goes to the address that was checked. Redirects are not followed.',
    riskLevel: 'medium',
    needConfirm: true,
    mutating: false,
    tags: ['http', 'network', 'health', 'monitoring'],
    inputSchema: {
      type: 'object',
      properties: {
        url: {
          type: 'string',
          format: 'uri',
          pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
          maxLength: 2048,
          description: 'http:// or https:// address, without user:password@',
        },
        method: { type: 'string', enum: ['HEAD', 'GET'], default: 'HEAD' },
        timeoutMs: { type: 'integer', minimum: 100, maximum: 15000, default: 5000 },
      },
      required: ['url'],
      additionalProperties: false,
    },
    returnExample: {
      url: 'https://status.example.com/health',
      method: 'HEAD',
      reachable: true,
      address: '203.0.113.40',
      status: 200,
      statusText: 'OK',
      latencyMs: 84,
      headers: { 'content-type': 'application/json', server: 'nginx', 'cache-control': 'no-store' },
      checkedAt: '2026-11-30T09:15:02.118Z',
    },
    timeoutMs: 20000,
    run: async ({ url, method = 'HEAD', timeoutMs = 5000 }, { signal }) => {
      // The schema's `uri` format is looser than the WHATWG parser the request and the policy use.
      const target = URL.parse(url);
      if (!target) throw new ToolArgumentError('url', 'is not a URL a browser would accept');
      // A check sends no credentials, and refusing them keeps secrets out of every echo of the URL.
      if (target.username || target.password) throw new ToolArgumentError('url', 'must not carry credentials (user:password@)');
      const started = performance.now();
      const checkedAt = new Date().toISOString();
      const latency = () => Math.round(performance.now() - started);
      const timeout = AbortSignal.timeout(timeoutMs);
      const deadline = AbortSignal.any([signal, timeout]);
      try {
        const addresses = await destinations.admit(target.hostname, deadline);
        const response = await send(target, method, addresses, deadline);
        const latencyMs = latency();
        const address = response.socket.remoteAddress;
        // Only the status line and headers matter; do not download the body.
        response.destroy();
        const headers = Object.fromEntries(
          REPORTED_HEADERS.flatMap((name) => {
            const value = response.headers[name];
            return value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]];
          }),
        );
        return { url, method, reachable: true, address, status: response.statusCode, statusText: response.statusMessage, latencyMs, headers, checkedAt };
      } catch (error) {
        // The caller's abort (cancellation, gateway timeout) is a failed call, not a check result;
        // so is a refused destination.
        if (signal.aborted) throw signal.reason;
        if (error instanceof CapstanError) throw error;
        const code = timeout.aborted ? 'TimeoutError' : failureCode(error);
        const message = timeout.aborted ? `no answer within ${timeoutMs} ms` : (error as Error).message;
        return { url, method, reachable: false, error: { code, message }, latencyMs: latency(), checkedAt };
      }
    },
  });
}
