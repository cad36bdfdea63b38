import { Agent, request } from 'node:http';
import { Client } from 'pg';
import {
  ADMIN_SECRET,
  apiGet,
  clusterDataDir,
  configWithFreePorts,
  createE2eSchema,
  freePort,
  newAccount,
  spawnProduct,
  startProductProcess,
} from './product-process';

/** GET /healthz on a keep-alive agent: the status, or the error code when the call failed. */
function healthz(port: number, agent: Agent): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve('EBODY'));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

/** Waits for the upstream process's start line. */
async function started(p: ReturnType<typeof spawnProduct>): Promise<void> {
  for (const t0 = Date.now(); !p.output().includes('"upstream started"');) {
    if (Date.now() - t0 > 120_000) throw new Error(`upstream did not start:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('an upstream process given the gateway JWKS (IDENTITY_JWKS_URL)', () => {
  it("serves the gateway's requests and refuses one that comes straight to it with 401", async () => {
    const port = await freePort();
    // 127.0.0.2: an address of this machine the product does not take for one of its own upstreams.
    const configDir = await configWithFreePorts((docs) =>
      docs.upstreams.setIn(['upstreams', 'directory', 'url'], `http://127.0.0.2:${port}`),
    );
    const gateway = await startProductProcess({ CONFIG_DIR: configDir, ADMIN_JWT_SECRET: ADMIN_SECRET });
    const dataDir = await clusterDataDir();
    const upstream = spawnProduct(
      {
        PORT: String(port),
        IDENTITY_JWKS_URL: `${gateway.admin}/.well-known/jwks.json`,
        DATA_DIR: dataDir,
      },
      [],
      ['upstream', 'directory'],
      dataDir,
    );
    try {
      await started(upstream);
      expect(upstream.output()).toContain('"verifies_identity":true');
      const { key } = await newAccount(gateway, 'pro');
      const through = await apiGet(gateway, '/v1/bailiff-offices?q=van', key);
      expect(through.status).toBe(200);
      expect((through.body.data as unknown[]).length).toBeGreaterThan(0);
      const direct = await fetch(`http://127.0.0.2:${port}/bailiff-offices?q=van&per_page=1000`);
      expect([direct.status, ((await direct.json()) as { code: string }).code]).toEqual([
        401,
        'unauthorized',
      ]);
    } finally {
      upstream.child.kill('SIGKILL');
      await gateway.stop('SIGKILL');
    }
  }, 240_000);
});

describe('an upstream process (node dist/main.js upstream <name>) on SIGTERM', () => {
  it('answers a keep-alive client that never pauses until it moves on, then exits 0 within seconds', async () => {
    const port = await freePort();
    const dataDir = await clusterDataDir();
    const p = spawnProduct(
      { PORT: String(port), LOG_LEVEL: 'info', DATA_DIR: dataDir },
      [],
      ['upstream', 'directory'],
      dataDir,
    );
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    try {
      await started(p);
      // Two loops back to back on two kept-alive sockets, as a gateway's pool sends.
      const results: (number | string)[] = [];
      let signalled = 0;
      const loop = async (): Promise<void> => {
        for (;;) {
          const r = await healthz(port, agent);
          results.push(r);
          if (r === 'ECONNREFUSED') return; // closed to new connections: the Service sends elsewhere
          if (results.length === 40 && !signalled) {
            signalled = Date.now();
            p.child.kill('SIGTERM');
          }
        }
      };
      await Promise.all([loop(), loop()]);
      const code = await p.exited;
      expect(code).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(8_000);
      const failed = results.filter((r) => r !== 200 && r !== 'ECONNREFUSED');
      expect(failed).toEqual([]);
      expect(results.filter((r) => r === 200).length).toBeGreaterThanOrEqual(40);
      expect(p.output()).toContain('shutting down: draining in-flight requests');
    } finally {
      agent.destroy();
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  }, 180_000);
});

describe('an upstream process on PostgreSQL whose queries the database holds (QUERY_TIMEOUT_MS)', () => {
  it('ends each query at the deadline, so the pool frees and /healthz answers while a table stays locked', async () => {
    const schema = await createE2eSchema();
    const port = await freePort();
    const p = spawnProduct(
      {
        PORT: String(port),
        DATABASE_URL: schema.databaseUrl,
        DATABASE_POOL_SIZE: '2',
        QUERY_TIMEOUT_MS: '300',
      },
      [],
      ['upstream', 'directory'],
    );
    const locker = new Client({ connectionString: schema.databaseUrl });
    const get = async (path: string): Promise<{ status: number; ms: number }> => {
      const t0 = Date.now();
      const r = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(20_000) });
      await r.arrayBuffer();
      return { status: r.status, ms: Date.now() - t0 };
    };
    try {
      await started(p);
      expect((await get('/bailiff-offices?q=van')).status).toBe(200);
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE directory_organisations IN ACCESS EXCLUSIVE MODE');
      // More requests than the pool has connections, each held by the lock.
      const held = await Promise.all([1, 2, 3, 4].map(() => get('/bailiff-offices?q=van')));
      for (const r of held) {
        expect(r.status).toBeGreaterThanOrEqual(500);
        expect(r.ms).toBeLessThan(5_000);
      }
      // The lock still held: the probe's query needs a connection of the pool, and gets one.
      const probe = await get('/healthz');
      expect([probe.status, probe.ms < 2_000]).toEqual([200, true]);
      // ...and the server has ended the queries given up on, rather than keep their backends
      // waiting behind the lock while the pool opens new connections.
      const waiting = async (): Promise<number> =>
        Number(
          (
            await locker.query<{ n: string }>(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query LIKE '%directory_organisations%'",
            )
          ).rows[0]!.n,
        );
      for (const t0 = Date.now(); (await waiting()) > 0 && Date.now() - t0 < 5_000;)
        await new Promise((r) => setTimeout(r, 100));
      expect(await waiting()).toBe(0);
      await locker.query('ROLLBACK');
      expect((await get('/bailiff-offices?q=van')).status).toBe(200);
    } finally {
      await locker.end().catch(() => undefined);
      p.child.kill('SIGKILL');
      await p.exited;
      await schema.drop();
    }
  }, 240_000);
});
