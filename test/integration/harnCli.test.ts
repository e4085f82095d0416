/**
 * `capstan harn run` (the built CLI) against a running gateway whose `harn.command` is
 * test/support/harnDriver.ts, a faithful stand-in for Harn: it finds the gateway by --url or by
 * the data dir's gateway.json, prints the run's lines and outcome, and exits 0 only on success.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { driverConfig } from '../support/harnDriver.runs';
import { CLI } from '../support/serveProcess';

let gateway: TestGateway;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-harn-cli-'));
  gateway = await startTestGateway({ config: { harn: driverConfig() } });
});

afterAll(async () => {
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
});

function capstan(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CAPSTAN_')));
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

const script = (name: string, scenario: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(scenario));
  return path;
};

describe('capstan harn run', () => {
  it('prints the run as it goes and its outcome; exit 0 when the task succeeded', async () => {
    const path = script('hello.harn', {
      steps: [
        { stderr: 'warming up' },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } } },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ', world' } } },
        { toolCall: 'time_now', args: { timezone: 'UTC' } },
      ],
    });
    const result = await capstan(['harn', 'run', path, '--prompt', 'greet', '--url', gateway.url], { CAPSTAN_TOKEN: gateway.token });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^task task-\S+: Harn: hello\.harn$/m);
    expect(result.stdout).toMatch(/^\[stderr\] warming up$/m);
    expect(result.stdout).toMatch(/^Hello, world$/m);
    expect(result.stdout).toMatch(/^\[host ok\] time_now: ok \(harn-\S+\)$/m);
    expect(result.stdout).toMatch(/\nsucceeded: Hello, world \(stopReason "end_turn"\)\n$/);
  });

  it('finds the gateway through the data dir, and exits 1 with the reason when the run fails', async () => {
    const path = script('broken.harn', { end: { error: 'the pipeline threw' } });
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, gateway.token, { mode: 0o600 });
    const result = await capstan(['harn', 'run', path, '--data-dir', gateway.dataDir, '--token-file', tokenFile], {});
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nfailed: the pipeline threw \(the prompt failed: JSON-RPC error -32000, terminal class generic_throw\)\n$/);
  });

  it("shows a script's control characters instead of passing them to the terminal", async () => {
    const path = script('escapes.harn', {
      steps: [
        // OSC 52 would set the operator's clipboard; the others retitle the window and clear the screen.
        { stderr: '\u001b]52;c;ZXZpbA==\u0007copied' },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '\u001b]0;pwned\u0007first line\n\u001b[2Jsecond line' } } },
      ],
    });
    const result = await capstan(['harn', 'run', path, '--url', gateway.url], { CAPSTAN_TOKEN: gateway.token });
    expect(result.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- no control character but newline may reach the terminal
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toMatch(/^\[stderr\] ␛]52;c;ZXZpbA==␇copied$/m);
    expect(result.stdout).toMatch(/^␛]0;pwned␇first line\n␛\[2Jsecond line$/m);
    expect(result.stdout).toMatch(/\nsucceeded: ␛]0;pwned␇first line\n␛\[2Jsecond line \(stopReason "end_turn"\)\n$/);
  });

  it('says why it cannot start: no token, no file, no gateway', async () => {
    expect((await capstan(['harn', 'run', join(dir, 'x.harn'), '--url', gateway.url], {})).stderr).toMatch(/give the gateway's token/);
    const missing = await capstan(['harn', 'run', join(dir, 'missing.harn'), '--url', gateway.url], { CAPSTAN_TOKEN: gateway.token });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^capstan harn: BAD_REQUEST: script: there is no file at /);
    const nowhere = await capstan(['harn', 'run', join(dir, 'x.harn'), '--data-dir', dir], { CAPSTAN_TOKEN: gateway.token });
    // As for `capstan tools`: no gateway to ask is GATEWAY_UNREACHABLE, exit 3.
    expect(nowhere.code).toBe(3);
    expect(nowhere.stderr).toBe(`capstan harn: GATEWAY_UNREACHABLE: no gateway is running for ${dir}; start \`capstan serve\`, or give --url\n`);
  });
});
