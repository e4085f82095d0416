/**
 * The official MCP conformance suite's client scenarios against Capstan's own MCP client code
 * (McpConnection, callMcpTool and the OAuth client of electron/providers/mcp/oauth), driven by
 * test/conformance/clientDriver.ts through the same script operators run
 * (`npm run conformance:client`): the scenarios issue 20 names, the HTTP header and JSON Schema
 * ones, and every auth scenario of the 2025-11-25 and 2026-07-28 revisions, each at the revision
 * the runner picks for it. A scenario passes when every one of its checks does (none failed, none
 * warned) and the script exits 0. Scenarios in test/conformance/expected-failures.json are left
 * out, each with its reason. Everything runs on loopback.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const ROOT = join(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'test/conformance/runClient.mjs');
const RUNNER = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
const EXPECTED_FAILURES = z.record(z.string(), z.string().min(20)).parse(JSON.parse(readFileSync(join(ROOT, 'test/conformance/expected-failures.json'), 'utf8')));
const REVISIONS = ['2025-11-25', '2026-07-28'];
/** The scenarios issue 20 and 21 name beyond auth/*. */
const NAMED = [
  'initialize',
  'tools_call',
  'sse-retry',
  'request-metadata',
  'sep-2322-client-request-state',
  'elicitation-sep1034-client-defaults',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
];

const results = mkdtempSync(join(tmpdir(), 'capstan-conformance-client-'));
afterAll(() => rmSync(results, { recursive: true, force: true }));

interface Run {
  code: number | null;
  log: string;
}
const run = (command: string, args: string[]) =>
  new Promise<Run>((resolve) =>
    execFile(process.execPath, [command, ...args], { cwd: ROOT, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, log: `${stdout}\n${stderr}` }),
    ),
  );

/** Every client scenario the runner lists with the revisions it belongs to. */
async function listed(): Promise<Map<string, string[]>> {
  const { log } = await run(RUNNER, ['list', '--client']);
  return new Map([...log.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map((match) => [match[1]!, match[2]!.split(',')]));
}

const Checks = z.array(z.object({ id: z.string(), status: z.string(), errorMessage: z.string().optional() }));

async function conformance(scenario: string, revision: string) {
  const output = join(results, `${scenario.replaceAll('/', '_')}-${revision}`);
  const { code, log } = await run(SCRIPT, ['--scenario', scenario, '--spec-version', revision, '-o', output]);
  // The runner names its folder after the scenario, so auth/NAME lands one level deeper.
  const saved = readdirSync(output, { recursive: true, encoding: 'utf8' }).find((path) => path.endsWith('checks.json'));
  if (!saved) throw new Error(`the runner saved no results for ${scenario} at ${revision}:\n${log}`);
  const checks = Checks.parse(JSON.parse(readFileSync(join(output, saved), 'utf8')));
  const failed = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING').map(({ id, status, errorMessage }) => ({ id, status, errorMessage }));
  return { code, checks, failed, log };
}

describe('MCP conformance of Capstan as a client', { timeout: 900_000 }, () => {
  it('passes every chosen scenario at each of its revisions, but those left out with a reason', async () => {
    const scenarios = await listed();
    const auth = [...scenarios.keys()].filter((name) => name.startsWith('auth/'));
    const chosen = [...NAMED, ...auth].filter((scenario) => !(scenario in EXPECTED_FAILURES));
    const runs = chosen.flatMap((scenario) => (scenarios.get(scenario) ?? []).filter((revision) => REVISIONS.includes(revision)).map((revision) => ({ scenario, revision })));
    // Every auth scenario of both revisions, at each: more than the two dozen the suite has today would only add.
    expect(runs.filter(({ scenario }) => scenario.startsWith('auth/')).length).toBeGreaterThan(30);
    const failed: Record<string, unknown> = {};
    for (const { scenario, revision } of runs) {
      const { code, checks, failed: problems, log } = await conformance(scenario, revision);
      expect(checks.length, scenario).toBeGreaterThan(0);
      if (problems.length > 0 || code !== 0) failed[`${scenario} @ ${revision}`] = { code, problems, log: problems.length > 0 ? undefined : log.slice(-2000) };
    }
    expect(failed).toEqual({});
  });

  it('leaves out only scenarios the runner has, each with a reason', async () => {
    const scenarios = await listed();
    for (const scenario of Object.keys(EXPECTED_FAILURES)) expect(scenarios.has(scenario), scenario).toBe(true);
  });
});
