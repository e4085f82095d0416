/**
 * `capstan tools`, `capstan call` and `capstan tasks` as an operator runs them: the built CLI
 * against a real `capstan serve`, found by --url or through the data dir's gateway.json. The
 * confirmation prompt is answered on a real pseudo-terminal (util-linux `script`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliOnTerminal } from '../support/cliProcess';
import { startServe, type ServeProcess } from '../support/serveProcess';

const TOKEN = 'operator-cli-token-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'capstan-operator-'));
let serve: ServeProcess;

/** The CLI as a script runs it, with the operator's token unless told otherwise. */
const capstan = (args: string[], env: NodeJS.ProcessEnv = { CAPSTAN_TOKEN: TOKEN }) => runCli(args, env);

const api = async (path: string) => (await fetch(`${serve.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as Promise<Record<string, unknown>>;
const okCalls = async () => ((await api('/tasks')).tasks as { callCounts: { ok: number } }[]).reduce((sum, task) => sum + task.callCounts.ok, 0);

beforeAll(async () => {
  // http_check may reach this machine's gateway, so a confirmed call can succeed without the network.
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['127.0.0.1'] } }));
  serve = await startServe(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: TOKEN });
}, 60_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('capstan tools, call and tasks', { timeout: 60_000 }, () => {
  it('lists the tools as a table, or as the gateway answered with --json, finding the gateway through the data dir', async () => {
    const table = await capstan(['tools', '--data-dir', dataDir]);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^TOOL\s+RISK\s+CONFIRM\s+WRITES\s+DESCRIPTION$/);
    expect(rows.find((row) => row.startsWith('builtin:http_check '))).toMatch(/^builtin:http_check\s+medium\s+yes\s+no\s+\S/);
    expect(rows.find((row) => row.startsWith('builtin:note_add '))).toMatch(/^builtin:note_add\s+low\s+no\s+yes\s+\S/);

    const json = await capstan(['tools', '--json', '--url', serve.url]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await api('/tools'));
  });

  it('calls a tool with --json and --arg, each value read by the input schema, and prints the result', async () => {
    // limit is an integer in todo_list's schema: "2" arrives as 2, else the gateway would refuse it.
    const listed = await capstan(['call', 'todo_list', '--url', serve.url, '--arg', 'limit=2', '--arg', 'status=all']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ status: 'all', todos: [] });
    // The requestId and the trace id together: either finds the call (in the ledger, in a tracing backend).
    expect(listed.stderr).toMatch(/^ok: \S+ in task \S+, [\d.]+ ms, trace [0-9a-f]{32}\n$/);

    // title is a string: "42" stays "42", where JSON would have made it a number the schema refuses.
    const added = await capstan(['call', 'todo_add', '--url', serve.url, '--json', '{"due":"2030-01-02"}', '--arg', 'title=42']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ title: '42', due: '2030-01-02' });

    // The form the console's Copy as CLI writes, with the whole answer for a script.
    const envelope = await capstan(['call', 'time_now', '--json', '{"timezone":"Europe/Paris"}', '--envelope', '--url', serve.url]);
    expect(envelope.code).toBe(0);
    expect(JSON.parse(envelope.stdout)).toMatchObject({ ok: true, requestId: expect.any(String), taskId: expect.any(String), result: { timezone: 'Europe/Paris' } });
  });

  it('exits 1 with the gateway code when a call fails, and 2 on a usage error before sending anything', async () => {
    const missing = await capstan(['call', 'note_search', '--url', serve.url]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    // The error, then the requestId it had, as the success line gives it.
    expect(missing.stderr).toMatch(/^capstan call: ARGUMENT_MISSING: query\nfailed: req-\S+\n$/);

    const wrongType = await capstan(['call', 'todo_list', '--url', serve.url, '--arg', 'limit=many']);
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toContain('ARGUMENT_INVALID');

    expect((await capstan(['call', 'time_now', '--url', serve.url, '--json', '[1]'])).code).toBe(2);
    expect((await capstan(['call', 'time_now', '--url', serve.url, '--arg', 'novalue'])).code).toBe(2);
    const noToken = await capstan(['tools', '--url', serve.url], {});
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('--token-file FILE or CAPSTAN_TOKEN');
    const badToken = await capstan(['tools', '--url', serve.url], { CAPSTAN_TOKEN: 'not-the-token-0123456789' });
    expect(badToken).toMatchObject({ code: 1 });
    expect(badToken.stderr).toMatch(/^capstan tools: UNAUTHORIZED: the token from CAPSTAN_TOKEN was refused/);
  });

  it('exits 3 with GATEWAY_UNREACHABLE when no gateway runs for the data dir or none answers at the URL', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'capstan-operator-none-'));
    try {
      const none = await capstan(['tasks', '--data-dir', empty]);
      expect(none.code).toBe(3);
      expect(none.stderr).toContain(`GATEWAY_UNREACHABLE: no gateway is running for ${empty}`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const closed = await capstan(['tools', '--url', 'http://127.0.0.1:9']);
    expect(closed.code).toBe(3);
    expect(closed.stderr).toContain('GATEWAY_UNREACHABLE: the gateway at http://127.0.0.1:9 did not answer');
  });

  it('refuses a tool that needs confirmation without a terminal: CONFIRMATION_REQUIRED, exit 4, nothing ran', async () => {
    const before = await okCalls();
    const refused = await capstan(['call', 'http_check', '--url', serve.url, '--arg', `url=${serve.url}/`]);
    expect(refused).toMatchObject({ code: 4, stdout: '' });
    expect(refused.stderr).toContain('capstan call: CONFIRMATION_REQUIRED: http_check needs the operator');
    expect(await okCalls()).toBe(before);
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)('asks on a terminal, shows the call, and runs it only when the operator says yes', async () => {
    const before = await okCalls();
    // `script` gives the CLI a pseudo-terminal; the answer is typed into it once the prompt is up.
    const onTerminal = (answer: string) =>
      runCliOnTerminal(['call', 'http_check', '--url', serve.url, '--arg', `url=${serve.url}/`], { env: { CAPSTAN_TOKEN: TOKEN }, answer });

    const declined = await onTerminal('n');
    expect(declined.output).toContain('http_check needs your confirmation before it runs.');
    expect(declined.output).toContain(`"url": "${serve.url}/"`);
    expect(declined.output).toMatch(/risk medium/);
    expect(declined.output).toContain('not confirmed; http_check did not run');
    expect(declined.code).toBe(4);
    expect(await okCalls()).toBe(before);

    const confirmed = await onTerminal('yes');
    expect(confirmed.output).toContain('"status": 200');
    expect(confirmed.code).toBe(0);
    expect(await okCalls()).toBe(before + 1);
  });

  it('lists the tasks the calls ran in, as a table or as JSON', async () => {
    const table = await capstan(['tasks', '--url', serve.url]);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^TASK\s+STATE\s+SESSION\s+WHEN\s+CALLS\s+TITLE$/);
    expect(rows.some((row) => /\srunning\s+operator\s+\S+\s+\d+ ok.*Manual calls/.test(row))).toBe(true);

    const json = await capstan(['tasks', '--json', '--limit', '5', '--url', serve.url]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ tasks: expect.arrayContaining([expect.objectContaining({ sessionId: 'operator', state: 'running' })]) });
    expect((await capstan(['tasks', '--limit', '0', '--url', serve.url])).code).toBe(2);
  });
});
