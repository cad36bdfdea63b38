import { gatewayFileSchema } from '../../src/config/gateway-schema';
import { StoreUnavailableError } from '../../src/metering/meter-store';
import { computeWindows } from '../../src/metering/windows';
import { createGatewayMetrics } from '../../src/observability/gateway-metrics';
import { createCounterStores } from '../../src/runtime/stores';
import type { CounterStores } from '../../src/runtime/stores';
import { createRedisClient, waitForReady } from '../../src/stores/redis-client';
import { systemClock } from '../../src/util/clock';
import { silentLogger } from '../../src/util/logger';
import { PrivateRedis, eventually } from '../support/private-redis';

// The production wiring: one connection without a timer per command, every use of it under a deadline.
describe('counter stores on a Redis that stops answering', () => {
  let server: PrivateRedis;
  let stores: CounterStores;

  beforeAll(async () => {
    server = await PrivateRedis.start();
    stores = createCounterStores({
      redisUrl: server.url,
      gateway: gatewayFileSchema.parse({ store_failure: 'closed' }),
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

  test('the readiness ping, a reserve and a published invalidation each fail at their deadline, not when Redis wakes up', async () => {
    const blocker = createRedisClient(server.url, { commandTimeoutMs: 5_000 });
    await waitForReady(blocker);
    // Redis wakes at 4 s, far past the 500 ms deadlines, so a pause of this process cannot hide one.
    const sleeping = blocker.call('DEBUG', 'SLEEP', '4');
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const [ping, reserve, publish] = await Promise.allSettled([
      stores.ping(),
      stores.meter.reserve({
        accountId: 'acc_dl',
        requestId: 'r1',
        cost: 1,
        limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
        windows: computeWindows(Date.now(), 'Asia/Ho_Chi_Minh'),
        creditsAllowed: false,
      }),
      stores.bus.publish({ type: 'key', keyHash: 'x'.repeat(64) }),
    ]);
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(ping).toEqual({ status: 'fulfilled', value: false });
    expect(reserve.status === 'rejected' && reserve.reason).toBeInstanceOf(StoreUnavailableError);
    expect(publish.status === 'rejected' && (publish.reason as Error).message).toMatch(/timed out/);
    await sleeping;
    blocker.disconnect();
    expect(await stores.ping()).toBe(true);
  });
});

describe('gateway.yaml store_timeout_ms', () => {
  let server: PrivateRedis;
  let stores: CounterStores;

  beforeAll(async () => {
    server = await PrivateRedis.start();
    stores = createCounterStores({
      redisUrl: server.url,
      gateway: gatewayFileSchema.parse({ store_failure: 'closed', store_timeout_ms: 4_000 }),
      clock: systemClock,
      logger: silentLogger(),
      metrics: createGatewayMetrics({ defaultMetrics: false }),
    });
    await eventually(() => stores.ping(), 10_000);
  });
  afterAll(async () => {
    await stores.close();
    await server.kill();
  });

  test('a Redis stall shorter than the setting is waited out: the reserve counts instead of failing at 500 ms', async () => {
    const blocker = createRedisClient(server.url, { commandTimeoutMs: 5_000 });
    await waitForReady(blocker);
    const sleeping = blocker.call('DEBUG', 'SLEEP', '1');
    try {
      await new Promise((r) => setTimeout(r, 50));
      const t0 = Date.now();
      const result = await stores.meter.reserve({
        accountId: 'acc_slow',
        requestId: 'r1',
        cost: 1,
        limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
        windows: computeWindows(Date.now(), 'Asia/Ho_Chi_Minh'),
        creditsAllowed: false,
      });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(700);
      expect(result.ok).toBe(true);
    } finally {
      await sleeping;
      blocker.disconnect();
    }
  });
});
