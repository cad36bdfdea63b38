import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/db';
import { openPgDb } from '../../src/db/pg-db';
import { openTestPglite } from './pglite-template';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  name: 'pglite' | 'postgres';
  /** A fresh, empty database: PGlite in memory, or a new schema in the PostgreSQL at TEST_DATABASE_URL. */
  open(): Promise<Db>;
}

/** Drops the suite's schema when the Db closes, so runs leave nothing behind. */
async function openPgSchema(): Promise<Db> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const db = await openPgDb({ connectionString: TEST_DATABASE_URL, schema, max: 4 });
  const close = db.close.bind(db);
  return {
    ...db,
    async close() {
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await close();
    },
  };
}

export const TEST_DATABASES: TestDatabase[] = [
  { name: 'pglite', open: () => openTestPglite() },
  { name: 'postgres', open: openPgSchema },
];
