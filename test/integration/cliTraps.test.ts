/**
 * "A CLI without traps" (issue 22), each against the built CLI and a real `capstan serve`:
 * read-only commands refuse a data dir with no database and create nothing; a failed call prints
 * its requestId; a refused token is told from a missing one; every command answers --help; the
 * ledger tail reads as lines (JSON with --json) and tables fit a terminal (util-linux `script`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../electron/cli/usage';
import { inherited, runCli, runCliOnTerminal } from '../support/cliProcess';
import { CLI, startServe, type ServeProcess } from '../support/serveProcess';

const TOKEN = 'traps-cli-token-0123456789';
const root = mkdtempSync(join(tmpdir(), 'capstan-traps-'));
const dataDir = join(root, 'data');
let serve: ServeProcess;

/** The CLI as a script runs it, with the operator's token unless told otherwise. */
const capstan = (args: string[], env: NodeJS.ProcessEnv = { CAPSTAN_TOKEN: TOKEN }) => runCli(args, env);

/** The CLI on a pseudo-terminal `columns` wide; its output as the terminal got it. */
const onTerminal = (args: string[], columns: number) => runCliOnTerminal(args, { env: { CAPSTAN_TOKEN: TOKEN }, columns });

beforeAll(async () => {
  serve = await startServe(['--port', '0', '--data-dir', dataDir], { CAPSTAN_TOKEN: TOKEN });
}, 60_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  rmSync(root, { recursive: true, force: true });
});

describe('a CLI without traps', { timeout: 60_000 }, () => {
  it('refuses a data dir with no database for the read-only commands, exit 2 naming it, and creates nothing', async () => {
    const missing = join(root, 'mistyped');
    const empty = join(root, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'notes.txt'), 'not a data dir\n');
    const commands = [['ledger', 'verify'], ['ledger', 'tail'], ['ledger', 'tail', '--json'], ['ledger', 'export'], ['ledger', 'reseal'], ['token', 'list'], ['token', 'revoke', 'ci']];
    for (const command of commands) {
      const notThere = await capstan([...command, '--data-dir', missing]);
      expect(notThere, command.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(notThere.stderr).toContain(`${missing} does not exist`);
      expect(existsSync(missing), command.join(' ')).toBe(false);

      const noDatabase = await capstan([...command], { CAPSTAN_DATA_DIR: empty });
      expect(noDatabase, command.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(noDatabase.stderr).toContain(`${empty} holds no Capstan database (capstan.sqlite)`);
      expect(readdirSync(empty), command.join(' ')).toEqual(['notes.txt']);
    }
    // The real data dir still answers, and creating a token is still how a database may begin.
    const verified = await capstan(['ledger', 'verify', '--data-dir', dataDir]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^ledger ok: \d+ entries/);
    const fresh = join(root, 'fresh');
    expect((await capstan(['token', 'create', '--name', 'ci', '--data-dir', fresh])).code).toBe(0);
    expect((await capstan(['token', 'list', '--data-dir', fresh])).stdout).toMatch(/^NAME\s+CREATED\s+LAST USED\nci\s/);
  });

  it('leaves a data dir the read-only commands read as it found it: the database file unchanged, mode included, and no key made', async () => {
    const evidence = join(root, 'evidence');
    mkdirSync(evidence);
    expect((await capstan(['token', 'create', '--name', 'kept', '--data-dir', evidence])).code).toBe(0);
    const database = join(evidence, 'capstan.sqlite');
    chmodSync(database, 0o644);
    const before = { bytes: readFileSync(database), mode: statSync(database).mode };
    for (const command of [['ledger', 'verify'], ['ledger', 'tail'], ['ledger', 'export']]) {
      const result = await capstan([...command, '--data-dir', evidence]);
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect(readFileSync(database).equals(before.bytes)).toBe(true);
    expect(statSync(database).mode).toBe(before.mode);
    expect(existsSync(join(evidence, 'ledger.key'))).toBe(false);
  });

  it('prints a failed call’s requestId, as the success line does', async () => {
    const failed = await capstan(['call', 'note_search', '--url', serve.url]);
    expect(failed).toMatchObject({ code: 1, stdout: '' });
    const [error, trace] = failed.stderr.trimEnd().split('\n');
    expect(error).toBe('capstan call: ARGUMENT_MISSING: query');
    const requestId = /^failed: (\S+)( in task \S+)?$/.exec(trace ?? '')?.[1];
    expect(requestId, failed.stderr).toBeDefined();
    expect(requestId).toMatch(/^req-/);
    // The same id the gateway's answer carries (--envelope prints it whole).
    const envelope = await capstan(['call', 'note_search', '--url', serve.url, '--envelope']);
    const answer = JSON.parse(envelope.stdout) as { requestId: string };
    expect(envelope.stderr).toContain(`\nfailed: ${answer.requestId}`);

    const unconfirmed = await capstan(['call', 'http_check', '--url', serve.url, '--arg', 'url=http://127.0.0.1:9/']);
    expect(unconfirmed.code).toBe(4);
    expect(unconfirmed.stderr).toMatch(/Nothing ran\.\nnot run: \S+( in task \S+)?\n$/);
  });

  it('says a token was given and refused, apart from none given', async () => {
    const refused = await capstan(['tools', '--url', serve.url], { CAPSTAN_TOKEN: 'not-the-token-0123456789' });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain(`capstan tools: UNAUTHORIZED: the token from CAPSTAN_TOKEN was refused by the gateway at ${serve.url}`);
    const tokenFile = join(root, 'wrong-token');
    writeFileSync(tokenFile, 'not-the-token-0123456789\n', { mode: 0o600 });
    const fromFile = await capstan(['tasks', '--url', serve.url, '--token-file', tokenFile], {});
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain(`UNAUTHORIZED: the token from --token-file ${tokenFile} was refused`);
    const fromFileVariable = await capstan(['call', 'time_now', '--url', serve.url], { CAPSTAN_TOKEN_FILE: tokenFile });
    expect(fromFileVariable.stderr).toContain(`UNAUTHORIZED: the token from CAPSTAN_TOKEN_FILE (${tokenFile}) was refused`);

    const none = await capstan(['tools', '--url', serve.url], {});
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('capstan tools: no token was given:');
  });

  it('answers --help for every command and subcommand with its usage, exit 0, running nothing', async () => {
    expect(HELP_TOPICS.map(([command, sub]) => `${command} ${sub}`.trim())).toEqual(
      expect.arrayContaining(['serve', 'ledger verify', 'ledger tail', 'ledger export', 'ledger reseal', 'token create', 'token list', 'token revoke', 'tools', 'call', 'tasks', 'harn run', 'pins list', 'pins diff', 'pins accept', 'mcp']),
    );
    const runs = await Promise.all(HELP_TOPICS.map(([command, sub]) => capstan([command, ...(sub ? [sub] : []), '--help'], {})));
    HELP_TOPICS.forEach(([command, sub], index) => {
      const run = runs[index]!;
      expect(run, `${command} ${sub}`).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout, `${command} ${sub}`).toMatch(new RegExp(`^Usage: capstan ${command}${sub ? ` ${sub}` : ''}\\b`));
    });
    // -h too, after other flags; a command without its subcommand lists them all.
    const short = await capstan(['call', 'time_now', '--url', serve.url, '-h'], {});
    expect(short.code).toBe(0);
    expect(short.stdout).toMatch(/^Usage: capstan call TOOL/);
    const ledger = await capstan(['ledger', '--help'], {});
    expect(ledger.stdout).toMatch(/^Usage: capstan ledger verify.*\n {7}capstan ledger reseal.*\n {7}capstan ledger tail/);
    expect(existsSync(join(process.cwd(), 'capstan.sqlite'))).toBe(false);
  });

  it('prints the ledger tail as readable lines, JSON lines with --json, and follows', async () => {
    const called = await capstan(['call', 'time_now', '--url', serve.url, '--arg', 'timezone=UTC']);
    const requestId = /^ok: (\S+) in task/.exec(called.stderr)?.[1];
    expect(requestId, called.stderr).toBeDefined();

    const tail = await capstan(['ledger', 'tail', '-n', '3', '--data-dir', dataDir]);
    expect(tail.code, tail.stderr).toBe(0);
    const lines = tail.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const finished = lines.find((line) => line.includes(requestId!) && line.includes('call_finished'));
    expect(finished).toMatch(new RegExp(`^ +#\\d+  \\d{4}-\\d\\d-\\d\\dT\\S+Z  call_finished +operator +builtin:time_now  ${requestId}  ok · [\\d.]+ ms · result [0-9a-f]{8}…$`));
    expect(tail.stdout).not.toContain('{');

    const json = await capstan(['ledger', 'tail', '-n', '3', '--json', '--data-dir', dataDir]);
    const entries = json.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { seq: number; requestId: string | null; hash: string });
    expect(entries).toHaveLength(3);
    expect(entries.some((entry) => entry.requestId === requestId)).toBe(true);

    // --follow prints what is appended after it started, as lines.
    const follow = spawn(process.execPath, [CLI, 'ledger', 'tail', '-n', '1', '--follow', '--data-dir', dataDir], { env: inherited() });
    let followed = '';
    follow.stdout.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const later = await capstan(['call', 'time_now', '--url', serve.url]);
      const laterId = /^ok: (\S+) in task/.exec(later.stderr)![1]!;
      for (const end = Date.now() + 10_000; !followed.includes(laterId) && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(followed).toMatch(new RegExp(`call_finished +operator +builtin:time_now  ${laterId}  ok`));
    } finally {
      follow.kill('SIGTERM');
    }
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)('fits tables to the terminal, ellipsizing the widest columns, and prints them whole without one', async () => {
    // A long task title, from a session of its own.
    const title = 'A session whose task title is long enough to be cut on an 80-column terminal';
    const started = await fetch(`${serve.url}/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'start', sessionId: 'traps-wide', title }),
    });
    expect(started.status, await started.clone().text()).toBeLessThan(300);

    const narrow = await onTerminal(['tasks', '--url', serve.url], 80);
    expect(narrow.code, narrow.output).toBe(0);
    const rows = narrow.output.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^TASK\s+STATE\s+SESSION\s+WHEN\s+CALLS\s+TITLE$/);
    for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(80);
    const wide = rows.find((row) => row.includes('traps-wide'));
    // The title keeps a readable start (its header's width or 12 characters at least), never one letter and an ellipsis.
    expect(wide).toMatch(/ {2}A session \S+…$/);
    expect(wide).toMatch(/ {2}traps-wide {2}/);

    const piped = await capstan(['tasks', '--url', serve.url]);
    expect(piped.stdout).toContain(title);
  });
});
