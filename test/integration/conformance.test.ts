/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance) against /mcp, for the
 * server scenarios that need none of its own fixture tools: the 2025 handshake, ping, tools/list
 * and DNS-rebinding protection, and with the 2026-07-28 suite tools/list, DNS rebinding, the
 * request-header validation and the stateless architecture. The runner cannot send an
 * Authorization header, so it talks to a loopback proxy that adds the token; the gateway's auth
 * stays as it is. Everything runs on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthProxy, type AuthProxy } from '../support/authProxy';
import { startTestGateway, type TestGateway } from '../support/gateway';

const RUNNER = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
const results = mkdtempSync(join(tmpdir(), 'capstan-conformance-'));

/**
 * server-stateless checks that drive the runner's own diagnostic tools (test_missing_capability,
 * test_streaming_elicitation, test_logging_tool): Capstan does not serve them, and the runner
 * reports each as "Not testable". Every other check of every scenario must pass.
 */
const NEEDS_FIXTURE_TOOLS = new Set([
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
]);

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

let gw: TestGateway;
let proxy: AuthProxy;

beforeAll(async () => {
  gw = await startTestGateway();
  proxy = await startAuthProxy(gw.url, gw.token);
});
afterAll(async () => {
  await proxy.close();
  await gw.stop();
  rmSync(results, { recursive: true, force: true });
});

/** Runs one scenario and returns the checks it recorded. */
async function conformance(scenario: string, specVersion?: string): Promise<Check[]> {
  const output = join(results, `${scenario}-${specVersion ?? 'default'}`);
  const args = [RUNNER, 'server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '-o', output, ...(specVersion ? ['--spec-version', specVersion] : [])];
  const log = await new Promise<string>((resolve) => execFile(process.execPath, args, { timeout: 90_000 }, (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`)));
  const [run] = readdirSync(output);
  if (!run) throw new Error(`the runner saved no results for ${scenario}:\n${log}`);
  return JSON.parse(readFileSync(join(output, run, 'checks.json'), 'utf8')) as Check[];
}

function expectConformant(checks: Check[]): void {
  expect(checks.length).toBeGreaterThan(0);
  const failed = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  const unexpected = failed.filter((check) => !NEEDS_FIXTURE_TOOLS.has(check.id) || !check.errorMessage?.startsWith('Not testable'));
  expect(unexpected.map(({ id, errorMessage }) => ({ id, errorMessage }))).toEqual([]);
}

describe('MCP conformance of /mcp', { timeout: 240_000 }, () => {
  it('2025 revisions: server-initialize, ping, tools-list, dns-rebinding-protection', async () => {
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
      const checks = await conformance(scenario);
      expectConformant(checks);
      expect(checks.every((check) => check.status === 'SUCCESS'), scenario).toBe(true);
    }
  });

  it('2026-07-28: tools-list, dns-rebinding-protection, http-header-validation, server-stateless', async () => {
    for (const scenario of ['tools-list', 'dns-rebinding-protection', 'http-header-validation', 'server-stateless']) {
      const checks = await conformance(scenario, '2026-07-28');
      expectConformant(checks);
      if (scenario === 'server-stateless') {
        expect(checks.filter((check) => check.status === 'SUCCESS').length).toBeGreaterThanOrEqual(22);
        expect(checks.filter((check) => check.status === 'FAILURE').map((check) => check.id).sort()).toEqual([...NEEDS_FIXTURE_TOOLS].sort());
      }
    }
  });
});
