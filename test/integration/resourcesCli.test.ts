/**
 * `capstan resources`, `capstan read`, `capstan prompts` and `capstan prompt` (the built CLI,
 * `npm run build` first) against a real gateway with server-everything: what they print, and
 * that each read and get is on record like any call.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cliProcess';
import type { TestGateway } from '../support/gateway';
import { startEverythingGateway } from '../support/mcp';

const ARCHITECTURE = 'demo://resource/static/document/architecture.md';

describe('capstan resources, read, prompts, prompt', () => {
  let gateway: TestGateway;
  let scratch: string;
  const capstan = (args: string[]) => runCli([...args, '--url', gateway.url], { CAPSTAN_TOKEN: gateway.token });

  beforeAll(async () => {
    ({ gateway } = await startEverythingGateway());
    scratch = mkdtempSync(join(tmpdir(), 'capstan-read-'));
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists resources and templates with their URIs, servers and ids', async () => {
    const run = await capstan(['resources']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^URI\s+SERVER\s+TYPE\s+TITLE\s+ID\n/);
    expect(run.stdout).toContain(`${ARCHITECTURE}`);
    expect(run.stdout).toMatch(/demo:\/\/resource\/dynamic\/text\/\{resourceId\}\s+everything\s+text\/plain\s+Dynamic Text Resource \(template: resourceId\)/);
  });

  it('reads a resource as text, a template by its variables, and a binary part to a file', async () => {
    const read = await capstan(['read', ARCHITECTURE]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('#');
    const requestId = /^ok: (\S+) in task/m.exec(read.stderr)?.[1];
    expect(requestId).toBeDefined();
    expect(gateway.host.ledger.query({ requestId: requestId! }).map((entry) => [entry.kind, entry.details.status ?? null])).toEqual([
      ['call_started', null],
      ['call_finished', 'ok'],
    ]);

    const { body } = await (async () => ({ body: (await (await gateway.request('/resources')).json()) as { templates: { id: string; uriTemplate: string }[] } }))();
    const blobTemplate = body.templates.find((template) => template.uriTemplate.includes('/blob/'))!;
    const file = join(scratch, 'blob.bin');
    const blob = await capstan(['read', '--id', blobTemplate.id, '--var', 'resourceId=4', '--out', file]);
    expect(blob.code).toBe(0);
    expect(blob.stderr).toMatch(/demo:\/\/resource\/dynamic\/blob\/4: \d+ bytes of text\/plain written to/);
    expect(readFileSync(file, 'utf8')).toContain('Resource 4');

    const missing = await capstan(['read', 'demo://nothing']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('RESOURCE_NOT_FOUND');
  });

  it('lists prompts with their arguments and gets one with --arg', async () => {
    const list = await capstan(['prompts']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/args-prompt\s+everything\s+city \[state\]/);
    const got = await capstan(['prompt', 'args-prompt', '--arg', 'city=Paris']);
    expect(got).toMatchObject({ code: 0, stdout: "user: What's weather in Paris?\n" });
    const missing = await capstan(['prompt', 'args-prompt']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ARGUMENT_MISSING: city');
  });

  it('answers --help for each command', async () => {
    for (const command of ['resources', 'read', 'prompts', 'prompt']) {
      const run = await runCli([command, '--help']);
      expect(run, command).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(new RegExp(`^Usage: capstan ${command}\\b`));
    }
  });
});
