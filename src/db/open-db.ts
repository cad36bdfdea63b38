import { ensureDataDir } from '../util/data-dir';
import type { Db } from './db';
import { openPgDb } from './pg-db';
import type * as pgliteDb from './pglite-db';

type PgliteModule = typeof pgliteDb;

export interface OpenDbOptions {
  /** PostgreSQL URL; when absent, PGlite in dataDir. */
  databaseUrl?: string;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string;
  schema?: string;
  /** PostgreSQL: the most connections the pool holds; default 10. */
  poolSize?: number;
  /** PostgreSQL: how long a query waits for a connection (pg-db.ts); default 5000 ms. */
  connectTimeoutMs?: number;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.databaseUrl)
    return openPgDb({
      connectionString: opts.databaseUrl,
      schema: opts.schema,
      max: opts.poolSize,
      connectTimeoutMs: opts.connectTimeoutMs,
    });
  if (opts.dataDir) ensureDataDir(opts.dataDir);
  // Loaded only here: a process on PostgreSQL never holds PGlite's modules (≈ 1.4 MB of heap that
  // every full GC would mark again).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load; under node16 resolution import() stays an ESM import, which this CommonJS build and jest would have to resolve as one
  const { openPgliteDb } = require('./pglite-db') as PgliteModule;
  return openPgliteDb(opts.dataDir);
}
