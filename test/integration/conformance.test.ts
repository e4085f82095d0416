/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance) against /mcp, as an
 * agent (an agent token, not the operator's), at 2025-11-25 and at 2026-07-28: every server
 * scenario the runner lists for the revision, except those conformance.expected.ts leaves out
 * with a reason. Every check of every scenario run must pass, but for the checks that file names
 * as not testable here. The runner cannot send an Authorization header, so it talks to a
 * loopback proxy that adds the token; the gateway's auth stays as it is. Everything runs on
 * 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_GRANTS } from '../../electron/config';
import { startAuthProxy, type AuthProxy } from '../support/authProxy';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { waitForProvider } from '../support/mcp';
import { LEFT_OUT, NOT_TESTABLE } from './conformance.expected';

const RUNNER = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
const results = mkdtempSync(join(tmpdir(), 'capstan-conformance-'));
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

let gw: TestGateway;
let proxy: AuthProxy;

/**
 * The runner's resource and prompt scenarios read content of its own; an MCP server behind the
 * gateway serves it (test/support/conformanceContent.ts), and agents are granted its resources
 * and prompts (they get none by default), so those scenarios cross the whole of Capstan.
 */
const CONTENT_SERVER = { command: process.execPath, args: [fileURLToPath(new URL('../support/conformanceContent.ts', import.meta.url))] };
const CONTENT_GRANTS = [
  ...DEFAULT_AGENT_GRANTS,
  { pattern: 'fixtures:resource.*', authority: 'read' },
  { pattern: 'fixtures:template.*', authority: 'read' },
  { pattern: 'fixtures:prompt.*', authority: 'get' },
];

beforeAll(async () => {
  gw = await startTestGateway({ config: { mcpServers: { fixtures: CONTENT_SERVER }, agentGrants: CONTENT_GRANTS } });
  await waitForProvider(gw.host, 'fixtures');
  proxy = await startAuthProxy(gw.url, gw.host.agents.create('conformance').token);
});
afterAll(async () => {
  await proxy.close();
  await gw.stop();
  rmSync(results, { recursive: true, force: true });
});

const runner = (args: string[]) =>
  new Promise<string>((resolve) => execFile(process.execPath, [RUNNER, ...args], { timeout: 90_000 }, (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`)));

/** The server scenarios the runner has for a revision. */
async function scenariosOf(revision: string): Promise<string[]> {
  const listed = await runner(['list', '--server', '--spec-version', revision]);
  return [...listed.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1]!);
}

/** Runs one scenario and returns the checks it recorded. */
async function conformance(scenario: string, revision: string): Promise<Check[]> {
  const output = join(results, `${scenario}-${revision}`);
  const log = await runner(['server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '-o', output, '--spec-version', revision]);
  const [run] = readdirSync(output);
  if (!run) throw new Error(`the runner saved no results for ${scenario}:\n${log}`);
  return JSON.parse(readFileSync(join(output, run, 'checks.json'), 'utf8')) as Check[];
}

/** What did not pass, but for the checks named not testable here (and reported so by the runner). */
const failures = (checks: Check[]) =>
  checks
    .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
    .filter((check) => !(check.id in NOT_TESTABLE && check.errorMessage?.startsWith('Not testable')))
    .map(({ id, status, errorMessage }) => ({ id, status, errorMessage }));

describe('MCP conformance of /mcp, as an agent', { timeout: 300_000 }, () => {
  for (const revision of REVISIONS) {
    it(`${revision}: every server scenario but those left out with a reason`, async () => {
      const scenarios = await scenariosOf(revision);
      expect(scenarios.length).toBeGreaterThan(10);
      const run = scenarios.filter((scenario) => !(scenario in LEFT_OUT));
      // The scenarios this gateway must pass, whatever else the runner adds later.
      const required = revision === '2025-11-25'
        ? ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'server-sse-multiple-streams', 'server-sse-polling', 'dns-rebinding-protection', 'resources-list', 'prompts-list']
        : ['tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection', 'http-header-validation', 'server-stateless', 'caching', 'sep-2164-resource-not-found', 'input-required-result-unsupported-methods', 'input-required-result-validate-input'];
      expect(run).toEqual(expect.arrayContaining(required));
      const failed: Record<string, ReturnType<typeof failures>> = {};
      for (const scenario of run) {
        const checks = await conformance(scenario, revision);
        expect(checks.length, scenario).toBeGreaterThan(0);
        const problems = failures(checks);
        if (problems.length > 0) failed[scenario] = problems;
      }
      expect(failed).toEqual({});
    });
  }

  it('leaves out only scenarios the runner has, each with a reason', async () => {
    const known = new Set((await Promise.all(REVISIONS.map(scenariosOf))).flat());
    for (const [scenario, reason] of Object.entries(LEFT_OUT)) {
      expect(known.has(scenario), scenario).toBe(true);
      expect(reason.length, scenario).toBeGreaterThan(10);
    }
  });
});
