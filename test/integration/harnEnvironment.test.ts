/**
 * Issue 18 item 2: a Harn run's child gets an allowed list of the gateway's environment (the
 * one MCP stdio servers get, electron/providers/childEnvironment.ts) plus config.json's
 * `harn.env`, never the operator's token. `harn.command` here is a tiny Node script that writes
 * down the environment it was started with, as a hostile `harn` on PATH could.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { send, waitFor } from '../support/mcp';

let gateway: TestGateway;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-harn-env-'));
  // What the gateway's own environment holds when started as `CAPSTAN_TOKEN=… capstan serve`.
  process.env.CAPSTAN_TOKEN = 'operator-token-that-must-not-leak';
  process.env.CAPSTAN_LEDGER_SECRET = 'another-capstan-secret';
  process.env.SOME_OPERATOR_SECRET = 'an-unrelated-secret';
  const dump = join(dir, 'printEnv.mjs');
  writeFileSync(dump, "import { writeFileSync } from 'node:fs';\nwriteFileSync(`${process.argv.at(-1)}.env.json`, JSON.stringify(process.env));\n");
  gateway = await startTestGateway({
    config: { harn: { command: process.execPath, args: [dump, 'serve', 'acp'], env: { HARN_EXTRA: 'from config.json', PATH_EXTRA: '/opt/harn' } } },
  });
}, 60_000);

afterAll(async () => {
  await gateway.stop();
  for (const name of ['CAPSTAN_TOKEN', 'CAPSTAN_LEDGER_SECRET', 'SOME_OPERATOR_SECRET']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("a Harn child's environment", () => {
  it('has PATH and config.json harn.env, and none of CAPSTAN_TOKEN, other CAPSTAN_* variables or the rest of the gateway environment', async () => {
    const script = join(dir, 'probe.harn');
    writeFileSync(script, '{}');
    await send(gateway, 'POST', '/harn/runs', { script, sessionId: 'harn-env' });
    const file = `${script}.env.json`;
    const env = await waitFor('the child to write its environment', () => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : undefined), 10_000);
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.HARN_EXTRA).toBe('from config.json');
    expect(env.PATH_EXTRA).toBe('/opt/harn');
    expect(Object.keys(env).filter((name) => name.startsWith('CAPSTAN_'))).toEqual([]);
    expect(env.SOME_OPERATOR_SECRET).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain('operator-token-that-must-not-leak');
    expect(JSON.stringify(env)).not.toContain(gateway.token);
  });
});
