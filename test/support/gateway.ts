/** Starts a real gateway on an ephemeral loopback port over a fresh data dir, capturing its logs. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { HttpGateway } from '../../electron/transports/http';
import { createHost, type Host, type HostOptions } from '../../electron/host';
import { startServer } from '../../electron/server';

export interface TestGateway {
  host: Host;
  gateway: HttpGateway;
  url: string;
  token: string;
  dataDir: string;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  /** fetch against the gateway with the bearer token and JSON body handling. */
  request(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  call(body: unknown): Promise<{ status: number; body: Record<string, unknown> & { error?: Record<string, unknown> }; headers: Headers }>;
  stop(): Promise<void>;
}

export async function startTestGateway(
  options: { dataDir?: string; skillsDirs?: string[]; config?: Record<string, unknown>; host?: Pick<HostOptions, 'openPage' | 'presentSignIn'> } = {},
): Promise<TestGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'capstan-it-'));
  if (options.config) writeFileSync(join(dataDir, 'config.json'), JSON.stringify(options.config));
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const host = await createHost({ dataDir, logger, ...(options.skillsDirs ? { skillsDirs: options.skillsDirs } : {}), ...options.host });
  const token = `test-${randomBytes(12).toString('hex')}`;
  const gateway = await startServer(host, { address: '127.0.0.1', port: 0, token, logger });

  const request: TestGateway['request'] = (path, init = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? null : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });

  return {
    host,
    gateway,
    url: gateway.url,
    token,
    dataDir,
    logs,
    request,
    call: async (body) => {
      const response = await request('/tools/call', { method: 'POST', body });
      return { status: response.status, body: (await response.json()) as never, headers: response.headers };
    },
    stop: async () => {
      await gateway.close();
      await host.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
