import { mkdirSync } from 'node:fs';
import type { Db } from './db';
import { openPgDb } from './pg-db';
import { openPgliteDb } from './pglite-db';

export interface OpenDbOptions {
  /** PostgreSQL URL; when absent, PGlite in dataDir. */
  databaseUrl?: string;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string;
  schema?: string;
  poolSize?: number;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.databaseUrl)
    return openPgDb({ connectionString: opts.databaseUrl, schema: opts.schema, max: opts.poolSize });
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  return openPgliteDb(opts.dataDir);
}
