/** The console's MCP server form: its draft to and from config.json's entry, and its checks (renderer/features/providers/form/serverDraft.ts). */
import { describe, expect, it } from 'vitest';
import { draftFromView, emptyDraft, entryFromDraft, validateDraft, type ServerDraft } from '../../renderer/features/providers/form/serverDraft';
import { providerRows } from '../../renderer/features/providers/providerRows';
import { SECRET_MASK, type McpServerView } from '../../shared/mcp';

const status = { state: 'ready' as const, reason: null, since: '2026-01-01T00:00:00.000Z', retryAt: null, stderr: [], protocolVersion: '2025-11-25' };
const view = (overrides: Partial<McpServerView>): McpServerView => ({
  name: 'everything',
  transport: 'stdio',
  entry: { command: 'node' },
  masked: [],
  enabled: true,
  status,
  tools: 12,
  timeoutMs: 60_000,
  toolTimeoutMs: 600_000,
  maxResultBytes: 4 * 1024 * 1024,
  ...overrides,
});
const draft = (overrides: Partial<ServerDraft>): ServerDraft => ({ ...emptyDraft(), name: 'files', command: 'npx', ...overrides });

describe('entryFromDraft', () => {
  it('writes a stdio entry as an operator would, leaving empty optional fields out', () => {
    expect(entryFromDraft(draft({}))).toEqual({ command: 'npx' });
    expect(
      entryFromDraft(
        draft({
          args: [{ key: '', value: '-y', masked: false }, { key: '', value: '/tmp/a b', masked: false }],
          env: [{ key: 'DEBUG ', value: '1', masked: false }],
          cwd: ' /srv ',
          enabled: false,
          timeoutMs: '5000',
        }),
      ),
    ).toEqual({ command: 'npx', args: ['-y', '/tmp/a b'], env: { DEBUG: '1' }, cwd: '/srv', enabled: false, timeoutMs: 5000 });
  });

  it('writes a url entry with its headers and drops what belongs to stdio', () => {
    const entry = entryFromDraft(draft({ transport: 'http', url: 'http://127.0.0.1:9000/mcp', env: [{ key: 'X', value: 'y', masked: false }], headers: [{ key: 'Authorization', value: 'Bearer t', masked: false }] }));
    expect(entry).toEqual({ url: 'http://127.0.0.1:9000/mcp', headers: { Authorization: 'Bearer t' } });
  });

  it('keeps "type" only while the transport is the one it names', () => {
    expect(entryFromDraft(draft({ transport: 'http', url: 'http://h/mcp', type: 'streamable-http' }))).toMatchObject({ type: 'streamable-http' });
    expect(entryFromDraft(draft({ transport: 'stdio', type: 'streamable-http' }))).not.toHaveProperty('type');
  });
});

describe('draftFromView', () => {
  it('keeps masked values masked, with the mask to put back, and round-trips the entry unchanged', () => {
    const masked = `${SECRET_MASK}abcd`;
    const server = view({
      transport: 'http',
      entry: { url: 'http://127.0.0.1:9000/mcp', headers: { Authorization: masked, Accept: 'application/json' }, timeoutMs: 5000 },
      masked: ['headers.Authorization'],
    });
    const restored = draftFromView(server);
    expect(restored.headers).toEqual([
      { key: 'Authorization', value: masked, masked: true, stored: masked },
      { key: 'Accept', value: 'application/json', masked: false },
    ]);
    expect(restored.timeoutMs).toBe('5000');
    expect(entryFromDraft(restored)).toEqual(server.entry);
  });

  it("keeps a url server's oauth entry (its secret masked, for the gateway to restore) through an edit", () => {
    const oauth = { clientId: 'capstan-desktop', clientSecret: `${SECRET_MASK}wxyz`, scope: 'issues:read' };
    const server = view({ transport: 'http', entry: { url: 'https://mcp.tracker.example/mcp', oauth }, masked: ['oauth.clientSecret'] });
    expect(entryFromDraft(draftFromView(server))).toEqual(server.entry);
  });

  it('marks masked arguments and a masked url', () => {
    const server = view({ entry: { command: 'node', args: ['server.js', `${SECRET_MASK}9f`] }, masked: ['args.1'] });
    expect(draftFromView(server).args.map((row) => row.masked)).toEqual([false, true]);
    const remote = view({ transport: 'http', entry: { url: `http://h/mcp?key=${SECRET_MASK}` }, masked: ['url'] });
    expect(draftFromView(remote)).toMatchObject({ urlMasked: true, urlStored: `http://h/mcp?key=${SECRET_MASK}` });
  });
});

describe('validateDraft', () => {
  it('accepts a complete draft', () => {
    expect(validateDraft(draft({}), ['builtin', 'skills'], true)).toEqual({});
  });

  it('names every field that is wrong', () => {
    const errors = validateDraft(
      draft({ name: 'bad name', command: ' ', env: [{ key: 'A=B', value: '', masked: false }, { key: '', value: 'x', masked: false }], timeoutMs: '12.5', maxResultBytes: '10' }),
      [],
      true,
    );
    expect(Object.keys(errors).sort()).toEqual(['command', 'env.0.key', 'env.1.key', 'maxResultBytes', 'name', 'timeoutMs']);
    expect(errors.maxResultBytes).toBe('Between 1,024 and 67,108,864.');
  });

  it('refuses reserved and taken names only when adding', () => {
    expect(validateDraft(draft({ name: 'builtin' }), [], true).name).toMatch(/reserved/);
    expect(validateDraft(draft({ name: 'files' }), ['files'], true).name).toMatch(/exists already/);
    expect(validateDraft(draft({ name: 'files' }), ['files'], false)).toEqual({});
  });

  it('checks urls and header names, and a header given twice in another case', () => {
    expect(validateDraft(draft({ transport: 'http', url: 'ftp://h' }), [], true).url).toMatch(/http/);
    const headers = [
      { key: 'X-Token', value: '1', masked: false },
      { key: 'x-token', value: '2', masked: false },
      { key: 'Bad Header', value: '3', masked: false },
    ];
    expect(validateDraft(draft({ transport: 'http', url: 'https://h/mcp', headers }), [], true)).toEqual({
      'headers.1.key': 'Given twice.',
      'headers.2.key': expect.stringMatching(/header name/),
    });
  });

  it('keeps roots as absolute folders, in order, on either transport, and refuses a relative one', () => {
    const roots = [
      { key: '', value: ' /srv/data ', masked: false },
      { key: '', value: 'C:\\work', masked: false },
    ];
    expect(entryFromDraft(draft({ name: 'files', command: 'node', roots }))).toMatchObject({ command: 'node', roots: ['/srv/data', 'C:\\work'] });
    expect(entryFromDraft(draft({ name: 'remote', transport: 'http', url: 'https://h/mcp', roots }))).toMatchObject({ url: 'https://h/mcp', roots: ['/srv/data', 'C:\\work'] });
    expect(entryFromDraft(draft({ name: 'files', command: 'node' }))).not.toHaveProperty('roots');
    const errors = validateDraft(draft({ name: 'files', command: 'node', roots: [{ key: '', value: 'relative', masked: false }, { key: '', value: '', masked: false }] }), [], true);
    expect(errors).toEqual({ 'roots.0.value': expect.stringMatching(/absolute/), 'roots.1.value': expect.stringMatching(/folder/) });
    expect(draftFromView(view({ entry: { command: 'node', roots: ['/srv/data'] } })).roots).toEqual([{ key: '', value: '/srv/data', masked: false }]);
  });
});

describe('providerRows', () => {
  const builtin = { name: 'builtin', kind: 'builtin' as const, enabled: true, bindingGeneration: 1, tools: 8, skills: 0, diagnostics: 0 };
  it("joins providers with their server entries, prefers the catalog's status, and lists configured servers the catalog does not", () => {
    const failed = { ...status, state: 'failed' as const, reason: 'exited' };
    const everything = { ...builtin, name: 'everything', kind: 'mcp' as const, status: failed };
    const rows = providerRows([builtin, everything], [view({}), view({ name: 'later', enabled: false })]);
    expect(rows.map((row) => [row.name, row.status?.state, row.server !== undefined, row.info !== undefined])).toEqual([
      ['builtin', undefined, false, true],
      ['everything', 'failed', true, true],
      ['later', 'ready', true, false],
    ]);
  });
});
