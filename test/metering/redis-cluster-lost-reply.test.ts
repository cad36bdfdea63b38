import type { Cluster } from 'ioredis';
import { RedisMeterStore } from '../../src/metering/redis-meter-store';
import { computeWindows } from '../../src/metering/windows';
import { connectRedis, waitForReady } from '../../src/stores/redis-client';
import { startRedisCluster } from '../support/redis-cluster';
import type { TestRedisCluster } from '../support/redis-cluster';

const LIMITS = { perSecond: 1000, perMinute: 10_000, daily: 1000, monthly: 10_000 };

let cluster: TestRedisCluster;
let client: Cluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  client = connectRedis(cluster.url, { commandTimeoutMs: 2000 }) as Cluster;
  await waitForReady(client, 20_000);
}, 60_000);
afterAll(async () => {
  client.disconnect();
  await cluster.close();
});

describe('a reserve on a Redis Cluster whose reply is lost with its connection', () => {
  it('is not sent again, so it counts at most once, and the caller hears the connection was lost', async () => {
    const store = new RedisMeterStore({ redis: client, prefix: 'lost:' });
    const windows = computeWindows(Date.now(), 'Asia/Ho_Chi_Minh');
    const input = (requestId: string) => ({
      accountId: 'acc_lost',
      requestId,
      cost: 1,
      limits: LIMITS,
      windows,
      creditsAllowed: false,
    });
    // Loads the script and connects to the node that holds the account's keys.
    await store.reserve(input('r0'));
    const outcomes: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const pending = store.reserve(input(`r${i}`));
      // The command is on the wire; the connection goes before its reply is read.
      for (const node of client.nodes('master'))
        if ((node as unknown as { commandQueue: { length: number } }).commandQueue.length > 0)
          node.stream.destroy();
      outcomes.push(
        await pending.then(
          () => 'answered',
          (e: Error) => e.message,
        ),
      );
      await waitForReady(client, 20_000);
      await new Promise((r) => setTimeout(r, 300));
    }
    // Each lost reserve ran once or not at all (its bytes may not have left): never twice.
    expect(outcomes).toEqual(Array(5).fill('Connection is closed.'));
    const { monthly } = await store.peek('acc_lost', windows);
    expect(monthly).toBeGreaterThanOrEqual(1);
    expect(monthly).toBeLessThanOrEqual(6);
  }, 60_000);
});
