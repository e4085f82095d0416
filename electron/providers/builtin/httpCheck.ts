import { defineTool } from '../../catalog/tool';

const REPORTED_HEADERS = ['content-type', 'content-length', 'server', 'location', 'cache-control', 'last-modified', 'etag'];

interface HttpCheckArgs {
  url: string;
  method?: 'HEAD' | 'GET';
  timeoutMs?: number;
}

/** Why a request failed, in the words an operator searches for (ECONNREFUSED, ENOTFOUND...). */
function failureCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as Error).name ?? 'ERROR';
}

export const httpCheckTool = defineTool<HttpCheckArgs>({
  name: 'http_check',
  title: 'HTTP check',
  description:
    'Check whether an HTTP(S) address answers, used for pre-release interface inspection: status, latency and selected headers. Reaches the network, so each call needs confirmation.',
  riskLevel: 'medium',
  needConfirm: true,
  mutating: false,
  tags: ['http', 'network', 'health', 'monitoring'],
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2048, description: 'http:// or https:// address' },
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
    status: 200,
    statusText: 'OK',
    latencyMs: 84,
    headers: { 'content-type': 'application/json', server: 'nginx', 'cache-control': 'no-store' },
    checkedAt: '2026-11-30T09:15:02.118Z',
  },
  timeoutMs: 20000,
  run: async ({ url, method = 'HEAD', timeoutMs = 5000 }, { signal }) => {
    const started = performance.now();
    const checkedAt = new Date().toISOString();
    const latency = () => Math.round(performance.now() - started);
    try {
      const response = await fetch(url, {
        method,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        headers: { 'user-agent': 'Capstan http_check' },
      });
      const latencyMs = latency();
      // Only the status line and headers matter; do not download the body.
      await response.body?.cancel();
      const headers = Object.fromEntries(
        REPORTED_HEADERS.flatMap((name) => {
          const value = response.headers.get(name);
          return value === null ? [] : [[name, value]];
        }),
      );
      return { url, method, reachable: true, status: response.status, statusText: response.statusText, latencyMs, headers, checkedAt };
    } catch (error) {
      // The caller's abort (cancellation, gateway timeout) is a failed call, not a check result.
      if (signal.aborted) throw error;
      const code = failureCode(error);
      const message = code === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      return { url, method, reachable: false, error: { code, message }, latencyMs: latency(), checkedAt };
    }
  },
});
