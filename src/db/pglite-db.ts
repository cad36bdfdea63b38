import { PGlite } from '@electric-sql/pglite';
// The contrib entries ship CommonJS builds, but their export map gives only ESM typings; the
// require() at run time resolves to the .cjs file.
// @ts-expect-error TS1479: typings say ESM, the package serves CommonJS to require()
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
// @ts-expect-error TS1479: as above
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import type { Db, Queryable } from './db';
import { lockDataDir } from './data-dir-lock';

export interface PgliteOptions {
  /**
   * A freshly initialised cluster, as PGlite's dumpDataDir writes it, to start from instead of
   * running initdb, which takes three times as long in PGlite's WebAssembly (the test suites open
   * dozens of in-memory databases).
   */
  template?: Blob;
}

/** PGlite in dataDir (persistent) or in memory when dataDir is undefined. One connection: calls queue. */
export async function openPgliteDb(dataDir?: string, opts: PgliteOptions = {}): Promise<Db> {
  const release = dataDir ? lockDataDir(dataDir) : () => undefined;
  let pg: PGlite;
  try {
    pg = await PGlite.create({ dataDir, loadDataDir: opts.template, extensions: { unaccent, pg_trgm } });
  } catch (err) {
    release();
    throw err;
  }
  const asQueryable = (c: Pick<PGlite, 'query'>): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[]) {
      const r = await c.query<R>(sql, params as unknown[] | undefined);
      return { rows: r.rows };
    },
  });
  const db: Db = {
    kind: 'pglite',
    ...asQueryable(pg),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => pg.transaction((tx) => fn(asQueryable(tx))),
    async exec(sql: string) {
      await pg.exec(sql);
    },
    withQueryTimeout: () => db,
    async close() {
      try {
        await pg.close();
      } finally {
        release();
      }
    },
  };
  return db;
}
