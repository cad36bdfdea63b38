import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { TEST_REDIS_URL } from '../../test/support/databases';
import { startHarness } from '../../test/support/gateway-harness';
import type { Harness } from '../../test/support/gateway-harness';
import { HLL_STANDARD_ERROR } from '../metering/meter-store';
import type { RawConfig } from '../config/load-config';
import { MemoryMeterStore } from '../metering/memory-meter-store';
import { RedisMeterStore } from '../metering/redis-meter-store';
import { createRedisClient, waitForReady } from '../stores/redis-client';
import type { RedisClient } from '../stores/redis-client';
import { InProcessInvalidationBus } from '../stores/invalidation-bus';
import type { InvalidationBus } from '../stores/invalidation-bus';
import { BulkWatch } from './bulk-watch';
import { DatasetStats } from './dataset-stats';

const DAY = 86_400_000;
/** Two plans on the stub's 1,000-record datasets, a 3-day window and a threshold of 500. */
function harvestPlans(raw: RawConfig): void {
  const big = {
    monthly_calls: 1_000_000,
    daily_calls: 100_000,
    per_minute: 10_000,
    per_second: 10_000,
    per_page_max: 100,
    max_page: 100,
    full_text_daily: 10,
    ip_allowlist: true,
    extra_credits: true,
  };
  raw.plans.plans.harvest = { ...big, bulk_watch: true };
  raw.plans.plans.sync = { ...big, bulk_watch: false };
  raw.gateway.bulk_watch = {
    window_days: 3,
    max_share: 0.05,
    min_records: 500,
    lock_hours: 24,
    stats_refresh_seconds: 600,
  };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness(harvestPlans);
});
afterAll(() => h.close());

// The watch records after each response; wait for it to finish, not for a fixed time.
const settle = (on = h) => on.idle();
async function pages(key: string, q: string, from: number, to: number, on = h): Promise<number[]> {
  const statuses: number[] = [];
  for (let p = from; p <= to; p++) {
    statuses.push(
      (
        await request(on.gw.app)
          .get(`/v1/legal-documents?q=${q}&per_page=100&page=${p}`)
          .set('X-Api-Key', key)
      ).status,
    );
    await settle(on);
  }
  return statuses;
}

/** A lock that ended by itself is set again by a record new to the window, not by rereading. */
async function relockOnlyOnNewRecords(on: Harness): Promise<void> {
  const start = on.clock.now();
  const acc = await on.account('harvest');
  const status = async () =>
    (await request(on.gw.app).get('/v1/legal-documents?q=g').set('X-Api-Key', acc.key)).status;
  expect(await pages(acc.key, 'f', 1, 6, on)).toEqual([200, 200, 200, 200, 200, 200]); // 600 > 500
  expect(await status()).toBe(403);
  on.clock.advance(24 * 3_600_000); // the lock's last moment has passed: a new day, in the window
  expect(await pages(acc.key, 'f', 6, 6, on)).toEqual([200]); // taken yesterday
  expect(await pages(acc.key, 'f', 2, 3, on)).toEqual([200, 200]);
  expect(await status()).toBe(200);
  await settle(on);
  expect((await on.accounts.getAccount(acc.id))?.restricted_until).toBe(on.clock.now());
  expect(await pages(acc.key, 'f', 7, 7, on)).toEqual([200]); // 100 records new to the window
  expect(await status()).toBe(403);
  expect((await on.accounts.getAccount(acc.id))?.restricted_until).toBe(on.clock.now() + 24 * 3_600_000);
  on.clock.set(start);
}

/** The harness's config with its upstreams unreachable: no dataset size can be known. */
const unreachable = (on: Harness): Harness['config'] => ({
  ...on.config,
  upstreams: new Map([...on.config.upstreams].map(([n, u]) => [n, { ...u, url: 'http://127.0.0.1:9' }])),
});

/** A watch as a replica that just started has it: no dataset size known yet, read with `config`. */
const watchOn = (
  on: Harness,
  config = on.config,
  bus: InvalidationBus = new InProcessInvalidationBus(),
): BulkWatch =>
  new BulkWatch({
    config: () => config,
    meter: on.deps.meter,
    accounts: on.accounts,
    bus,
    stats: new DatasetStats(() => config, on.clock),
    clock: on.clock,
    logger: on.deps.logger,
    metrics: on.deps.metrics,
  });

/**
 * After a lock over one dataset has ended, a crossing on another that could not lock (its size
 * unknown) is made up for by the next call there, a reread too: the reread rule is the locked window's.
 */
async function makeUpACrossingAfterALockElsewhere(on: Harness): Promise<void> {
  const start = on.clock.now();
  const acc = await on.account('harvest');
  expect(await pages(acc.key, 'h', 1, 6, on)).toEqual([200, 200, 200, 200, 200, 200]); // locked
  on.clock.advance(24 * 3_600_000);
  const restrictedUntil = async () => (await on.accounts.getAccount(acc.id))?.restricted_until;
  expect(await restrictedUntil()).toBe(on.clock.now()); // the lock has ended by itself
  const ids = Array.from({ length: 600 }, (_, i) => `bo_${i + 1}`);
  await watchOn(on, unreachable(on)).recordNow(acc.id, 'bailiff-offices', ids, true); // 600 > 500, no lock
  expect(await restrictedUntil()).toBe(on.clock.now());
  await on.bulkWatch.recordNow(acc.id, 'bailiff-offices', ids.slice(0, 10), true); // a reread
  expect(await restrictedUntil()).toBe(on.clock.now() + 24 * 3_600_000);
  on.clock.set(start);
}

/** A call let through before the lock reached every replica crosses on another dataset: that lock covers it. */
async function crossedWhileLocked(on: Harness): Promise<void> {
  const start = on.clock.now();
  const acc = await on.account('harvest');
  expect(await pages(acc.key, 'j', 1, 6, on)).toEqual([200, 200, 200, 200, 200, 200]); // locked
  const until = on.clock.now() + 24 * 3_600_000;
  const ids = Array.from({ length: 600 }, (_, i) => `bp_${i + 1}`);
  await on.bulkWatch.recordNow(acc.id, 'bailiff-offices', ids, false);
  expect((await on.accounts.getAccount(acc.id))?.restricted_until).toBe(until);
  on.clock.advance(24 * 3_600_000);
  await on.bulkWatch.recordNow(acc.id, 'bailiff-offices', ids.slice(0, 10), true); // a reread
  expect((await on.accounts.getAccount(acc.id))?.restricted_until).toBe(until);
  on.clock.set(start);
}

describe('bulk-extraction watch', () => {
  it('locks an account whose harvest, split over filters and days, crosses the threshold in the window', async () => {
    const start = h.clock.now();
    const acc = await h.account('harvest');
    expect(await pages(acc.key, 'a', 1, 2)).toEqual([200, 200]); // day 1: ids 1–200
    h.clock.advance(DAY);
    expect(await pages(acc.key, 'b', 3, 4)).toEqual([200, 200]); // day 2: ids 201–400
    h.clock.advance(DAY);
    expect(await pages(acc.key, 'c', 3, 5)).toEqual([200, 200, 200]); // day 3: 301–500, union 500: not yet
    expect(await pages(acc.key, 'd', 6, 6)).toEqual([200]); // union 600 > 500: locked after this answer
    const res = await request(h.gw.app).get('/v1/legal-documents?q=e').set('X-Api-Key', acc.key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('account_restricted');
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', acc.key);
    expect([me.status, me.body.code, me.body.reset_in_seconds]).toEqual([
      403,
      'account_restricted',
      24 * 3600,
    ]);
    const account = await h.accounts.getAccount(acc.id);
    expect(account?.restricted_until).toBe(h.clock.now() + 24 * 3_600_000);
    const shares = await h.bulkWatch.shares(acc.id);
    expect(shares).toEqual([
      { dataset: 'legal-documents', distinct_ids: 600, dataset_size: 1000, share: 0.6, threshold: 500 },
    ]);
    expect(await h.deps.metrics.registry.getSingleMetricAsString('lookup_bulk_locks_total')).toContain(
      'dataset="legal-documents"} 1',
    );

    // unlock as the admin API's PATCH restricted_until null does: the watch forgets, then the lock goes
    await h.bulkWatch.forget(acc.id);
    await h.accounts.patchAccount(acc.id, { restricted_until: null });
    h.deps.keyCache.invalidateAccount(acc.id);
    expect(await pages(acc.key, 'e', 7, 7)).toEqual([200]); // 100 records not seen before
    expect((await request(h.gw.app).get('/v1/legal-documents?q=e').set('X-Api-Key', acc.key)).status).toBe(
      200,
    );
    await settle();
    expect(await h.bulkWatch.shares(acc.id)).toEqual([
      { dataset: 'legal-documents', distinct_ids: 120, dataset_size: 1000, share: 0.12, threshold: 500 },
    ]);
    h.clock.set(start);
  });

  it('once a lock has ended by itself, rereading records already taken does not lock again, and a new one does', () =>
    relockOnlyOnNewRecords(h));

  it('locks an account whose lock over another dataset has ended, on its next call there, a reread too, when the crossing could not lock it', () =>
    makeUpACrossingAfterALockElsewhere(h));

  it('counts a window that crossed while the account was locked already as covered by that lock: rereading it after does not lock', () =>
    crossedWhileLocked(h));

  it('marks the window it locked over even when the news of the lock cannot be sent: rereading it after does not lock', async () => {
    const start = h.clock.now();
    const acc = await h.account('harvest');
    const deaf = new InProcessInvalidationBus();
    deaf.publish = () => Promise.reject(new Error('Connection is closed.'));
    const ids = Array.from({ length: 600 }, (_, i) => `bq_${i + 1}`);
    await expect(watchOn(h, h.config, deaf).recordNow(acc.id, 'bailiff-offices', ids)).rejects.toThrow(
      'Connection is closed.',
    );
    const until = h.clock.now() + 24 * 3_600_000;
    expect((await h.accounts.getAccount(acc.id))?.restricted_until).toBe(until);
    h.clock.advance(24 * 3_600_000);
    await h.bulkWatch.recordNow(acc.id, 'bailiff-offices', ids.slice(0, 10), true); // a reread
    expect((await h.accounts.getAccount(acc.id))?.restricted_until).toBe(until);
    h.clock.set(start);
  });

  it('does not lock the same volume spread over more than the window', async () => {
    const start = h.clock.now();
    const acc = await h.account('harvest');
    for (let i = 0; i < 4; i++) {
      expect(await pages(acc.key, 'x', i * 2 + 1, i * 2 + 2)).toEqual([200, 200]);
      h.clock.advance(3 * DAY);
    }
    expect((await request(h.gw.app).get('/v1/legal-documents?q=y').set('X-Api-Key', acc.key)).status).toBe(
      200,
    );
    h.clock.set(start);
  });

  it('never locks a plan without bulk_watch (Enterprise-style full synchronisation)', async () => {
    const acc = await h.account('sync');
    expect(await pages(acc.key, 'z', 1, 8)).toEqual(Array(8).fill(200));
    expect((await request(h.gw.app).get('/v1/legal-documents?q=y').set('X-Api-Key', acc.key)).status).toBe(
      200,
    );
    expect(await h.bulkWatch.shares(acc.id)).toEqual([]);
  });

  it('counts detail records as well as list rows', async () => {
    const acc = await h.account('harvest');
    await request(h.gw.app).get('/v1/legal-documents/vb_9001').set('X-Api-Key', acc.key);
    await settle();
    expect((await h.bulkWatch.shares(acc.id))[0]!.distinct_ids).toBe(1);
  });

  it('counts the documents a sub-resource shows, so walking relations is watched like listing', async () => {
    const acc = await h.account('harvest');
    const rel = await request(h.gw.app)
      .get('/v1/legal-documents/vb_9002/relations')
      .set('X-Api-Key', acc.key);
    expect(rel.status).toBe(200);
    expect(rel.body.data.cites).toEqual([{ id: 'vb_2' }]);
    await settle();
    // vb_2, which it shows; not vb_9002, whose record it does not.
    expect((await h.bulkWatch.shares(acc.id))[0]!.distinct_ids).toBe(1);
    await request(h.gw.app).get('/v1/legal-documents/vb_2').set('X-Api-Key', acc.key);
    await settle();
    expect((await h.bulkWatch.shares(acc.id))[0]!.distinct_ids).toBe(1);
  });
});

describe('bulk-extraction watch on a store that estimates (Redis HyperLogLog)', () => {
  let e: Harness;
  // Counts exactly but says it estimates as Redis does: what the watch does with the error shows alone.
  const estimating = Object.defineProperty(new MemoryMeterStore(), 'distinctError', {
    value: HLL_STANDARD_ERROR,
  });
  beforeAll(async () => {
    e = await startHarness((raw) => {
      raw.plans.plans.harvest = {
        ...raw.plans.plans.pro!,
        per_second: 10_000,
        per_minute: 10_000,
        per_page_max: 10,
        max_page: 1000,
        bulk_watch: true,
      };
      // The stub's datasets hold 1,000 records: a threshold of max(500, 0.6 × 1,000) = 600.
      raw.gateway.bulk_watch = {
        ...raw.gateway.bulk_watch,
        window_days: 3,
        max_share: 0.6,
        min_records: 500,
      };
    }, estimating);
  });
  afterAll(() => e.close());

  const page = async (key: string, p: number) =>
    (await request(e.gw.app).get(`/v1/legal-documents?q=a&per_page=10&page=${p}`).set('X-Api-Key', key))
      .status;

  it('locks only past the threshold by three standard errors, never at it', async () => {
    const acc = await e.account('harvest');
    const served: number[] = [];
    for (let p = 1; p <= 61; p++) {
      served.push(await page(acc.key, p));
      await e.idle();
    }
    // 610 records: past 600, but within 600 × (1 + 3 × 0.81%) = 614.6, so still served.
    expect(served).toEqual(Array(61).fill(200));
    expect(await page(acc.key, 62)).toBe(200); // 620 > 614.6: locked after this answer
    await e.idle();
    expect(await page(acc.key, 63)).toBe(403);
  });

  it('waits for the dataset size after a start instead of judging by min_records alone', async () => {
    const acc = await e.account('harvest');
    // A replica just started (no size known yet) records 550 records: past min_records (500), short
    // of the share (600). Judged by min_records alone, they locked the account.
    const started = watchOn(e);
    const ids = Array.from({ length: 550 }, (_, i) => `vb_${i + 1}`);
    await started.recordNow(acc.id, 'legal-documents', ids);
    expect((await e.accounts.getAccount(acc.id))?.restricted_until).toBeNull();
    expect(await started.shares(acc.id)).toEqual([
      { dataset: 'legal-documents', distinct_ids: 550, dataset_size: 1000, share: 0.55, threshold: 600 },
    ]);
  });

  it('locks no account on a dataset whose size its upstream does not give, and shows the threshold as unknown', async () => {
    const acc = await e.account('harvest');
    // The upstream's /_stats unreachable: judged by min_records alone, 550 records locked a
    // paying account a few pages into a dataset of any size.
    const blind = watchOn(e, unreachable(e));
    const ids = Array.from({ length: 550 }, (_, i) => `vb_${i + 1}`);
    await blind.recordNow(acc.id, 'legal-documents', ids);
    expect((await e.accounts.getAccount(acc.id))?.restricted_until).toBeNull();
    expect(await blind.shares(acc.id)).toEqual([
      { dataset: 'legal-documents', distinct_ids: 550, dataset_size: null, share: null, threshold: null },
    ]);
  });

  it('locks an account found past the threshold on its next call, a reread too, when the crossing could not lock it', async () => {
    const acc = await e.account('harvest');
    const ids = Array.from({ length: 700 }, (_, i) => `vc_${i + 1}`);
    await watchOn(e, unreachable(e)).recordNow(acc.id, 'legal-documents', ids); // size unknown: no lock
    expect((await e.accounts.getAccount(acc.id))?.restricted_until).toBeNull();
    await watchOn(e).recordNow(acc.id, 'legal-documents', ids.slice(0, 10)); // records taken before
    expect((await e.accounts.getAccount(acc.id))?.restricted_until).toBe(e.clock.now() + 24 * 3_600_000);
  });
});

describe('bulk-extraction watch on Redis', () => {
  let redis: RedisClient;
  let r: Harness;
  const prefix = `lkbw${randomBytes(4).toString('hex')}:`;
  beforeAll(async () => {
    redis = createRedisClient(TEST_REDIS_URL);
    await waitForReady(redis);
    r = await startHarness(harvestPlans, new RedisMeterStore({ redis, prefix }));
  });
  afterAll(async () => {
    await r?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('once a lock has ended by itself, rereading records taken on an earlier day does not lock again, and a new one does', () =>
    relockOnlyOnNewRecords(r));

  it('locks an account whose lock over another dataset has ended, on its next call there, a reread too, when the crossing could not lock it', () =>
    makeUpACrossingAfterALockElsewhere(r));

  it('counts a window that crossed while the account was locked already as covered by that lock: rereading it after does not lock', () =>
    crossedWhileLocked(r));
});
