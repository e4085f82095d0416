import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, readConfig, writeConfig } from '../../electron/config';
import { createSchemaCompiler, ExternalSchemaCompilers, toolContract } from '../../electron/catalog/contract';
import { OutcomeUnknownError } from '../../electron/catalog/tool';
import { Call } from '../../electron/runtime/call';
import { runtimeFixture, testTool, type RuntimeFixture } from '../support/runtime';

const dirs: string[] = [];
const dataDir = (config?: unknown) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-mcp-config-'));
  dirs.push(dir);
  if (config !== undefined) writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('mcpServers and toolPolicy in config.json', () => {
  it('reads both shapes other hosts paste, leaving optional fields absent', () => {
    const config = readConfig(
      dataDir({
        mcpServers: {
          everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { DEBUG: '1' } },
          remote: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer x' }, timeoutMs: 5000 },
        },
        toolPolicy: [{ pattern: 'remote:*', needConfirm: true, riskLevel: 'high' }],
      }),
    );
    expect(config.mcpServers.everything).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { DEBUG: '1' } });
    expect(config.mcpServers.remote?.timeoutMs).toBe(5000);
    expect(config.toolPolicy).toEqual([{ pattern: 'remote:*', needConfirm: true, riskLevel: 'high' }]);
  });

  it.each([
    [{ mcpServers: { x: { command: 'a', url: 'http://127.0.0.1/mcp' } } }, 'mcpServers.x: give either "command"'],
    [{ mcpServers: { x: {} } }, 'mcpServers.x: give either "command"'],
    [{ mcpServers: { builtin: { command: 'a' } } }, 'mcpServers.builtin: is reserved'],
    [{ mcpServers: { 'has space': { command: 'a' } } }, 'mcpServers.has space: must be 1-128'],
    [{ mcpServers: { x: { url: 'ftp://example/mcp' } } }, 'mcpServers.x.url: must be an http:// or https:// URL'],
    [{ mcpServers: { x: { command: 'a', headers: { A: 'b' } } } }, 'mcpServers.x: "headers" are for a url server'],
    [{ mcpServers: { x: { command: 'a', autoApprove: ['y'] } } }, 'mcpServers.x: Unrecognized key: "autoApprove"'],
    [{ mcpServers: { x: { command: 'a', timeoutMs: 5 } } }, 'mcpServers.x.timeoutMs'],
    [{ toolPolicy: [{ pattern: 'x:*', needConfirm: false }] }, 'toolPolicy.0.needConfirm: can only be true'],
  ])('stops the start on %j with the file, the field and the reason', (config, message) => {
    const dir = dataDir(config);
    expect(() => readConfig(dir)).toThrow(ConfigError);
    expect(() => readConfig(dir)).toThrow(`${join(dir, 'config.json')}: ${message}`);
  });

  it('writes config.json whole and atomically, keeping the other keys, owner-only', () => {
    const dir = dataDir({ grants: [{ pattern: '*', authority: 'inspect' }], httpCheck: { allow: ['127.0.0.1'] } });
    writeConfig(dir, { grants: [{ pattern: '*', authority: 'inspect' }], httpCheck: { allow: ['127.0.0.1'] }, mcpServers: { a: { command: 'x' } } });
    const written = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(Object.keys(written)).toEqual(['grants', 'httpCheck', 'mcpServers']);
    expect(readdirSync(dir)).toEqual(['config.json']);
    if (process.platform !== 'win32') expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    // A change that would stop the next start is refused and writes nothing.
    expect(() => writeConfig(dir, { mcpServers: { skills: { command: 'x' } } })).toThrow(ConfigError);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual(written);
  });
});

describe('schemas from MCP servers', () => {
  const definition = (inputSchema: Record<string, unknown>, externalSchema?: boolean) =>
    testTool({ name: 't', description: 'd', run: () => null, inputSchema, ...(externalSchema ? { externalSchema, declared: null } : {}) });
  const draft07 = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { n: { type: 'integer', minimum: 1, 'x-unit': 'items' } },
    required: ['n'],
    definitions: { unused: { type: 'string' } },
  };

  it('compiles draft-07 and 2020-12 schemas with keywords strict mode refuses, validating what they say', () => {
    const tool = toolContract(createSchemaCompiler(), 'mcp', definition(draft07, true));
    expect(tool.validateArguments({ n: 2 })).toBe(true);
    expect(tool.validateArguments({ n: 0 })).toBe(false);
    const modern = toolContract(createSchemaCompiler(), 'mcp', definition({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'string', examples: ['x'], 'x-ui': 1 } }, $defs: {} }, true));
    expect(modern.validateArguments({ a: 1 })).toBe(false);
  });

  it('keeps builtin schemas strict 2020-12 (an unknown keyword is a mistake there)', () => {
    expect(() => toolContract(createSchemaCompiler(), 'builtin', definition({ type: 'object', properties: { a: { type: 'string', 'x-ui': 1 } } }))).toThrow(/does not compile/);
  });

  it('refuses a dialect it cannot read, and lets two servers use the same $id', () => {
    expect(() => toolContract(createSchemaCompiler(), 'mcp', definition({ $schema: 'https://example.com/my-dialect', type: 'object' }, true))).toThrow(/not a dialect/);
    const compilers = new ExternalSchemaCompilers();
    const withId = { $id: 'https://example.com/args', type: 'object' };
    compilers.compile(withId);
    expect(() => compilers.compile({ ...withId })).not.toThrow();
  });

  it('carries what the server declared only on tools from outside, so builtin contract hashes hold', () => {
    const builtin = toolContract(createSchemaCompiler(), 'builtin', definition({ type: 'object' }));
    expect(Object.keys(builtin.contract)).not.toContain('declared');
    const mcp = toolContract(createSchemaCompiler(), 'mcp', definition(draft07, true));
    expect(mcp.contract).toMatchObject({ declared: null, outputSchema: null, tightenedBy: [], deprecated: false });
  });
});

describe('a call whose work lost track of it', () => {
  let fixture: RuntimeFixture | undefined;
  afterEach(() => fixture?.close());

  it('ends outcome_unknown with the reason the work gave', async () => {
    const outcome = await new Call({ requestId: 'r', capability: 'mcp:t', mutating: true, timeoutMs: 1000 }, 100).run(() => Promise.reject(new OutcomeUnknownError('lost its connection to the server mid-call')));
    expect(outcome).toMatchObject({ status: 'outcome_unknown', error: { code: 'OUTCOME_UNKNOWN', message: 'OUTCOME_UNKNOWN: mcp:t lost its connection to the server mid-call; its effects are unknown' } });
  });

  it('arms the mutation gate for a mutating one, exactly as for a builtin past its grace period', async () => {
    fixture = await runtimeFixture({
      tools: [
        testTool({ name: 'write', description: 'writes', mutating: true, run: () => Promise.reject(new OutcomeUnknownError('lost its connection')) }),
        testTool({ name: 'write_again', description: 'writes', mutating: true, run: () => 'ok' }),
      ],
    });
    const task = fixture.runtime.start('s', 'writes');
    const outcome = await fixture.runtime.runCall(task, { requestId: 'w1', capability: 'test:write', mutating: true, timeoutMs: 1000 }, () => Promise.reject(new OutcomeUnknownError('lost its connection')));
    expect(outcome.status).toBe('outcome_unknown');
    await expect(fixture.runtime.runCall(task, { requestId: 'w2', capability: 'test:write_again', mutating: true, timeoutMs: 1000 }, () => 'ok')).rejects.toMatchObject({ code: 'MUTATION_BLOCKED' });
  });
});
