import { gatewayFileSchema } from '../../src/config/gateway-schema';
import { StoreUnavailableError } from '../../src/metering/meter-store';
import type { ReserveResult } from '../../src/metering/meter-store';
import { computeWindows } from '../../src/metering/windows';
import { createGatewayMetrics } from '../../src/observability/gateway-metrics';
import { createCounterStores } from '../../src/runtime/stores';
import type { CounterStores } from '../../src/runtime/stores';
import { createRedisClient, waitForReady } from '../../src/stores/redis-client';
import { systemClock } from '../../src/util/clock';
import { silentLogger } from '../../src/util/logger';
import { PrivateRedis, eventually } from '../support/private-redis';
import { capturedLog } from '../support/captured-log';

// The production wiring: one connection without a timer per command, every use of it under a deadline.

/** A private Redis and the counter stores on it, built from these gateway.yaml settings. */
function onPrivateRedis(gateway: Record<string, unknown>): {
  server: () => PrivateRedis;
  stores: () => CounterStores;
} {
  let server: PrivateRedis;
  let stores: CounterStores;
  beforeAll(async () => {
    server = await PrivateRedis.start();
    const settings = gatewayFileSchema.parse(gateway);
    stores = createCounterStores({
      redisUrl: server.url,
      gateway: settings,
      windowDays: () => settings.bulk_watch.window_days,
      clock: systemClock,
      logger: silentLogger(),
      metrics: createGatewayMetrics({ defaultMetrics: false }),
    });
    // The counter connection queues nothing while it connects: a ping before then is false.
    await eventually(() => stores.ping(), 10_000);
  });
  afterAll(async () => {
    await stores.close();
    await server.kill();
  });
  return { server: () => server, stores: () => stores };
}

const reserveOne = (stores: CounterStores, accountId: string): Promise<ReserveResult> =>
  stores.meter.reserve({
    accountId,
    requestId: 'r1',
    cost: 1,
    limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
    windows: computeWindows(Date.now(), 'Asia/Ho_Chi_Minh'),
    creditsAllowed: false,
  });

describe('counter stores on a Redis that stops answering', () => {
  const redis = onPrivateRedis({ store_failure: 'closed' });

  test('the readiness ping, a reserve and a published invalidation each fail at their deadline, not when Redis wakes up', async () => {
    const stores = redis.stores();
    // Redis wakes at 4 s, far past the 500 ms deadlines, so a pause of this process cannot hide one.
    await redis.server().stall(4, async () => {
      const t0 = Date.now();
      const [ping, reserve, publish] = await Promise.allSettled([
        stores.ping(),
        reserveOne(stores, 'acc_dl'),
        stores.bus.publish({ type: 'key', keyHash: 'x'.repeat(64) }),
      ]);
      expect(Date.now() - t0).toBeLessThan(2_500);
      expect(ping).toEqual({ status: 'fulfilled', value: false });
      expect(reserve.status === 'rejected' && reserve.reason).toBeInstanceOf(StoreUnavailableError);
      expect(publish.status === 'rejected' && (publish.reason as Error).message).toMatch(/timed out/);
    });
    expect(await stores.ping()).toBe(true);
  });
});

describe('gateway.yaml store_timeout_ms', () => {
  const redis = onPrivateRedis({ store_failure: 'closed', store_timeout_ms: 4_000 });

  test('a Redis stall shorter than the setting is waited out: the reserve counts instead of failing at 500 ms', async () => {
    // 2 s (under the 4 s setting): the reserve still waits ≥ 700 ms after a pause of the test
    // process of up to a second before it is sent.
    await redis.server().stall(2, async () => {
      const t0 = Date.now();
      const result = await reserveOne(redis.stores(), 'acc_slow');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(700);
      expect(result.ok).toBe(true);
    });
  });
});

describe('REDIS_URL naming a database the server refuses', () => {
  test('the counters do not land in database 0: the client closes, says why once, and readiness stays false', async () => {
    const server = await PrivateRedis.start();
    const { logger, lines } = capturedLog();
    const settings = gatewayFileSchema.parse({ store_failure: 'closed' });
    // A Redis has 16 databases unless configured otherwise.
    const stores = createCounterStores({
      redisUrl: `${server.url}/9999`,
      gateway: settings,
      windowDays: () => settings.bulk_watch.window_days,
      clock: systemClock,
      logger,
      metrics: createGatewayMetrics({ defaultMetrics: false }),
    });
    const db0 = createRedisClient(server.url);
    try {
      await eventually(() => lines.some((l) => /REDIS_URL names a database/.test(String(l.msg))));
      await expect(reserveOne(stores, 'acc_db')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await stores.ping()).toBe(false);
      await waitForReady(db0);
      expect(await db0.dbsize()).toBe(0);
      expect(lines.filter((l) => /REDIS_URL names a database/.test(String(l.msg)))).toHaveLength(1);
    } finally {
      db0.disconnect();
      await stores.close();
      await server.kill();
      // ioredis closes a connection it gave up on with a 2 s timer of its own (AbstractConnector's
      // disconnect timeout), which no close clears: waited out here, not left to hold the worker.
      await new Promise((r) => setTimeout(r, 2_100));
    }
  });
});
