/**
 * `@modelcontextprotocol/inspector` in CLI mode, as a user checks their setup: it lists Capstan's
 * tools and calls them, over Streamable HTTP with a bearer header and over `capstan mcp` on
 * stdio. Each inspector run is a client of its own (so a session of its own). Loopback only;
 * the inspector keeps its catalog in a temporary HOME.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { CAPSTAN_TOOL_NAMES } from '../support/mcpFlow';
import { CLI } from '../support/serveProcess';

const INSPECTOR = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')), 'clients/launcher/build/index.js');
const home = mkdtempSync(join(tmpdir(), 'capstan-inspector-home-'));
let gw: TestGateway;
let agentToken: string;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One `inspector --cli` run; its JSON answer. */
function inspector(args: string[]): Promise<Json> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [INSPECTOR, '--cli', ...args], { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`inspector ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as Json);
    }),
  );
}

beforeAll(async () => {
  gw = await startTestGateway();
  agentToken = ((await (await gw.request('/agents', { method: 'POST', body: { name: 'inspector' } })).json()) as { token: string }).token;
});
afterAll(async () => {
  await gw.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('the MCP Inspector CLI', { timeout: 120_000 }, () => {
  it('lists and calls Capstan’s tools over Streamable HTTP with an Authorization header', async () => {
    const target = [`${gw.url}/mcp`, '--header', `Authorization: Bearer ${agentToken}`];
    const listed = await inspector([...target, '--method', 'tools/list']);
    expect(listed.tools.map((tool: Json) => tool.name)).toEqual(CAPSTAN_TOOL_NAMES);
    const found = await inspector([...target, '--method', 'tools/call', '--tool-name', 'capabilities_search', '--tool-arg', 'query=time now', '--tool-arg', 'limit=1']);
    expect(found.structuredContent).toMatchObject({ analyzer: 'lexical-v1', items: [{ name: 'time_now' }] });
  });

  it('lists them with schemas that --strict finds portable (capability_call takes any arguments object)', async () => {
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(
        process.execPath,
        [INSPECTOR, '--cli', `${gw.url}/mcp`, '--header', `Authorization: Bearer ${agentToken}`, '--method', 'tools/list', '--strict'],
        { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 60_000 },
        (error, out, err) => (error ? reject(new Error(`inspector --strict failed: ${error.message}\n${err}`)) : resolve({ stdout: out, stderr: err })),
      ),
    );
    // No portability finding at all, not even a warning.
    expect(stderr).toBe('');
    const listed = JSON.parse(stdout) as Json;
    expect(listed.tools.find((tool: Json) => tool.name === 'capability_call').inputSchema.properties.arguments).toMatchObject({ type: 'object', additionalProperties: true });
  });

  it('lists and calls them through capstan mcp, the command an MCP host would launch', async () => {
    const target = ['-e', `CAPSTAN_TOKEN=${agentToken}`, '-e', `CAPSTAN_DATA_DIR=${gw.dataDir}`];
    const command = ['--', process.execPath, CLI, 'mcp'];
    const listed = await inspector([...target, '--method', 'tools/list', ...command]);
    expect(listed.tools.map((tool: Json) => tool.name)).toEqual(CAPSTAN_TOOL_NAMES);
    const page = await inspector([...target, '--method', 'tools/call', '--tool-name', 'capabilities_list', '--tool-arg', 'kind=tool', '--tool-arg', 'limit=3', ...command]);
    expect(page.structuredContent.items).toHaveLength(3);
    expect(page.structuredContent.nextCursor).toEqual(expect.any(String));
  });
});
