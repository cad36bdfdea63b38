import { PrivateRedis, eventually } from '../support/private-redis';
import { startStubUpstream } from '../support/stub-upstream';
import {
  ADMIN_SECRET,
  adminCall,
  createE2eSchema,
  apiGet,
  newAccount,
  pointUpstreamsAt,
  startProductProcess,
  tempConfig,
} from './product-process';
import type { E2eSchema, ProductProcess } from './product-process';

// A private redis-server we can stop and start, behind gateways in 'open' and 'closed' mode.
let schema: E2eSchema;
let redis: PrivateRedis;
let stub: Awaited<ReturnType<typeof startStubUpstream>>;
let open: ProductProcess;
let closed: ProductProcess;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  schema = await createE2eSchema();
  stub = await startStubUpstream('127.0.0.2');
  const config = (mode: string) =>
    tempConfig((docs) => {
      pointUpstreamsAt(docs, stub.url);
      docs.gateway.set('store_failure', mode);
    });
  const env = {
    DATABASE_URL: schema.databaseUrl,
    REDIS_URL: redis.url,
    ADMIN_JWT_SECRET: ADMIN_SECRET,
  };
  open = await startProductProcess({ ...env, CONFIG_DIR: config('open') });
  closed = await startProductProcess({ ...env, CONFIG_DIR: config('closed') });
}, 180_000);

afterAll(async () => {
  await Promise.all([open?.stop(), closed?.stop()]);
  await redis?.kill();
  await stub?.close();
  await schema?.drop();
});

const used = async (p: ProductProcess, key: string): Promise<number> =>
  ((await apiGet(p, '/v1/me', key)).body.data as { quota: { monthly_used: number } }).quota.monthly_used;

describe('Redis stopped and restarted during traffic', () => {
  it('open mode: no 5xx while Redis is down, then shared counting resumes', async () => {
    const acc = await newAccount(open, 'pro');
    for (let i = 0; i < 3; i++)
      expect((await apiGet(open, '/v1/legal-documents?q=luat', acc.key)).status).toBe(200);
    const closedAcc = await newAccount(closed, 'pro');
    expect((await apiGet(closed, '/v1/legal-documents?q=luat', closedAcc.key)).status).toBe(200);

    await redis.kill();
    const during = await Promise.all(
      Array.from({ length: 20 }, () => apiGet(open, '/v1/legal-documents?q=luat', acc.key)),
    );
    expect(during.map((r) => r.status).filter((s) => s >= 500)).toEqual([]);
    expect(during.every((r) => r.status === 200)).toBe(true);

    // closed mode refuses with the documented 503 code instead of serving uncounted calls
    const refused = await apiGet(closed, '/v1/legal-documents?q=luat', closedAcc.key);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      success: false,
      code: 'search_unavailable',
      message: 'Dịch vụ tạm thời không thể ghi nhận lượt gọi, vui lòng thử lại sau.',
    });
    expect(refused.headers.get('retry-after')).toBeTruthy();
    const me = await apiGet(closed, '/v1/me', closedAcc.key);
    expect([me.status, me.body.code, me.headers.get('retry-after')]).toEqual([
      503,
      'search_unavailable',
      '5',
    ]);

    // The admin API goes on: its changes are stored, and the replica that made them applies them.
    // (A new account: the one above has just used its per-second allowance.)
    const fresh = await newAccount(open, 'pro'); // a key creation publishes an invalidation
    expect((await apiGet(open, '/v1/legal-documents?q=luat', fresh.key)).status).toBe(200);
    const patch = (body: object) => adminCall(open, 'PATCH', `/admin/accounts/${fresh.id}`, body);
    expect((await patch({ email_verified: false })).status).toBe(200);
    expect((await apiGet(open, '/v1/legal-documents?q=luat', fresh.key)).body.code).toBe('email_unverified');
    expect((await patch({ email_verified: true })).status).toBe(200);

    const metrics = await (await fetch(`${open.admin}/metrics`)).text();
    expect(metrics).toMatch(/lookup_store_fallback_active 1/);
    // Closed reports the outage too: its replicas turn unready, and a 5xx rate without traffic shows nothing.
    expect(await (await fetch(`${closed.admin}/metrics`)).text()).toMatch(/lookup_store_fallback_active 1/);
    // Log lines are written in batches and cross a pipe: waited for, not read at once.
    await eventually(
      () => closed.output().includes('redis unreachable: refusing counted calls (store_failure closed)'),
      5_000,
    );

    await redis.restart();
    // Both replicas reconnect with a backoff of up to 2 s; wait until they have, not for a fixed time.
    await eventually(async () => {
      const text = await (await fetch(`${open.admin}/metrics`)).text();
      const closedText = await (await fetch(`${closed.admin}/metrics`)).text();
      return (
        /lookup_store_fallback_active 0/.test(text) &&
        /lookup_store_fallback_active 0/.test(closedText) &&
        (await fetch(`${closed.admin}/readyz`)).ok
      );
    }, 30_000);
    // This private Redis keeps nothing on disk, so its counters restart empty (production runs AOF);
    // what matters here is that counting is shared again: each call lands in Redis.
    const before = await used(open, acc.key);
    expect((await apiGet(open, '/v1/legal-documents?q=luat', acc.key)).status).toBe(200);
    expect((await apiGet(open, '/v1/legal-documents?q=luat', acc.key)).status).toBe(200);
    expect(await used(open, acc.key)).toBe(before + 2);
    expect(await used(closed, acc.key)).toBe(before + 2);
    expect((await apiGet(closed, '/v1/legal-documents?q=luat', closedAcc.key)).status).toBe(200);
    expect(await (await fetch(`${open.admin}/metrics`)).text()).toMatch(/lookup_store_fallback_active 0/);
  }, 60_000);
});
