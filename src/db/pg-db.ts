import { Pool } from 'pg';
import type { PoolClient } from 'pg';
import type { Db, Queryable } from './db';

export interface PgDbOptions {
  connectionString: string;
  /** Schema to work in (created if missing); tests use one per suite. Extensions stay in public. */
  schema?: string;
  max?: number;
  /**
   * How long a query waits for a connection (a new one's handshake, or a free one of the pool)
   * before it fails: a server that takes connections and never answers must not hold requests
   * (and the callers behind them) for ever. Default 5000 ms.
   */
  connectTimeoutMs?: number;
}

export async function openPgDb(opts: PgDbOptions): Promise<Db> {
  const schema = opts.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new Error(`bad schema name ${schema}`);
  const pool = new Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000,
    options: schema ? `-c search_path=${schema},public` : undefined,
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const asQueryable = (c: Pool | PoolClient): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[]) {
      const r = await c.query(sql, params as unknown[] | undefined);
      return { rows: r.rows as R[] };
    },
  });
  return {
    kind: 'postgres',
    ...asQueryable(pool),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(asQueryable(client));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
    },
  };
}
