import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from '../support/databases';
import { eventually } from '../support/private-redis';
import { startStubUpstream } from '../support/stub-upstream';
import {
  ADMIN_SECRET,
  adminCall,
  apiGet,
  createE2eSchema,
  newAccount,
  pointUpstreamsAt,
  startProductProcess,
  tempConfig,
} from './product-process';
import type { E2eSchema, ProductProcess } from './product-process';

/** A TCP proxy in front of PostgreSQL that can stall (hold every byte, sockets open) or cut. */
class PgProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((client) => this.pipe(client));
  private readonly target = new URL(TEST_DATABASE_URL);
  private held: (() => void)[] = [];
  private stalled = false;

  static async start(): Promise<PgProxy> {
    const proxy = new PgProxy();
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', () => r()));
    return proxy;
  }

  private pipe(client: Socket): void {
    const upstream = connect(Number(this.target.port || 5432), this.target.hostname);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => this.sockets.delete(s));
    }
    const pass = (from: Socket, to: Socket): void => {
      from.on('data', (chunk: Buffer) => {
        if (this.stalled) this.held.push(() => to.write(chunk));
        else to.write(chunk);
      });
      from.on('close', () => to.destroy());
    };
    pass(client, upstream);
    pass(upstream, client);
  }

  url(schemaUrl: string): string {
    const u = new URL(schemaUrl);
    u.host = `127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return u.toString();
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const send of this.held.splice(0)) send();
  }

  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

// The gateway's database behind a proxy that stalls or cuts: requests that need it get 503 within
// database_timeout_ms, and a connection cut in the middle of a credit spend does not end the process.
let schema: E2eSchema;
let proxy: PgProxy;
let stub: Awaited<ReturnType<typeof startStubUpstream>>;
let product: ProductProcess;

beforeAll(async () => {
  schema = await createE2eSchema();
  proxy = await PgProxy.start();
  // Not on 127.0.0.1: a URL there names a built-in upstream for the product to start.
  stub = await startStubUpstream('127.0.0.2');
  const config = tempConfig((docs) => {
    pointUpstreamsAt(docs, stub.url);
    docs.gateway.set('database_timeout_ms', 1500);
    docs.plans.setIn(['plans', 'starter', 'monthly_calls'], 1);
  });
  product = await startProductProcess({
    DATABASE_URL: proxy.url(schema.databaseUrl),
    ADMIN_JWT_SECRET: ADMIN_SECRET,
    CONFIG_DIR: config,
  });
}, 180_000);

afterAll(async () => {
  await product?.stop();
  await proxy?.close();
  await stub?.close();
  await schema?.drop();
});

describe('the database stalled or cut', () => {
  it('answers 503 search_unavailable (the admin API service_unavailable) within database_timeout_ms while the database does not answer, and recovers when it does', async () => {
    const acc = await newAccount(product, 'pro');
    proxy.stall();
    try {
      // The key was never used: it is not in the key cache, so the database must be asked.
      const reqId = `db-stall-${acc.id}`;
      const cold = await apiGet(product, '/v1/legal-documents?q=luat', acc.key, { 'x-request-id': reqId });
      // database_timeout_ms (1.5 s) and a margin, timed by the gateway itself (its access line), so
      // a loaded machine's delays in this process and on the way do not count.
      let line: string | undefined;
      await eventually(() => {
        line = product
          .output()
          .split('\n')
          .find((l) => l.includes(`"req_id":"${reqId}"`) && l.includes('"msg":"request"'));
        return line !== undefined;
      }, 5_000);
      expect((JSON.parse(line!) as { duration_ms: number }).duration_ms).toBeLessThan(2_500);
      const t0 = Date.now();
      expect([cold.status, cold.body.code, cold.headers.get('retry-after')]).toEqual([
        503,
        'search_unavailable',
        '5',
      ]);
      const admin = await adminCall(product, 'GET', `/admin/accounts/${acc.id}`);
      expect([admin.status, admin.json.code]).toEqual([503, 'service_unavailable']);
      expect(Date.now() - t0).toBeLessThan(3_000);
      // Ready all the same, saying why: every replica shares the database, and unready ones would
      // leave callers the ingress's bare 503 instead of the envelope above.
      const probe = await fetch(`${product.admin}/readyz`);
      expect([
        probe.status,
        ((await probe.json()) as { checks: { database: boolean } }).checks.database,
      ]).toEqual([200, false]);
      // A check that does not gate shows nowhere else: the probe's result is a metric to alert on.
      const metrics = await (await fetch(`${product.admin}/metrics`)).text();
      expect(metrics).toMatch(/^lookup_readiness_check\{check="database"\} 0$/m);
      expect(metrics).toMatch(/^lookup_readiness_check\{check="accepting"\} 1$/m);
    } finally {
      proxy.resume();
    }
    await eventually(
      async () => (await apiGet(product, '/v1/legal-documents?q=luat', acc.key)).status === 200,
      10_000,
    );
    expect((await adminCall(product, 'GET', `/admin/accounts/${acc.id}`)).status).toBe(200);
    expect((await fetch(`${product.admin}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${product.admin}/metrics`)).text()).toMatch(
      /^lookup_readiness_check\{check="database"\} 1$/m,
    );
  }, 60_000);

  it('answers a call whose credit spend loses its connection with a 503, and the process goes on serving', async () => {
    const acc = await newAccount(product, 'starter');
    expect(
      (
        await adminCall(product, 'POST', `/admin/accounts/${acc.id}/credits`, {
          amount: 5,
          reference: 'db-cut',
        })
      ).status,
    ).toBe(200);
    expect((await apiGet(product, '/v1/legal-documents?q=luat', acc.key)).status).toBe(200);
    // Hold the account's balance row so that the next call's spend waits on it, then cut.
    const direct = new Client({ connectionString: schema.databaseUrl });
    await direct.connect();
    try {
      await direct.query('BEGIN');
      await direct.query('SELECT * FROM credit_balances WHERE account_id = $1 FOR UPDATE', [acc.id]);
      const paid = apiGet(product, '/v1/legal-documents?q=luat', acc.key);
      await new Promise((r) => setTimeout(r, 300));
      proxy.cut();
      const res = await paid;
      expect([res.status, res.body.code]).toEqual([503, 'search_unavailable']);
    } finally {
      await direct.query('ROLLBACK').catch(() => undefined);
      await direct.end();
    }
    expect(product.child.exitCode).toBeNull();
    const me = await apiGet(product, '/v1/me', acc.key);
    expect(me.status).toBe(200);
    const data = me.body.data as { extra_credits: number; quota: { daily_used: number } };
    expect([data.extra_credits, data.quota.daily_used]).toEqual([5, 1]);
    expect(product.output()).not.toMatch(/uncaught exception/);
  }, 60_000);
});
