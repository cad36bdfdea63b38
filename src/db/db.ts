/** The SQL surface every store uses: PostgreSQL (pg) and PGlite implement it with the same SQL. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: R[] }>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction on one connection; rolls back when fn throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * The same database, on the same connections, where a query (each statement of a transaction
   * too) that has no answer after `ms` fails with DatabaseUnavailableError: for the paths that
   * serve requests, while migrations and imports keep the unbounded one. PGlite runs in the
   * process and cannot stall on a network: it returns itself.
   */
  withQueryTimeout(ms: number): Db;
  close(): Promise<void>;
}

/**
 * The database cannot be reached, dropped the connection, or stopped answering: a dependency's
 * failure, which callers get as a 503 (search_unavailable; the admin API's service_unavailable), not
 * a 500: nothing is wrong with the request or the code. SQL errors the server reports (a
 * constraint, a syntax error) are not this.
 */
export class DatabaseUnavailableError extends Error {
  /**
   * @param mayHaveRun false when nothing reached the server (no connection could be had); true
   *   when the statement may have run and only its answer is missing (a COMMIT among them).
   */
  constructor(
    cause: unknown,
    readonly mayHaveRun = true,
  ) {
    const said = (cause as { message?: unknown } | null)?.message;
    super(`database unavailable: ${typeof said === 'string' ? said : String(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}
