/**
 * The composition root: one host per data dir, shared by the Electron main process and
 * `capstan serve`. It owns the store, the catalog and the API handlers every transport uses.
 */
import pino from 'pino';
import { Catalog } from './catalog/catalog';
import { createApiHandlers, type ApiHandlers } from './gateway/api';
import { Confirmations } from './gateway/confirmations';
import type { Logger } from './logger';
import { BUILTIN_PROVIDER, builtinTools } from './providers/builtin';
import { openDatabase, type Database } from './store/database';

export interface HostOptions {
  dataDir: string;
  logger?: Logger;
}

export interface Host {
  dataDir: string;
  db: Database;
  catalog: Catalog;
  handlers: ApiHandlers;
  logger: Logger;
  close(): void;
}

export function createHost({ dataDir, logger = pino({ level: 'silent' }) }: HostOptions): Host {
  const db = openDatabase(dataDir);
  const catalog = new Catalog();
  catalog.register(BUILTIN_PROVIDER, builtinTools({ db, dataDir }));
  const confirmations = new Confirmations();
  return {
    dataDir,
    db,
    catalog,
    handlers: createApiHandlers({ db, catalog, confirmations }),
    logger,
    close: () => db.close(),
  };
}
