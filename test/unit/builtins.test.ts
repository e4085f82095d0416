import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../electron/catalog/catalog';
import { ToolArgumentError } from '../../electron/catalog/tool';
import { builtinProvider } from '../../electron/providers/builtin';
import type { ToolContract } from '../../shared/capability';
import { ftsQuery } from '../../electron/providers/builtin/notes';
import { timeNow } from '../../electron/providers/builtin/timeNow';
import { Ledger, loadLedgerKey } from '../../electron/runtime/ledger';
import { DATABASE_FILE, openDatabase, type Database } from '../../electron/store/database';
import { startLoopbackServer, type LoopbackServer } from '../support/loopbackServer';

let dataDir: string;
let db: Database;
let catalog: Catalog;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'capstan-builtins-'));
  db = openDatabase(dataDir);
  catalog = new Catalog();
  // http_check's targets are loopback servers, which its destination policy refuses unless allowed.
  await catalog.addProvider(builtinProvider({ db, dataDir, httpCheck: { allow: ['127.0.0.0/8'] } }));
});

const tools = () => catalog.entries().map((entry) => entry.contract as ToolContract);
afterAll(() => {
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs a builtin the way the gateway does: schema check first, then the tool. */
async function run(name: string, args: Record<string, unknown> = {}, signal = new AbortController().signal) {
  const { tool } = catalog.resolveTool(name);
  if (!tool.validateArguments(args)) throw new Error(JSON.stringify(tool.validateArguments.errors));
  return (await tool.definition.run(args, { signal, requestId: 'unit' })) as Record<string, unknown>;
}

describe('the builtin catalog', () => {
  it('is the seed catalog: 8 tools, 7 low risk without confirmation, http_check medium with confirmation', () => {
    expect(tools().map((tool) => tool.id)).toEqual([
      'builtin:device_inspect',
      'builtin:http_check',
      'builtin:local_status',
      'builtin:note_add',
      'builtin:note_search',
      'builtin:time_now',
      'builtin:todo_add',
      'builtin:todo_list',
    ]);
    expect(catalog.diagnostics()).toEqual([]);
    expect(tools().filter((tool) => !tool.needConfirm && tool.riskLevel === 'low')).toHaveLength(7);
    expect(tools().find((tool) => tool.needConfirm)).toMatchObject({ name: 'http_check', riskLevel: 'medium' });
  });

  it('describes every tool fully, with closed schemas and tags', () => {
    for (const tool of tools()) {
      expect(tool.description.length, tool.name).toBeGreaterThan(20);
      expect(tool.tags.length, tool.name).toBeGreaterThan(0);
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(tool.provider).toBe('builtin');
    }
    expect(tools().filter((tool) => tool.mutating).map((tool) => tool.name)).toEqual(['note_add', 'todo_add']);
  });

  it('gives return examples shaped like real results', async () => {
    const samples: Record<string, Record<string, unknown>> = {
      time_now: {},
      local_status: {},
      device_inspect: {},
      note_add: { body: 'example shape' },
      note_search: { query: 'example' },
      todo_add: { title: 'example shape' },
      todo_list: {},
    };
    for (const [name, args] of Object.entries(samples)) {
      const result = await run(name, args);
      const example = (catalog.resolveTool(name).contract as ToolContract).returnExample as Record<string, unknown>;
      expect(Object.keys(result).sort(), name).toEqual(Object.keys(example).sort());
    }
  });
});

describe('time_now', () => {
  it('reports the time in a named zone with its UTC offset', () => {
    const at = new Date('2026-07-01T12:00:00Z');
    expect(timeNow('Asia/Kolkata', at)).toEqual({
      iso: '2026-07-01T12:00:00.000Z',
      epochMs: at.getTime(),
      timezone: 'Asia/Kolkata',
      utcOffset: '+05:30',
      local: '2026-07-01 17:30:00',
    });
    expect(timeNow('Europe/Paris', at).utcOffset).toBe('+02:00');
    expect(timeNow('UTC', at).utcOffset).toBe('+00:00');
    expect(timeNow('America/St_Johns', at).utcOffset).toBe('-02:30');
    expect(timeNow('Pacific/Chatham', new Date('2026-01-01T00:00:00.999Z')).utcOffset).toBe('+13:45');
    expect(timeNow('Pacific/Kiritimati', at)).toMatchObject({ utcOffset: '+14:00', local: '2026-07-02 02:00:00' });
  });

  it('reads the wall clock of each second, however the calls come (a second formatted once serves the rest of it)', () => {
    const local = (iso: string) => timeNow('Europe/Paris', new Date(iso)).local;
    expect(local('2026-10-25T00:59:59.001Z')).toBe('2026-10-25 02:59:59');
    expect(local('2026-10-25T00:59:59.999Z')).toBe('2026-10-25 02:59:59');
    // Across the end of summer time, back to an earlier second, and forward again.
    expect(timeNow('Europe/Paris', new Date('2026-10-25T01:00:00.000Z'))).toMatchObject({ local: '2026-10-25 02:00:00', utcOffset: '+01:00' });
    expect(local('2026-10-25T00:59:59.500Z')).toBe('2026-10-25 02:59:59');
    expect(local('1969-12-31T23:59:59.500Z')).toBe('1970-01-01 00:59:59');
    expect(local('1970-01-01T00:00:00.000Z')).toBe('1970-01-01 01:00:00');
  });

  it('defaults to the host zone and refuses an unknown zone naming the field', async () => {
    expect((await run('time_now')).timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(() => timeNow('Mars/Olympus_Mons')).toThrow(ToolArgumentError);
  });
});

describe('local_status and device_inspect', () => {
  it('reports the host, memory, disk of the data volume and runtime versions', async () => {
    const status = await run('local_status');
    expect(status).toMatchObject({ arch: process.arch, runtime: { node: process.versions.node, electron: null } });
    const disk = status.disk as { path: string; totalBytes: number; usedPercent: number };
    expect(disk.path).toBe(dataDir);
    expect(disk.totalBytes).toBeGreaterThan(0);
    expect(disk.usedPercent).toBeGreaterThanOrEqual(0);
    expect(disk.usedPercent).toBeLessThanOrEqual(100);
    expect(Date.parse(status.checkedAt as string)).not.toBeNaN();
  });

  it('lists network interfaces including loopback, CPUs and memory', async () => {
    const device = await run('device_inspect');
    const interfaces = device.interfaces as { name: string; address: string; internal: boolean }[];
    expect(interfaces.some((nic) => nic.internal && nic.address === '127.0.0.1')).toBe(true);
    expect((device.cpus as { count: number }).count).toBeGreaterThan(0);
    expect((device.memory as { totalBytes: number }).totalBytes).toBeGreaterThan(0);
  });
});

describe('notes', () => {
  it('makes a title from the first line cut at 200 characters without splitting an emoji, so the note is well-formed text; keeps a title given whole', async () => {
    const saved = await run('note_add', { body: `${'x'.repeat(199)}😀 and more` });
    expect(saved.title).toBe('x'.repeat(199));
    // A title given is the schema's to bound (200 characters), and kept whole.
    const titled = await run('note_add', { title: '😀'.repeat(150), body: 'a title of 150 emoji, 300 UTF-16 units' });
    expect(titled.title).toBe('😀'.repeat(150));
  });

  it('finds saved notes by words in the title, body or tags, with a snippet', async () => {
    const saved = await run('note_add', { title: 'Printer on floor 3', body: 'Toner is low again.\nCall facilities.', tags: ['hardware'] });
    await run('note_add', { body: 'Badge reader in the lobby rejects new cards' });
    expect(saved).toMatchObject({ title: 'Printer on floor 3', tags: ['hardware'] });

    const byBody = await run('note_search', { query: 'toner' });
    expect(byBody.total).toBe(1);
    expect(byBody.notes).toMatchObject([{ id: saved.id, title: 'Printer on floor 3', snippet: expect.stringContaining('[Toner]') }]);
    expect((await run('note_search', { query: 'HARDWARE' })).total).toBe(1);
    expect((await run('note_search', { query: 'badge lobby' })).notes).toMatchObject([{ title: 'Badge reader in the lobby rejects new cards' }]);
    expect((await run('note_search', { query: 'print' })).total).toBe(1);
    expect((await run('note_search', { query: 'nothing-like-this' })).total).toBe(0);
  });

  it('treats FTS syntax in a query as plain words, never as an error', async () => {
    for (const query of ['"unbalanced', 'AND OR NOT', 'a* NEAR(b)', '(((', '--', '🙂']) {
      await expect(run('note_search', { query })).resolves.toMatchObject({ query });
    }
    expect(ftsQuery('Toner "low" -floor')).toBe('"Toner"* "low"* "floor"*');
  });
});

describe('to-dos', () => {
  it('adds to-dos and lists open ones soonest first with counts', async () => {
    db.exec('DELETE FROM todos');
    const later = await run('todo_add', { title: 'Renew certificate', due: '2027-01-15' });
    const sooner = await run('todo_add', { title: 'Replace toner', due: '2026-12-02' });
    const undated = await run('todo_add', { title: 'Tidy cables' });
    expect(later).toMatchObject({ done: false, due: '2027-01-15' });
    db.prepare('UPDATE todos SET done = 1 WHERE id = ?').run(undated.id as number);

    const open = await run('todo_list');
    expect((open.todos as { id: number }[]).map((todo) => todo.id)).toEqual([sooner.id, later.id]);
    expect(open.counts).toEqual({ open: 2, done: 1 });
    expect((await run('todo_list', { status: 'done' })).todos).toMatchObject([{ id: undated.id, done: true }]);
    expect((await run('todo_list', { status: 'all', limit: 1 })).todos).toHaveLength(1);
  });
});

describe('notes and to-dos beside the ledger', () => {
  it("are saved in their own transaction, never in the ledger's open batch", async () => {
    const ledger = new Ledger(db, loadLedgerKey(dataDir, db));
    const reader = new DatabaseSync(join(dataDir, DATABASE_FILE), { readOnly: true });
    const committed = () => reader.prepare('SELECT (SELECT count(*) FROM ledger) AS ledger, (SELECT count(*) FROM notes) AS notes, (SELECT count(*) FROM todos) AS todos').get();
    const before = committed() as { ledger: number; notes: number; todos: number };
    const runNow = (name: string, args: Record<string, unknown>) => catalog.resolveTool(name).tool.definition.run(args, { signal: new AbortController().signal, requestId: 'unit' });

    // All in one turn of the event loop, while the ledger's batch is open: each write commits
    // that batch, then itself, so a second connection sees the entry and the row at once.
    ledger.append({ kind: 'task_transition', details: {} });
    runNow('note_add', { body: 'Written beside a ledger entry' });
    expect(committed()).toEqual({ ...before, ledger: before.ledger + 1, notes: before.notes + 1 });
    ledger.append({ kind: 'task_transition', details: {} });
    runNow('todo_add', { title: 'Written beside a ledger entry' });
    expect(committed()).toEqual({ ledger: before.ledger + 2, notes: before.notes + 1, todos: before.todos + 1 });

    await ledger.durable();
    reader.close();
  });
});

describe('http_check', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
      res.writeHead(req.url === '/moved' ? 301 : 200, { 'content-type': 'text/html', server: 'loopback-test', location: '/new', 'x-secret': 'no' });
      res.end('<html></html>');
    });
  });
  afterAll(() => server.close());
  afterEach(() => void server.hits.splice(0));

  it('reports status, latency and selected headers with HEAD by default', async () => {
    const result = await run('http_check', { url: `${server.url}/health` });
    expect(result).toMatchObject({ reachable: true, status: 200, method: 'HEAD', headers: { 'content-type': 'text/html', server: 'loopback-test' } });
    expect(result.headers).not.toHaveProperty('x-secret');
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(server.hits).toEqual([{ method: 'HEAD', url: '/health' }]);
  });

  it('does not follow redirects and can use GET', async () => {
    const result = await run('http_check', { url: `${server.url}/moved`, method: 'GET' });
    expect(result).toMatchObject({ status: 301, headers: { location: '/new' } });
    expect(server.hits).toEqual([{ method: 'GET', url: '/moved' }]);
  });

  it('reports an unreachable address or a timeout as a check result', async () => {
    const closed = await startLoopbackServer();
    await closed.close();
    expect(await run('http_check', { url: closed.url })).toMatchObject({ reachable: false, error: { code: 'ECONNREFUSED' } });
    expect(await run('http_check', { url: `${server.url}/slow`, timeoutMs: 150 })).toMatchObject({
      reachable: false,
      error: { code: 'TimeoutError', message: 'no answer within 150 ms' },
    });
  });

  it('stops when its caller aborts', async () => {
    const controller = new AbortController();
    const pending = run('http_check', { url: `${server.url}/slow` }, controller.signal);
    setTimeout(() => controller.abort(new Error('cancelled by operator')), 50);
    await expect(pending).rejects.toThrow('cancelled by operator');
  });

  it('accepts only http and https addresses', () => {
    const { tool: contract } = catalog.resolveTool('http_check');
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'example.com']) {
      expect(contract.validateArguments({ url }), url).toBe(false);
    }
    expect(contract.validateArguments({ url: 'HTTPS://example.com/a?b=c' })).toBe(true);
  });
});
