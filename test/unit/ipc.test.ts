import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiHandlers } from '../../electron/services/api';
import type { ToolDescriptor } from '../../shared/api';
import type { CallReview } from '../../shared/approvals';
import type { AskOperator } from '../../electron/services/confirmation';
import {
  confirmationPrompt,
  createIpcDispatcher,
  isTrustedSender,
  MAX_REVIEWABLE_ARGUMENTS,
} from '../../electron/transports/ipc';
import { createHost, type Host } from '../../electron/host';
import { CapstanError } from '../../shared/errors';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';
import { BUILTIN } from '../support/builtins';

describe('isTrustedSender', () => {
  const appUrl = pathToFileURL('/opt/Capstan/resources/app.asar/dist/renderer/index.html').href;

  it('trusts our own index.html, whatever its hash or query', () => {
    expect(isTrustedSender(appUrl, appUrl)).toBe(true);
    expect(isTrustedSender(`${appUrl}#/tools/http_check`, appUrl)).toBe(true);
    expect(isTrustedSender(`${appUrl}?theme=dark#x`, appUrl)).toBe(true);
  });

  it('matches paths however they are percent-encoded', () => {
    const spaced = pathToFileURL('/home/ana/My Apps/Capstán/dist/renderer/index.html').href;
    expect(isTrustedSender('file:///home/ana/My%20Apps/Capst%C3%A1n/dist/renderer/index.html', spaced)).toBe(true);
    // A folder named "100%": Chromium leaves the lone percent sign, Node encodes it.
    const percent = pathToFileURL('/opt/100%/dist/renderer/index.html').href;
    expect(isTrustedSender('file:///opt/100%/dist/renderer/index.html', percent)).toBe(true);
  });

  it('refuses every other page', () => {
    for (const url of [
      'http://127.0.0.1:7077/',
      'http://127.0.0.1:7077/index.html',
      'https://attacker.example/opt/Capstan/resources/app.asar/dist/renderer/index.html',
      'about:blank',
      'about:srcdoc',
      'data:text/html,<p>hi</p>',
      'devtools://devtools/bundled/devtools_app.html',
      'file:///opt/Capstan/resources/app.asar/dist/renderer/other.html',
      'file:///opt/Capstan/resources/app.asar/dist/renderer/',
      'file:///etc/passwd',
      'file://fileserver/opt/Capstan/resources/app.asar/dist/renderer/index.html',
      '',
      'not a url',
    ]) {
      expect(isTrustedSender(url, appUrl), url).toBe(false);
    }
  });

  it('trusts nothing when the app URL itself is not a file URL', () => {
    expect(isTrustedSender('about:blank', 'about:blank')).toBe(false);
    expect(isTrustedSender('http://127.0.0.1/', 'http://127.0.0.1/')).toBe(false);
  });
});

describe('the IPC dispatcher over a real host', () => {
  let dataDir: string;
  let host: Host;
  let target: LoopbackServer;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-ipc-'));
    // http_check's target is a loopback server, which its destination policy refuses unless allowed.
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ httpCheck: { allow: ['127.0.0.1/32'] } }));
    host = await createHost({ dataDir, logger });
    target = await startLoopbackServer((_req, res) => {
      res.writeHead(204, { server: 'loopback-test' });
      res.end();
    });
  });
  afterEach(() => {
    target.hits.length = 0;
  });
  afterAll(async () => {
    await target.close();
    host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const notConsulted = async (): Promise<boolean> => {
    throw new Error('the operator should not have been asked to approve a change');
  };
  const dispatcherWith = (confirm: AskOperator, handlers: ApiHandlers = host.handlers) => createIpcDispatcher({ handlers, logger, ask: confirm, consent: notConsulted });
  const neverAsked: AskOperator = async () => {
    throw new Error('the operator should not have been asked');
  };
  const checkArgs = () => ({ url: `${target.url}/health`, method: 'HEAD' });

  it('refuses names that are not operations, including inherited ones', async () => {
    const dispatcher = dispatcherWith(neverAsked);
    for (const name of ['deleteEverything', 'constructor', '__proto__', 'toString', '']) {
      expect(await dispatcher(name, undefined)).toEqual({
        ok: false,
        requestId: expect.any(String),
        error: { code: 'BAD_REQUEST', message: expect.stringContaining('unknown operation') },
      });
    }
  });

  it('answers listTools with the builtin catalog', async () => {
    const reply = await dispatcherWith(neverAsked)('listTools', undefined);
    expect(reply.ok).toBe(true);
    const tools = (reply as { value: { tools: { name: string; needConfirm: boolean }[] } }).value.tools;
    expect(tools).toHaveLength(BUILTIN.total);
    expect(tools.filter((tool) => tool.needConfirm).map((tool) => tool.name)).toEqual(['http_check']);
  });

  it('wraps a payload that breaks the contract as BAD_REQUEST', async () => {
    const dispatcher = dispatcherWith(neverAsked);
    expect(await dispatcher('callTool', { tool: 42 })).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(await dispatcher('callTool', 'time_now')).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(await dispatcher('callTool', { tool: 'time_now', unexpected: true })).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(await dispatcher('saveSettings', { whitelist: 'time_now' })).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(await dispatcher('listTools', { page: 2 })).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('takes a payload as HTTP would carry it: plain JSON within 1 MiB, never one object in two places or a BigInt', async () => {
    const dispatcher = dispatcherWith(neverAsked);
    // A few bytes to send, a tree of 2^40 nodes to walk: refused before anything walks it.
    let shared: Record<string, unknown> = { leaf: 1 };
    for (let depth = 0; depth < 40; depth += 1) shared = { a: shared, b: shared };
    expect(await dispatcher('callTool', { tool: 'time_now', arguments: shared })).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining('one object in two places') } });
    expect(await dispatcher('callTool', { tool: 'time_now', arguments: { x: 1n } })).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining('bigint') } });
    expect(await dispatcher('callTool', { tool: 'note_add', arguments: { text: 'x'.repeat(1024 * 1024) } })).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    // What a page really sends still runs, an undefined field dropped as JSON drops it.
    expect(await dispatcher('callTool', { tool: 'time_now', arguments: {}, sessionId: undefined })).toMatchObject({ ok: true });
  });

  it('runs a tool call and keeps a well-formed requestId, replacing a bad one', async () => {
    const dispatcher = dispatcherWith(neverAsked);
    const kept = await dispatcher('callTool', { tool: 'time_now', arguments: {}, requestId: 'tool-registry-abc.1' });
    expect(kept).toMatchObject({ ok: true, value: { ok: true, requestId: 'tool-registry-abc.1', result: { timezone: expect.any(String) } } });
    const replaced = await dispatcher('callTool', { tool: 'time_now', requestId: 'has spaces and / slashes' });
    expect(replaced).toMatchObject({ ok: true, value: { ok: true, requestId: expect.stringMatching(/^req-/) } });
  });

  it('answers a failed call with the error envelope, like every other operation', async () => {
    const reply = await dispatcherWith(neverAsked)('callTool', { tool: 'note_search', arguments: {} });
    expect(reply).toMatchObject({ ok: false, requestId: expect.any(String), error: { code: 'ARGUMENT_MISSING', message: 'ARGUMENT_MISSING: query' } });
    const missing = await dispatcherWith(neverAsked)('callTool', { tool: 'time_nw' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_FOUND' } });
  });

  it('saves and reads settings', async () => {
    const dispatcher = dispatcherWith(neverAsked);
    expect(await dispatcher('saveSettings', { whitelist: ['time_now'] })).toEqual({ ok: true, value: { whitelist: ['time_now'] } });
    expect(await dispatcher('getSettings', undefined)).toEqual({ ok: true, value: { whitelist: ['time_now'] } });
  });

  it('hides an unexpected fault behind INTERNAL_ERROR', async () => {
    const broken: ApiHandlers = {
      ...host.handlers,
      listTools: async () => {
        throw new Error('EACCES: /home/ana/.config/Capstan/capstan.db');
      },
    };
    const reply = await dispatcherWith(neverAsked, broken)('listTools', undefined);
    expect(reply).toEqual({ ok: false, requestId: expect.any(String), error: { code: 'INTERNAL_ERROR', message: 'INTERNAL_ERROR: the gateway could not complete this request' } });
    expect(JSON.stringify(reply)).not.toContain('EACCES');
  });

  it('asks the operator before a tool that needs confirmation, and runs it once approved', async () => {
    const asked: CallReview[] = [];
    const dispatcher = dispatcherWith(async (request) => {
      asked.push(request);
      expect(target.hits).toEqual([]);
      return true;
    });
    const reply = await dispatcher('callTool', { tool: 'http_check', arguments: checkArgs(), requestId: 'tool-registry-confirm' });
    expect(reply).toMatchObject({ ok: true, value: { ok: true, requestId: 'tool-registry-confirm', result: { reachable: true, status: 204 } } });
    expect(target.hits).toEqual([{ method: 'HEAD', url: '/health' }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: { id: 'builtin:http_check', name: 'http_check', riskLevel: 'medium', mutating: false },
      arguments: checkArgs(),
      principal: 'operator',
      taskId: expect.any(String),
      requestId: 'tool-registry-confirm',
    });
    // The dialog confirmed the call in its own confirm step: one call on record, confirmed by the dialog.
    const confirmation = host.ledger.query({ requestId: 'tool-registry-confirm', kind: 'confirmation', limit: 10 });
    expect(confirmation).toHaveLength(1);
    expect(confirmation[0]?.details).toMatchObject({ confirmedBy: 'dialog' });
  });

  it('does not run the call when the operator declines', async () => {
    const reply = await dispatcherWith(async () => false)('callTool', { tool: 'http_check', arguments: checkArgs() });
    expect(reply).toMatchObject({
      ok: false,
      taskId: expect.any(String),
      error: { code: 'CONFIRMATION_REQUIRED', message: 'CONFIRMATION_REQUIRED: the operator declined to run http_check' },
    });
    // The page gets no challenge it could answer.
    expect(!reply.ok && reply.error).not.toHaveProperty('challenge');
    expect(target.hits).toEqual([]);
  });

  it('ignores a confirmation sent by the page, even a genuine one', async () => {
    // A challenge the gateway really issued, as if the page had obtained it somehow.
    const issued = await host.handlers.callTool({ tool: 'http_check', arguments: checkArgs() }, { requestId: 'x', log: logger, principal: 'operator' as const }).catch((error: CapstanError) => error);
    const challengeId = issued instanceof CapstanError ? (issued.details.challenge as { id?: string } | undefined)?.id : undefined;
    expect(challengeId).toEqual(expect.any(String));

    const confirm = vi.fn(async () => false);
    const reply = await dispatcherWith(confirm)('callTool', { tool: 'http_check', arguments: checkArgs(), confirmation: challengeId });
    expect(confirm).toHaveBeenCalledOnce();
    expect(reply).toMatchObject({ ok: false, error: { code: 'CONFIRMATION_REQUIRED' } });
    expect(target.hits).toEqual([]);
  });

  it('does not ask about tools that need no confirmation', async () => {
    const confirm = vi.fn(async () => true);
    await dispatcherWith(confirm)('callTool', { tool: 'time_now', confirmation: 'anything' });
    expect(confirm).not.toHaveBeenCalled();
  });

  it('asks one question at a time', async () => {
    let open = 0;
    let most = 0;
    const dispatcher = dispatcherWith(async () => {
      open += 1;
      most = Math.max(most, open);
      await new Promise((resolve) => setTimeout(resolve, 20));
      open -= 1;
      return true;
    });
    const replies = await Promise.all([1, 2, 3].map(() => dispatcher('callTool', { tool: 'http_check', arguments: checkArgs() })));
    expect(most).toBe(1);
    expect(replies.every((reply) => reply.ok && (reply.value as { ok: boolean }).ok)).toBe(true);
    expect(target.hits).toHaveLength(3);
  });

  it('does not run the call when asking fails', async () => {
    const reply = await dispatcherWith(async () => {
      throw new Error('no display');
    })('callTool', { tool: 'http_check', arguments: checkArgs() });
    expect(reply).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    expect(target.hits).toEqual([]);
  });
});

describe('the confirmation prompt', () => {
  let dataDir: string;
  let host: Host;
  let httpCheck: ToolDescriptor;

  // The real descriptor, as the gateway lists it.
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-prompt-'));
    host = await createHost({ dataDir });
    const { tools } = await host.handlers.listTools(undefined, { requestId: 'prompt', log: pino({ level: 'silent' }), principal: 'operator' as const });
    const found = tools.find((tool) => tool.name === 'http_check');
    if (!found) throw new Error('http_check is not registered');
    httpCheck = found;
  });
  afterAll(() => {
    host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const request = (args: Record<string, unknown>): CallReview => ({
    tool: httpCheck,
    arguments: args,
    principal: 'operator',
    taskId: 'task-1',
    sessionId: 'operator',
    requestId: 'tool-registry-1',
  });

  it('shows the tool, its risk and the exact arguments, with Cancel as the default', () => {
    const args = { url: 'http://127.0.0.1:9/health', method: 'GET' };
    const { options, approveId } = confirmationPrompt(request(args));
    expect(options.message).toContain('http_check');
    expect(options.detail).toContain('Risk: medium');
    expect(options.detail).toContain(JSON.stringify(args, null, 2));
    expect(options.detail).toContain('tool-registry-1');
    expect(options.buttons[options.defaultId]).toBe('Cancel');
    expect(options.cancelId).toBe(options.defaultId);
    expect(approveId).not.toBe(options.cancelId);
    expect(options.buttons[approveId ?? -1]).toMatch(/^Run/);
  });

  it("shows an agent's arguments and a server's words as they read, a server's tool by its id", () => {
    const review: CallReview = {
      ...request({ to: 'alice\u202E0001$\u202C', amount: '1\u200B0' }),
      principal: 'agent:bot',
      tool: { ...httpCheck, id: 'evil:pay', name: 'pay', title: 'Pay\u202E', description: 'Reads the clock.\u001b[8m' },
    };
    const { options } = confirmationPrompt(review);
    expect(options.detail).toContain('"to": "alice\\u{202E}0001$\\u{202C}"');
    expect(options.detail).toContain('"amount": "1\\u{200B}0"');
    expect(options.detail).toContain('Reads the clock.␛[8m');
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(`${options.message}${options.detail}${options.buttons.join('')}`).not.toMatch(/[\u001b\u200B\u202A-\u202E]/);
    expect(options.message).toBe('Let agent:bot run Pay\\u{202E} (evil:pay)?');
    expect(options.buttons).toEqual(['Cancel', 'Approve evil:pay']);
  });

  it('offers no way to approve arguments too long to review', () => {
    const { options, approveId } = confirmationPrompt(request({ url: `http://127.0.0.1/${'a'.repeat(MAX_REVIEWABLE_ARGUMENTS)}` }));
    expect(approveId).toBeUndefined();
    expect(options.buttons).toEqual(['Cancel']);
    expect(options.detail).toContain('too long to review');
  });
});
