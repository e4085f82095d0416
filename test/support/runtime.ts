/** A task runtime over a real catalog and ledger in a temporary data dir, with test tools. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../../electron/catalog/catalog';
import { defineTool, type ToolDefinition } from '../../electron/catalog/tool';
import { Ledger, loadLedgerKey } from '../../electron/runtime/ledger';
import { TaskRuntime } from '../../electron/runtime/tasks';
import { DEFAULT_ADMISSION_BUDGET } from '../../electron/runtime/admission';
import { openDatabase, type Database } from '../../electron/store/database';

export interface RuntimeFixture {
  dataDir: string;
  db: Database;
  catalog: Catalog;
  ledger: Ledger;
  runtime: TaskRuntime;
  close(): void;
}

export async function runtimeFixture({ graceMs = 100, tools = [] as ToolDefinition[] } = {}): Promise<RuntimeFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-runtime-'));
  const db = openDatabase(dataDir);
  const catalog = new Catalog();
  await catalog.addProvider({ name: 'test', kind: 'builtin', load: () => ({ tools, skills: [], diagnostics: [] }) });
  const ledger = new Ledger(db, loadLedgerKey(dataDir));
  const runtime = new TaskRuntime(catalog, ledger, { grants: [{ pattern: '*', authority: 'execute' }], budget: DEFAULT_ADMISSION_BUDGET, graceMs });
  return {
    dataDir,
    db,
    catalog,
    ledger,
    runtime,
    close: () => {
      ledger.flush();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const base = { riskLevel: 'low' as const, needConfirm: false, tags: ['test'], inputSchema: { type: 'object' }, returnExample: null };

/** A mutating tool that ignores aborts and never ends on its own. */
export const stubbornWrite = defineTool({
  ...base,
  name: 'stubborn_write',
  title: 'Stubborn write',
  description: 'Writes somewhere and ignores every abort',
  mutating: true,
  timeoutMs: 60_000,
  run: () => new Promise(() => {}),
});

/** A read that takes a while but stops when aborted. */
export const politeRead = defineTool({
  ...base,
  name: 'polite_read',
  title: 'Polite read',
  description: 'Reads slowly and honours its abort signal',
  mutating: false,
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

/** A quick mutating write. */
export const quickWrite = defineTool({
  ...base,
  name: 'quick_write',
  title: 'Quick write',
  description: 'Writes at once',
  mutating: true,
  run: () => ({ written: true }),
});
