import type { Cluster } from 'ioredis';
import { RedisMeterStore } from '../../src/metering/redis-meter-store';
import { computeWindows } from '../../src/metering/windows';
import { connectRedis, waitForReady } from '../../src/stores/redis-client';
import { eventually } from '../support/private-redis';
import { startRedisCluster } from '../support/redis-cluster';
import type { TestRedisCluster } from '../support/redis-cluster';

const LIMITS = { perSecond: 1000, perMinute: 10_000, daily: 1000, monthly: 10_000 };

let cluster: TestRedisCluster;
let client: Cluster;
let reader: Cluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  client = connectRedis(cluster.url, { commandTimeoutMs: 5000 }) as Cluster;
  reader = connectRedis(cluster.url, { commandTimeoutMs: 5000 }) as Cluster;
  await Promise.all([waitForReady(client, 20_000), waitForReady(reader, 20_000)]);
}, 60_000);
afterAll(async () => {
  client.disconnect();
  reader.disconnect();
  await cluster.close();
});

/** The cluster node with a command in flight. */
const busyNode = (c: Cluster) =>
  c
    .nodes('master')
    .find((n) => (n as unknown as { commandQueue: { length: number } }).commandQueue.length > 0);

describe('a reserve on a Redis Cluster whose reply is lost with its node connection', () => {
  it('is answered by its first run when the client sends it again: the call counts once', async () => {
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
    const counted = new RedisMeterStore({ redis: reader, prefix: 'lost:' });
    const monthly = async () => (await counted.peek('acc_lost', windows)).monthly;
    for (let i = 1; i <= 3; i++) {
      // Loads the script and connects to the node that holds the account's keys.
      await store.reserve(input(`warm${i}`));
      const before = await monthly();
      const pending = store.reserve(input(`lost${i}`));
      // The reply stays unread in the socket while the script runs; then the connection goes.
      const busy = busyNode(client)!;
      busy.stream.pause();
      await eventually(async () => (await monthly()) === before + 1);
      busy.stream.destroy();
      await expect(pending).resolves.toMatchObject({ ok: true });
      expect(await monthly()).toBe(before + 1);
    }
  }, 60_000);

  it('keeps the reply of a reserve that took something, and writes nothing for a refusal', async () => {
    const store = new RedisMeterStore({ redis: client, prefix: 'lost:' });
    const windows = computeWindows(Date.now(), 'Asia/Ho_Chi_Minh');
    const reserve = (requestId: string, monthly: number) =>
      store.reserve({
        accountId: 'acc_marks',
        requestId,
        cost: 1,
        limits: { ...LIMITS, monthly },
        windows,
        creditsAllowed: false,
      });
    await expect(reserve('taken', 10)).resolves.toMatchObject({ ok: true });
    await expect(reserve('refused', 0)).resolves.toMatchObject({ ok: false, reason: 'quota_exceeded' });
    expect(await reader.exists('lost:{acc_marks}:rq:taken')).toBe(1);
    expect(await reader.exists('lost:{acc_marks}:rq:refused')).toBe(0);
  });
});
