/**
 * `capstan mcp` as MCP hosts run it: a real child process speaking MCP on stdio, driven by the
 * official SDK v2 client. With no gateway running it starts one for the data dir (and says
 * where the console URL is); a second `capstan mcp` finds that same gateway through
 * gateway.json, so both agents' calls land in one runtime and one ledger.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGatewayFile } from '../../electron/gatewayFile';
import { connectStdio, type McpTestClient } from '../support/mcpClient';
import { waitFor } from '../support/mcp';
import { CAPSTAN_TOOL_NAMES, walkDiscovery, writeFlowSkill } from '../support/mcpFlow';
import { CLI } from '../support/serveProcess';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-mcp-stdio-'));
const skills = join(dataDir, 'skills');
let token: string;
const open: McpTestClient[] = [];
/** The first agent's client and the task it worked in. */
let first: { mcp: McpTestClient; taskId: string };
let second: McpTestClient;

/**
 * The operator's view of the gateway `capstan mcp` started: its console URL, operator token
 * included, is in gateway.log (where an operator finds it too).
 */
async function operator(path: string): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const consoleUrl = new URL(/Capstan console: (\S+)/.exec(readFileSync(join(dataDir, 'gateway.log'), 'utf8'))![1]!);
  const token = decodeURIComponent(consoleUrl.hash.replace('#token=', ''));
  return (await fetch(`${consoleUrl.origin}${path}`, { headers: { authorization: `Bearer ${token}` } })).json() as never;
}

/** Polls an async check every 100 ms for up to 10 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (const started = Date.now(); !(await check()); await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (Date.now() - started > 10_000) throw new Error('timed out');
  }
}

function capstanMcp(era: 'legacy' | 'modern', env: Record<string, string>, args: string[] = []) {
  return connectStdio(process.execPath, [CLI, 'mcp', '--data-dir', dataDir, ...args], { PATH: process.env.PATH ?? '', ...env }, era).then((client) => {
    open.push(client);
    return client;
  });
}

beforeAll(() => {
  for (const name of ['stdio-legacy', 'stdio-modern']) {
    mkdirSync(join(skills, name), { recursive: true });
    writeFlowSkill(skills, name);
  }
  const made = execFileSync(process.execPath, [CLI, 'token', 'create', '--name', 'stdio-agent', '--data-dir', dataDir], { encoding: 'utf8' });
  token = made.trim().split('\n').at(-1)!;
});

afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => undefined)));
  const gateway = readGatewayFile(dataDir);
  if (gateway) {
    process.kill(gateway.pid, 'SIGTERM');
    await waitFor('the gateway to withdraw gateway.json', () => (existsSync(join(dataDir, 'gateway.json')) ? undefined : true), 15_000);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('capstan mcp', { timeout: 60_000 }, () => {
  it('refuses to start without an agent token', () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [CLI, 'mcp', '--data-dir', dataDir], { encoding: 'utf8', stdio: 'pipe', env: { PATH: process.env.PATH ?? '' } });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toContain('capstan token create --name NAME');
  });

  it('starts a gateway for the data dir when none runs, and walks the discovery flow over stdio (2025 era, loaded tools listed)', async () => {
    expect(readGatewayFile(dataDir)).toBeUndefined();
    const mcp = (await capstanMcp('legacy', { CAPSTAN_TOKEN: token })) as McpTestClient & { stderr(): string };
    const gateway = readGatewayFile(dataDir);
    expect(gateway).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), pid: expect.any(Number) });
    expect(mcp.stderr()).toContain(`started a gateway for ${dataDir} at ${gateway!.url}`);
    expect(statSync(join(dataDir, 'gateway.json')).mode & 0o777).toBe(0o600);

    const generation = (await operator('/catalog')).catalogGeneration as number;
    const { taskId } = await walkDiscovery(mcp, 'stdio-legacy', join(skills, 'stdio-legacy', 'SKILL.md'));
    // The flow ended by changing its SKILL.md: the next flow starts once the gateway has rescanned it.
    await until(async () => (await operator('/catalog')).catalogGeneration > generation);
    expect(mcp.listChanged()).toBeGreaterThanOrEqual(1);
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual([...CAPSTAN_TOOL_NAMES, 'time_now']);
    expect((await mcp.call('time_now', {})).structuredContent).toMatchObject({ ok: true, taskId });
    first = { mcp, taskId };
  });

  it('a second capstan mcp (2026-07-28, token from a file) joins the same gateway in a session of its own; one ledger holds both', async () => {
    const before = readGatewayFile(dataDir)!;
    const tokenFile = join(dataDir, 'agent.token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const mcp = await capstanMcp('modern', {}, ['--token-file', tokenFile]);
    expect(mcp.client.getProtocolEra()).toBe('modern');
    expect(readGatewayFile(dataDir)).toEqual(before);
    const { taskId } = await walkDiscovery(mcp, 'stdio-modern', join(skills, 'stdio-modern', 'SKILL.md'));
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(CAPSTAN_TOOL_NAMES);

    const { tasks } = await operator('/tasks');
    const sessions = new Set((tasks as { sessionId: string }[]).filter((task) => task.sessionId.startsWith('agent:stdio-agent/mcp-')).map((task) => task.sessionId));
    expect(sessions.size).toBe(2);
    expect((tasks as { id: string; sessionId: string }[]).find((task) => task.id === taskId)?.sessionId).toMatch(/^agent:stdio-agent\/mcp-/);
    const { entries } = await operator('/ledger?kind=call_finished&limit=1000');
    const agentCalls = (entries as { principal: string; capability: string; taskId: string }[]).filter((entry) => entry.principal === 'agent:stdio-agent');
    const callTasks = new Set(agentCalls.map((entry) => entry.taskId));
    expect(callTasks.size).toBe(2);
    expect(callTasks).toContain(taskId);

    // The host closing the first `capstan mcp` ends its session: its task is finished.
    await first.mcp.close();
    const stateOf = async (id: string) => ((await operator('/tasks')).tasks as { id: string; state: string }[]).find((task) => task.id === id)?.state;
    await until(async () => (await stateOf(first.taskId)) === 'succeeded');
    expect(await stateOf(taskId)).toBe('running');
    second = mcp;
  });

  it('when the gateway stops, the call that finds it gone says so, and the next reaches a gateway started anew', async () => {
    const stopped = readGatewayFile(dataDir)!;
    process.kill(stopped.pid, 'SIGTERM');
    await until(async () => !existsSync(join(dataDir, 'gateway.json')));
    const lost = await second.call('capabilities_list', { limit: 1 });
    expect(lost).toMatchObject({ isError: true, structuredContent: { error: { code: 'GATEWAY_UNREACHABLE' } } });
    const again = await second.call('capabilities_list', { limit: 1 });
    expect(again.isError).toBeFalsy();
    expect(readGatewayFile(dataDir)!.pid).not.toBe(stopped.pid);
  });
});
