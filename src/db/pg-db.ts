import { Pool } from 'pg';
import type { ClientBase, PoolClient, QueryConfig } from 'pg';
import { DatabaseUnavailableError } from './db';
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

// SQLSTATEs that say the server or the connection is gone, not that the SQL was wrong: class 08
// connection exception (but 08P01, a protocol violation: the client's fault), 53 insufficient
// resources (too many connections), 57P0x shutdown, 25006 read-only (a standby after a failover).
const UNAVAILABLE_STATE = /^(08(?!P01)|53|57P0|25006$)/;
// Node's codes for a network that failed: syscall errors (ECONNREFUSED, EAI_AGAIN…) and a socket
// or stream that died under the client; not its other ERR_ codes, which are bugs.
const NETWORK_CODE = /^(E[A-Z]+|EAI_[A-Z]+|ERR_STREAM_[A-Z_]+|ERR_SOCKET_[A-Z_]+)$/;

/** Whether pg's error is the database being unreachable or gone rather than an error in the SQL. */
export function isUnavailable(err: unknown): boolean {
  // Not `instanceof Error`: node's own socket errors may come from another realm (a test's VM).
  if (typeof err !== 'object' || err === null) return false;
  const { code, severity, message } = err as { code?: unknown; severity?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_STATE.test(code)) return true;
  // The server's own errors carry a severity; what is left with a syscall code (ECONNREFUSED,
  // ECONNRESET…) or pg's words for a lost or silent connection is the network's.
  if (severity !== undefined) return false;
  if (typeof code === 'string' && NETWORK_CODE.test(code)) return true;
  return typeof message === 'string' && /connection|terminated|timeout|not queryable/i.test(message);
}

/** How often the server looks for a client gone while a query runs (see openPgDb). */
const CLIENT_CHECK_MS = 1000;

async function askToEndOrphanedQueries(client: ClientBase): Promise<void> {
  await client
    .query(
      `SELECT set_config('client_connection_check_interval', '${CLIENT_CHECK_MS}', false)
       WHERE current_setting('server_version_num')::int >= 140000`,
    )
    .catch(() => undefined);
}

const classified = (err: unknown, mayHaveRun = true): unknown =>
  isUnavailable(err) ? new DatabaseUnavailableError(err, mayHaveRun) : err;

function asQueryable(c: Pool | PoolClient, timeoutMs: number | undefined): Queryable {
  return {
    async query<R>(sql: string, params?: readonly unknown[]) {
      try {
        // pg reads query_timeout per query; its typings do not name it.
        const config: QueryConfig & { query_timeout?: number } = {
          text: sql,
          values: params as unknown[] | undefined,
          query_timeout: timeoutMs,
        };
        const r = await c.query(config);
        return { rows: r.rows as R[] };
      } catch (err) {
        throw classified(err);
      }
    },
  };
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
    // A query past its deadline (withQueryTimeout) fails here and its connection is closed, but the
    // server goes on running it, a lock wait included, and the pool opens another: connections
    // would pile up to max_connections. With this check (PostgreSQL 14+) the server ends a query
    // whose client has gone within a second; an older server has no such setting and is not asked.
    // Awaited by the pool before it hands the connection out, so no query is queued behind it.
    onConnect: askToEndOrphanedQueries,
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const view = (timeoutMs: number | undefined): Db => ({
    kind: 'postgres',
    ...asQueryable(pool, timeoutMs),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        // No connection, nothing sent: the transaction did not run.
        throw classified(err, false);
      }
      // A checked-out client has no listener of the pool's: the connection dropping in the middle
      // (a failover, an idle-killer) would be an uncaught 'error' and take the process down. The
      // query in flight fails with it anyway.
      let lost: unknown;
      const onError = (err: unknown): void => {
        lost = err;
      };
      client.on('error', onError);
      let broken = false;
      const tx = asQueryable(client, timeoutMs);
      try {
        await tx.query('BEGIN');
        const out = await fn(tx);
        await tx.query('COMMIT');
        return out;
      } catch (err) {
        broken = lost !== undefined || err instanceof DatabaseUnavailableError;
        if (!broken) await tx.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      } finally {
        client.off('error', onError);
        // A connection that failed or timed out mid-transaction is closed, not handed to the next caller.
        client.release(broken ? new Error('connection left in an unknown state') : undefined);
      }
    },
    async exec(sql: string) {
      try {
        await pool.query(sql);
      } catch (err) {
        throw classified(err);
      }
    },
    withQueryTimeout: (ms: number) => view(ms),
    close: () => pool.end(),
  });
  return view(undefined);
}
