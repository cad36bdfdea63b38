import { TEST_REDIS_URL } from '../support/databases';
import { eventually } from '../support/private-redis';
import { startRedisCluster } from '../support/redis-cluster';
import { startStubUpstream } from '../support/stub-upstream';
import {
  ADMIN_SECRET,
  createE2eSchema,
  adminCall,
  apiGet,
  newAccount,
  pointUpstreamsAt,
  startProductProcess,
  tempConfig,
} from './product-process';
import type { E2eSchema, ProductProcess } from './product-process';

// Two gateway processes sharing one Redis and one PostgreSQL schema, in front of a stub upstream
// on 127.0.0.2 (an external upstream: neither process starts a built-in one). The same suite runs
// with REDIS_URL naming a single node and a Redis Cluster of three primaries (DESIGN §5), where
// each account's keys live on the slot of its own hash tag.
const REDIS: [string, () => Promise<{ url: string; close(): Promise<void> }>][] = [
  ['one Redis', () => Promise.resolve({ url: TEST_REDIS_URL, close: () => Promise.resolve() })],
  ['a Redis Cluster', startRedisCluster],
];

describe.each(REDIS)('metering shared by two gateway replicas on %s', (_name, startRedis) => {
  let schema: E2eSchema;
  let redis: { url: string; close(): Promise<void> };
  let stub: Awaited<ReturnType<typeof startStubUpstream>>;
  let a: ProductProcess;
  let b: ProductProcess;

  beforeAll(async () => {
    schema = await createE2eSchema();
    redis = await startRedis();
    stub = await startStubUpstream('127.0.0.2');
    const configDir = tempConfig((docs) => {
      pointUpstreamsAt(docs, stub.url);
      docs.plans.setIn(
        ['plans', 'harvest'],
        docs.plans.createNode({
          monthly_calls: 100000,
          daily_calls: 10000,
          per_minute: 10000,
          per_second: 10000,
          per_page_max: 100,
          max_page: 100,
          full_text_daily: 10,
          ip_allowlist: true,
          extra_credits: true,
          bulk_watch: true,
        }),
      );
      docs.plans.setIn(
        ['plans', 'metered'],
        docs.plans.createNode({
          monthly_calls: 37,
          daily_calls: 10000,
          per_minute: 10000,
          per_second: 10000,
          per_page_max: 20,
          max_page: 5,
          full_text_daily: 2,
          ip_allowlist: true,
          extra_credits: true,
          bulk_watch: false,
        }),
      );
    });
    const env = {
      CONFIG_DIR: configDir,
      DATABASE_URL: schema.databaseUrl,
      REDIS_URL: redis.url,
      ADMIN_JWT_SECRET: ADMIN_SECRET,
      LOG_LEVEL: 'warn',
    };
    a = await startProductProcess({ ...env, LOG_LEVEL: 'info' });
    b = await startProductProcess({ ...env, LOG_LEVEL: 'info' });
    // Traffic reaches a replica once it is ready, as behind a Kubernetes Service: a cluster client
    // is ready only after it has read the slot map, which may come after the process has started.
    const ready = async (p: ProductProcess): Promise<boolean> => (await fetch(`${p.admin}/readyz`)).ok;
    await eventually(async () => (await ready(a)) && (await ready(b)), 15_000);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await stub?.close();
    await redis?.close();
    await schema?.drop();
  });

  const burst = (n: number, key: string) =>
    Promise.all(
      Array.from({ length: n }, (_, i) => apiGet(i % 2 ? a : b, '/v1/legal-documents?q=luat', key)),
    );

  it('serves one JWKS on both replicas, so an upstream verifies either replica’s assertions with either', async () => {
    const jwks = async (p: ProductProcess) => (await fetch(`${p.admin}/.well-known/jwks.json`)).json();
    const [ja, jb] = await Promise.all([jwks(a), jwks(b)]);
    expect(ja).toEqual(jb);
    expect((ja as { keys: unknown[] }).keys).toHaveLength(1);
  });

  it('reports the shared counters ready on both replicas', async () => {
    for (const p of [a, b]) {
      const res = await fetch(`${p.admin}/readyz`);
      const body = (await res.json()) as { checks: Record<string, boolean> };
      expect([res.status, body.checks]).toEqual([200, expect.objectContaining({ counters: true })]);
    }
  });

  it('counts distinct full-text documents across replicas and refuses past the cap with full_text_limit', async () => {
    const acc = await newAccount(a, 'metered');
    expect((await apiGet(a, '/v1/legal-documents/vb_1', acc.key)).status).toBe(200);
    expect((await apiGet(b, '/v1/legal-documents/vb_1', acc.key)).status).toBe(200);
    expect((await apiGet(b, '/v1/legal-documents/vb_2', acc.key)).status).toBe(200);
    const third = await apiGet(a, '/v1/legal-documents/vb_3', acc.key);
    expect([third.status, third.body.code]).toEqual([429, 'full_text_limit']);
    const me = await apiGet(b, '/v1/me', acc.key);
    expect((me.body.data as { quota: { full_text_used_today: number } }).quota.full_text_used_today).toBe(2);
  });

  it('admits exactly N of 120 concurrent requests against a monthly quota of N', async () => {
    const acc = await newAccount(a, 'metered');
    const results = await burst(120, acc.key);
    const ok = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 429 && r.body.code === 'quota_exceeded').length;
    expect(ok).toBe(37);
    expect(refused).toBe(83);
    const me = await apiGet(b, '/v1/me', acc.key);
    expect((me.body.data as { quota: { monthly_used: number } }).quota.monthly_used).toBe(37);
  });

  it('spends purchased credits exactly once each under concurrency: the balance ends at 0, never below', async () => {
    const acc = await newAccount(a, 'metered');
    const buy = await adminCall(b, 'POST', `/admin/accounts/${acc.id}/credits`, {
      amount: 25,
      reference: 'invoice-1',
    });
    expect(buy.json.extra_credits).toBe(25);
    const replay = await adminCall(a, 'POST', `/admin/accounts/${acc.id}/credits`, {
      amount: 25,
      reference: 'invoice-1',
    });
    expect(replay.json).toMatchObject({ extra_credits: 25, applied: false });
    // The same reference with another amount is refused, not answered as a success that added nothing.
    const mistaken = await adminCall(a, 'POST', `/admin/accounts/${acc.id}/credits`, {
      amount: 30,
      reference: 'invoice-1',
    });
    expect([mistaken.status, mistaken.json.code]).toEqual([409, 'conflict']);
    expect(String(mistaken.json.message)).toContain('25');
    const results = await burst(110, acc.key);
    expect(results.filter((r) => r.status === 200).length).toBe(37 + 25);
    const last = results.filter((r) => r.status === 429);
    expect(last.every((r) => r.body.code === 'quota_exceeded')).toBe(true);
    expect(last.some((r) => r.body.buy_credits_url)).toBe(true);
    const account = await adminCall(a, 'GET', `/admin/accounts/${acc.id}`);
    expect(account.json.extra_credits).toBe(0);
  });

  it('applies a plan change made on one replica to the other within a second, with usage already counted', async () => {
    const acc = await newAccount(a, 'metered');
    // Keep the burst and the check inside one per-minute window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    await burst(10, acc.key);
    await adminCall(a, 'PATCH', `/admin/accounts/${acc.id}`, { plan: 'free' });
    await new Promise((r) => setTimeout(r, 1000));
    // Free allows 10 requests a minute: the 10 already made this minute count at once.
    const res = await apiGet(b, '/v1/legal-documents?q=luat', acc.key);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('rate_limited');
    expect(res.headers.get('x-quota-limit')).toBe('1000');
    expect(res.headers.get('x-quota-remaining')).toBe(String(1000 - 10));
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('enforces a bulk-extraction lock set on one replica on the other, and an admin unlock holds', async () => {
    const acc = await newAccount(a, 'harvest');
    for (let page = 1; page <= 6; page++) {
      expect(
        (await apiGet(a, `/v1/legal-documents?q=p${page}&per_page=100&page=${page}`, acc.key)).status,
      ).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The watch records each answer's ids after sending it, and the lock follows: waited for
    // through the admin API, which records nothing (another data call would add ids).
    await eventually(
      async () => (await adminCall(b, 'GET', `/admin/accounts/${acc.id}`)).json.restricted_until !== null,
      10_000,
    );
    const res = await apiGet(b, '/v1/legal-documents?q=luat', acc.key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('account_restricted');
    const account = await adminCall(b, 'GET', `/admin/accounts/${acc.id}`);
    const watched = (account.json.bulk_watch as { datasets: { dataset: string; distinct_ids: number }[] })
      .datasets;
    expect(watched[0]!.dataset).toBe('legal-documents');
    expect(Math.abs(watched[0]!.distinct_ids - 600)).toBeLessThan(15); // HyperLogLog estimate
    // Log lines are written in batches and cross a pipe: wait for it rather than read it at once.
    await eventually(() => a.output().includes('bulk_extraction_lock'), 5_000);

    // An admin's unlock holds: the watch forgot what led to the lock, so new records do not relock.
    await adminCall(b, 'PATCH', `/admin/accounts/${acc.id}`, { restricted_until: null });
    // Until the unlock reaches a replica, its 403 records nothing, so asking again until a 200 is
    // harmless; a relock by page 7's records would keep the second at 403.
    const answers = async (p: ProductProcess, path: string): Promise<boolean> =>
      (await apiGet(p, path, acc.key)).status === 200;
    await eventually(() => answers(a, '/v1/legal-documents?q=p7&per_page=100&page=7'), 10_000);
    await eventually(() => answers(b, '/v1/legal-documents?q=luat'), 10_000);
    // Page 7's 100 and q=luat's 20, recorded after each response was sent.
    const distinctIds = async (): Promise<number> => {
      const after = await adminCall(a, 'GET', `/admin/accounts/${acc.id}`);
      return (after.json.bulk_watch as { datasets: { distinct_ids: number }[] }).datasets[0]!.distinct_ids;
    };
    await eventually(async () => Math.abs((await distinctIds()) - 120) < 5, 5_000);
  });
});
