/** A task runtime over a real catalog and ledger in a temporary data dir, with test tools. */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../../electron/catalog/catalog';
import { defineTool, type ToolDefinition } from '../../electron/catalog/tool';
import { Ledger, loadLedgerKey } from '../../electron/runtime/ledger';
import { TaskRuntime, type RuntimeLimits } from '../../electron/runtime/runtime';
import { TaskStore } from '../../electron/store/taskStore';
import { DEFAULT_ADMISSION_BUDGET } from '../../electron/config';
import { openDatabase, type Database } from '../../electron/store/database';

export interface RuntimeFixture {
  dataDir: string;
  db: Database;
  catalog: Catalog;
  ledger: Ledger;
  runtime: TaskRuntime;
  /**
   * Like a kill -9 and a start: the connection closes without committing the open batch, and a
   * new runtime over the same data dir recovers. The returned fixture owns the data dir.
   */
  restart(options?: { limits?: Partial<RuntimeLimits> }): Promise<RuntimeFixture>;
  close(): void;
}

export async function runtimeFixture({ graceMs = 100, tools = [] as ToolDefinition[], limits = {} as Partial<RuntimeLimits>, dataDir = mkdtempSync(join(tmpdir(), 'capstan-runtime-')) } = {}): Promise<RuntimeFixture> {
  const db = openDatabase(dataDir);
  const catalog = new Catalog();
  await catalog.addProvider({ name: 'test', kind: 'builtin', load: () => ({ tools, skills: [], diagnostics: [] }) });
  const ledger = new Ledger(db, loadLedgerKey(dataDir, db));
  const runtime = new TaskRuntime(catalog, ledger, new TaskStore(db), { grants: [{ pattern: '*', authority: 'execute' }], budget: DEFAULT_ADMISSION_BUDGET, graceMs, limits });
  return {
    dataDir,
    db,
    catalog,
    ledger,
    runtime,
    restart: async (options = {}) => {
      db.close();
      const next = await runtimeFixture({ graceMs, tools, limits: options.limits ?? limits, dataDir });
      await next.runtime.recover();
      return next;
    },
    close: () => {
      ledger.flush();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A low-risk test tool with an open schema; give it a name, what it does, and how it runs. */
export const testTool = (tool: Pick<ToolDefinition, 'name' | 'description' | 'run'> & Partial<ToolDefinition>): ToolDefinition =>
  defineTool({
    title: tool.name,
    riskLevel: 'low',
    needConfirm: false,
    mutating: false,
    tags: ['test'],
    inputSchema: { type: 'object' },
    returnExample: null,
    ...tool,
  });

/** A mutating tool that ignores aborts and never ends on its own. */
export const stubbornWrite = testTool({
  name: 'stubborn_write',
  description: 'Writes somewhere and ignores every abort',
  mutating: true,
  timeoutMs: 60_000,
  run: () => new Promise(() => {}),
});

/** A read that takes a while but stops when aborted. */
export const politeRead = testTool({
  name: 'polite_read',
  description: 'Reads slowly and honours its abort signal',
  timeoutMs: 60_000,
  run: (_args: unknown, { signal }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ read: true }), 30_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }),
});

/** A mutating write anyone can see: it appends a line to the file at `path`. */
export const markerWrite = testTool({
  name: 'marker_write',
  description: 'Appends a line to a file',
  mutating: true,
  run: (args: unknown) => {
    appendFileSync((args as { path: string }).path, 'ran\n');
    return { written: true };
  },
});

/** A quick mutating write. */
export const quickWrite = testTool({
  name: 'quick_write',
  description: 'Writes at once',
  mutating: true,
  run: () => ({ written: true }),
});
