import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { TEST_DATABASE_URL } from '../../test/support/databases';
import { DatabaseUnavailableError } from './db';
import type { Db } from './db';
import { openDb } from './open-db';
import { isUnavailable, openPgDb } from './pg-db';

/** A server on a free port that takes connections and never answers, like a stalled database. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const silent: Server = createServer((s) => {
    sockets.push(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  return {
    port: (silent.address() as { port: number }).port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    },
  };
}

describe('PostgreSQL connections: a database that does not answer', () => {
  it('fails a query, rather than waiting for ever, when the server takes the connection and never answers', async () => {
    const silent = await silentServer();
    const db = await openPgDb({
      connectionString: `postgres://postgres@127.0.0.1:${silent.port}/test`,
      connectTimeoutMs: 300,
    });
    try {
      const t0 = Date.now();
      await expect(db.query('SELECT 1')).rejects.toThrow(DatabaseUnavailableError);
      await expect(db.transaction((tx) => tx.query('SELECT 1'))).rejects.toThrow(DatabaseUnavailableError);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await db.close().catch(() => undefined);
      await silent.close();
    }
  });

  it('fails as unavailable when nothing listens at the address', async () => {
    const silent = await silentServer();
    const port = silent.port;
    await silent.close();
    const db = await openPgDb({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
    try {
      await expect(db.query('SELECT 1')).rejects.toThrow(DatabaseUnavailableError);
    } finally {
      await db.close().catch(() => undefined);
    }
  });
});

describe('PostgreSQL connections: the real server', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPgDb({ connectionString: TEST_DATABASE_URL, max: 3 });
  });
  afterAll(() => db.close());

  it('fails a bounded query that has no answer in time, and the pool serves the next one', async () => {
    const bounded = db.withQueryTimeout(200);
    const t0 = Date.now();
    await expect(bounded.query('SELECT pg_sleep(3)')).rejects.toThrow(DatabaseUnavailableError);
    expect(Date.now() - t0).toBeLessThan(2_000);
    await expect(
      bounded.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await tx.query('SELECT pg_sleep(3)');
      }),
    ).rejects.toThrow(DatabaseUnavailableError);
    // The same pool serves the next query (with room for a new connection on a loaded machine).
    const next = db.withQueryTimeout(10_000);
    expect((await next.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    // The database it came from keeps no bound (migrations, imports).
    expect((await db.query<{ ok: string }>('SELECT pg_sleep(0.3)::text AS ok')).rows).toHaveLength(1);
  });

  it('holds no more connections than the pool size it is opened with (DATABASE_POOL_SIZE)', async () => {
    const small = await openDb({ databaseUrl: TEST_DATABASE_URL, poolSize: 2 });
    try {
      const busy = Array.from({ length: 6 }, () =>
        small.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.1)'),
      );
      const pids = new Set((await Promise.all(busy)).map((r) => r.rows[0]!.pid));
      expect(pids.size).toBe(2);
    } finally {
      await small.close();
    }
  });

  it('answers a dropped connection in the middle of a transaction with an error, not a crash', async () => {
    const pids: number[] = [];
    const done = db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      pids.push(rows[0]!.pid);
      await tx.query('SELECT pg_sleep(5)');
    });
    // Its failure is taken at once: it may come before the terminating query's own answer.
    const failed = done.then(
      () => undefined,
      (e: unknown) => e,
    );
    while (pids.length === 0) await new Promise((r) => setTimeout(r, 10));
    await db.query('SELECT pg_terminate_backend($1)', [pids[0]]);
    expect(await failed).toBeInstanceOf(DatabaseUnavailableError);
    // The broken connection was not handed back: the next transaction works.
    const n = await db.transaction(async (tx) => (await tx.query<{ n: number }>('SELECT 2 AS n')).rows[0]!.n);
    expect(n).toBe(2);
  });

  it('answers a connection cut by the network in the middle of a transaction with an error, not a crash', async () => {
    const target = new URL(TEST_DATABASE_URL);
    const sockets: Socket[] = [];
    const proxy = createServer((client) => {
      const server = connect(Number(target.port || 5432), target.hostname);
      sockets.push(client, server);
      for (const s of [client, server]) s.on('error', () => undefined);
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const via = new URL(TEST_DATABASE_URL);
    via.host = `127.0.0.1:${(proxy.address() as { port: number }).port}`;
    const cut = await openPgDb({ connectionString: via.toString(), max: 1 });
    try {
      let started = false;
      const done = cut.transaction(async (tx) => {
        started = true;
        await tx.query('SELECT pg_sleep(5)');
      });
      const failed = done.then(
        () => undefined,
        (e: unknown) => e,
      );
      while (!started) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 100));
      for (const s of sockets) s.destroy();
      expect(await failed).toBeInstanceOf(DatabaseUnavailableError);
      expect((await cut.query<{ n: number }>('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
    } finally {
      await cut.close().catch(() => undefined);
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('leaves errors in the SQL as they are: they are bugs, not the database being away', async () => {
    const err = await db.query('SELECT * FROM no_such_table_anywhere').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: '42P01' });
    expect(err).not.toBeInstanceOf(DatabaseUnavailableError);
    expect(isUnavailable(err)).toBe(false);
    const inTx = await db.transaction((tx) => tx.query('SELECT 1/0')).catch((e: unknown) => e);
    expect(inTx).toMatchObject({ code: '22012' });
    expect(inTx).not.toBeInstanceOf(DatabaseUnavailableError);
  });
});
