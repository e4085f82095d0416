/**
 * The composition root: one host per data dir, shared by the Electron main process and
 * `capstan serve`. It owns the store, the catalog, the tasks and the API handlers every
 * transport uses.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { Catalog } from './catalog/catalog';
import { Cursors } from './catalog/cursor';
import { readConfig, type CapstanConfig } from './config';
import { createApiHandlers, type ApiHandlers } from './gateway/api';
import { Confirmations } from './gateway/confirmations';
import { createDiscovery } from './gateway/discovery';
import { EventBus } from './events';
import type { Logger } from './logger';
import { builtinProvider } from './providers/builtin';
import { skillsProvider } from './providers/skills';
import { Ledger, loadLedgerKey } from './runtime/ledger';
import { TaskRuntime } from './runtime/runtime';
import { readCatalogPolicy } from './store/catalogPolicy';
import { openDatabase, type Database } from './store/database';
import { TaskStore } from './store/taskStore';

export interface HostOptions {
  dataDir: string;
  /** Skills directories besides `<data dir>/skills` and those in config.json. */
  skillsDirs?: readonly string[];
  logger?: Logger;
}

export interface Host {
  dataDir: string;
  config: CapstanConfig;
  db: Database;
  catalog: Catalog;
  ledger: Ledger;
  tasks: TaskRuntime;
  events: EventBus;
  handlers: ApiHandlers;
  logger: Logger;
  close(): void;
}

export async function createHost({ dataDir, skillsDirs = [], logger = pino({ level: 'silent' }) }: HostOptions): Promise<Host> {
  const config = readConfig(dataDir);
  const db = openDatabase(dataDir);
  const catalog = new Catalog();
  try {
    const ownSkills = join(dataDir, 'skills');
    mkdirSync(ownSkills, { recursive: true });
    // The console's switches and revocations outlive restarts and win over config.json's start state.
    const policy = readCatalogPolicy(db);
    for (const provider of [builtinProvider({ db, dataDir, httpCheck: config.httpCheck }), skillsProvider([ownSkills, ...config.skillsDirs, ...skillsDirs], config.skills)]) {
      await catalog.addProvider(provider, { enabled: policy.providers[provider.name] ?? !config.disabledProviders.includes(provider.name) });
    }
    for (const id of policy.revoked) catalog.setRevoked(id, true);
  } catch (error) {
    catalog.close();
    db.close();
    throw error;
  }
  const events = new EventBus();
  catalog.onChange((change) => {
    logger.info(change, 'catalog changed');
    events.publish({ type: 'catalog', ...change });
  });
  const ledger = new Ledger(db, loadLedgerKey(dataDir));
  const tasks = new TaskRuntime(catalog, ledger, new TaskStore(db), { grants: config.grants, budget: config.admission, graceMs: config.cancellation.graceMs });
  // Before anyone can call: what the last process left unfinished is closed and on record.
  await tasks.recover();
  ledger.onAppend((entry) => events.publish({ type: 'ledger', entry }));
  tasks.onChange((task) => events.publish({ type: 'task', task }));
  const discovery = createDiscovery({ catalog, tasks, cursors: new Cursors() });
  return {
    dataDir,
    config,
    db,
    catalog,
    ledger,
    tasks,
    events,
    handlers: createApiHandlers({ db, catalog, confirmations: new Confirmations(), discovery, tasks, ledger }),
    logger,
    close: () => {
      catalog.close();
      ledger.flush();
      db.close();
    },
  };
}
