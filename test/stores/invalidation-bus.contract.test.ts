import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { InvalidationBus, InvalidationMessage } from '../../src/stores/invalidation-bus';
import { InProcessInvalidationBus } from '../../src/stores/invalidation-bus';
import { connectRedis, waitForReady } from '../../src/stores/redis-client';
import type { RedisClient } from '../../src/stores/redis-client';
import type { Cluster, Redis } from 'ioredis';
import { RedisInvalidationBus } from '../../src/stores/redis-invalidation-bus';
import { PrivateRedis, eventually } from '../support/private-redis';
import { TEST_REDIS_URL } from '../support/databases';
import { startRedisCluster } from '../support/redis-cluster';
import type { TestRedisCluster } from '../support/redis-cluster';

/** Two replicas' buses, and how to tear them down. */
interface Pair {
  a: InvalidationBus;
  b: InvalidationBus;
  errors: unknown[];
  close(): Promise<void>;
}

async function redisPair(url: string): Promise<Pair & { clients: RedisClient[]; channel: string }> {
  const channel = `t${randomBytes(4).toString('hex')}:invalidate`;
  const errors: unknown[] = [];
  const clients = [connectRedis(url), connectRedis(url)];
  // A cluster client is ready once it has met every node: on a machine busy with the rest of the
  // suite (parallel workers, processes started by e2e tests) that took over the default 5 s once.
  await Promise.all(clients.map((c) => waitForReady(c, 20_000)));
  const [a, b] = clients.map(
    (publisher) => new RedisInvalidationBus({ publisher, channel, onError: (e) => errors.push(e) }),
  );
  await Promise.all([a!.ready(), b!.ready()]);
  return {
    a: a!,
    b: b!,
    errors,
    clients,
    channel,
    async close() {
      await Promise.all([a!.close(), b!.close()]);
      // A client still reconnecting (its server killed) refuses QUIT and would go on reconnecting,
      // keeping the test's worker alive: disconnect it instead.
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

function inProcessPair(): Promise<Pair> {
  const hub = new EventEmitter();
  const errors: unknown[] = [];
  const a = new InProcessInvalidationBus(hub, (e) => errors.push(e));
  const b = new InProcessInvalidationBus(hub, (e) => errors.push(e));
  return Promise.resolve({
    a,
    b,
    errors,
    close: async () => void (await Promise.all([a.close(), b.close()])),
  });
}

/** The messages some instance published, without the resyncs a bus emits on its own. */
const published = (c: { got: InvalidationMessage[] }): InvalidationMessage[] =>
  c.got.filter((m) => m.type !== 'resync');

function collect(bus: InvalidationBus): { got: InvalidationMessage[]; off: () => void } {
  const got: InvalidationMessage[] = [];
  return { got, off: bus.subscribe((m) => got.push(m)) };
}

// REDIS_URL may name a Redis Cluster (DESIGN §5): the same contract on three primaries.
let cluster: TestRedisCluster;
// Three redis-server processes and a cluster formed: longer than the 30 s default on a busy machine.
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 90_000);
afterAll(() => cluster.close());

function clusterPair(): Promise<Pair & { clients: RedisClient[]; channel: string }> {
  return redisPair(cluster.url);
}

describe.each<[string, () => Promise<Pair>]>([
  ['in-process', inProcessPair],
  ['redis', () => redisPair(TEST_REDIS_URL)],
  ['redis cluster', clusterPair],
])('InvalidationBus contract: %s', (_name, makePair) => {
  let pair: Pair;
  beforeEach(async () => {
    pair = await makePair();
  });
  afterEach(() => pair.close());

  it('delivers a message published on one instance to another within 1 s (and to its own)', async () => {
    const onB = collect(pair.b);
    const onA = collect(pair.a);
    const started = Date.now();
    await pair.a.publish({ type: 'key', keyHash: 'abc123' });
    await eventually(() => onB.got.length === 1 && onA.got.length === 1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(onB.got).toEqual([{ type: 'key', keyHash: 'abc123' }]);
    expect([pair.a.live(), pair.b.live()]).toEqual([true, true]);
  });

  it('carries every message type in order', async () => {
    const onB = collect(pair.b);
    const msgs: InvalidationMessage[] = [
      { type: 'account', accountId: 'acc_1' },
      { type: 'key', keyHash: 'h' },
      { type: 'config' },
    ];
    for (const m of msgs) await pair.a.publish(m);
    await eventually(() => onB.got.length === 3, 1000);
    expect(onB.got).toEqual(msgs);
  });

  it("keeps one instance's messages in the order it published them", async () => {
    const onB = collect(pair.b);
    const msgs: InvalidationMessage[] = Array.from({ length: 40 }, (_, i) => ({
      type: 'account',
      accountId: `acc_${i}`,
    }));
    for (const m of msgs) await pair.a.publish(m);
    await eventually(() => onB.got.length === 40, 2000);
    expect(onB.got).toEqual(msgs);
  });

  it('stops delivering after unsubscribe, and isolates a throwing listener', async () => {
    const gone = collect(pair.b);
    gone.off();
    pair.b.subscribe(() => {
      throw new Error('listener bug');
    });
    const after = collect(pair.b);
    await pair.a.publish({ type: 'config' });
    await eventually(() => after.got.length === 1, 1000);
    expect(gone.got).toEqual([]);
    expect(pair.errors).toHaveLength(1);
  });
});

describe('RedisInvalidationBus specifics', () => {
  it('ignores and reports a malformed payload', async () => {
    const pair = await redisPair(TEST_REDIS_URL);
    const onB = collect(pair.b);
    const { channel } = pair;
    await pair.clients[0]!.publish(channel, '{"type":"account"}');
    await pair.clients[0]!.publish(channel, 'not json');
    await pair.a.publish({ type: 'config' });
    await eventually(() => onB.got.length === 1, 1000);
    expect(onB.got).toEqual([{ type: 'config' }]);
    expect(pair.errors).toHaveLength(4);
    await pair.close();
  });

  it('sends a message it could not publish again until it goes, so a replica whose own subscription is fine hears it', async () => {
    const pair = await redisPair(TEST_REDIS_URL);
    const publisher = pair.clients[0] as Redis;
    try {
      const onA = collect(pair.a);
      const onB = collect(pair.b);
      publisher.disconnect();
      await expect(pair.a.publish({ type: 'key', keyHash: 'revoked' })).rejects.toThrow();
      // This replica applied it at once; the other has not heard of it yet.
      expect(published(onA)).toEqual([{ type: 'key', keyHash: 'revoked' }]);
      expect(published(onB)).toEqual([]);
      expect((pair.a as RedisInvalidationBus).unpublished()).toBe(1);
      await eventually(() => publisher.status === 'end');
      await publisher.connect();
      await eventually(() => published(onB).length > 0, 10_000);
      expect(published(onB)).toEqual([{ type: 'key', keyHash: 'revoked' }]);
      expect((pair.a as RedisInvalidationBus).unpublished()).toBe(0);
    } finally {
      await pair.close();
    }
  });

  it('reports each message it gives up unpublished when it closes', async () => {
    const publisher = connectRedis(TEST_REDIS_URL);
    await waitForReady(publisher);
    const given: unknown[] = [];
    const bus = new RedisInvalidationBus({
      publisher,
      channel: `t${randomBytes(4).toString('hex')}:invalidate`,
      onUnpublished: (msg) => given.push(msg),
    });
    await bus.ready();
    publisher.disconnect();
    await expect(bus.publish({ type: 'account', accountId: 'acc_gone' })).rejects.toThrow();
    await bus.close();
    expect(given).toEqual([{ type: 'account', accountId: 'acc_gone' }]);
  });

  it('reports a re-subscribe the server refuses, leaves nothing unhandled, and listens once allowed', async () => {
    const server = await PrivateRedis.start();
    const pair = await redisPair(server.url);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const onB = collect(pair.b);
      const admin = pair.clients[0]!;
      // Revoking the channel drops both subscribers (Redis 7) and refuses their SUBSCRIBE on reconnect.
      await admin.call('ACL', 'SETUSER', 'default', 'resetchannels');
      await eventually(() => pair.errors.filter((e) => /NOPERM/.test(String(e))).length >= 2);
      await admin.call('ACL', 'SETUSER', 'default', 'allchannels');
      await eventually(async () => {
        await pair.a.publish({ type: 'key', keyHash: 'allowed_again' });
        return published(onB).length > 0;
      }, 10_000);
      expect(published(onB)[0]).toEqual({ type: 'key', keyHash: 'allowed_again' });
      // The drop and the listening again each told the listeners to drop what they cached.
      expect(onB.got.filter((m) => m.type === 'resync').length).toBeGreaterThanOrEqual(2);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await pair.close().catch(() => undefined);
      await server.kill();
    }
  });

  it('tells its listeners to drop what they cached when its connection drops and again when it listens anew, and says whether it is live', async () => {
    const server = await PrivateRedis.start();
    const pair = await redisPair(server.url);
    try {
      const onB = collect(pair.b);
      expect(pair.b.live()).toBe(true);
      await server.kill();
      await eventually(() => Promise.resolve(!pair.b.live()));
      expect(onB.got).toEqual([{ type: 'resync' }]);
      await server.restart();
      await eventually(() => Promise.resolve(pair.b.live()));
      expect(onB.got).toEqual([{ type: 'resync' }, { type: 'resync' }]);
    } finally {
      await pair.close().catch(() => undefined);
      await server.kill();
    }
    expect(pair.b.live()).toBe(false);
  });

  it('on a cluster, tells its listeners to drop what they cached when its subscription is cut, and hears messages again', async () => {
    const pair = await clusterPair();
    try {
      const onB = collect(pair.b);
      const cluster = pair.clients[0]! as Cluster;
      const killed = await Promise.all(
        cluster.nodes('master').map((n) => n.call('CLIENT', 'KILL', 'TYPE', 'pubsub') as Promise<number>),
      );
      expect(killed.reduce((a, b) => a + b, 0)).toBe(2);
      await eventually(() => onB.got.some((m) => m.type === 'resync'), 1000);
      await eventually(async () => {
        await pair.a.publish({ type: 'key', keyHash: 'after_the_cut' });
        return published(onB).length > 0;
      }, 10_000);
      expect(pair.b.live()).toBe(true);
    } finally {
      await pair.close();
    }
  });

  it('on a cluster, subscribes through another node when its node stays unreachable', async () => {
    const pair = await clusterPair();
    const cluster = pair.clients[0]! as Cluster;
    const listeners = async (n: Redis): Promise<number> =>
      String(await n.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
        .split('\n')
        .filter((l) => l.trim() !== '').length;
    const nodes = cluster.nodes('master');
    const counts = await Promise.all(nodes.map(listeners));
    // Each bus starts on a node at random: both buses' nodes become unreachable.
    const held = nodes.filter((_, i) => counts[i]! > 0);
    expect(held.length).toBeLessThan(3);
    try {
      const onB = collect(pair.b);
      // The nodes take no new connection, then drop the subscribers they have.
      for (const n of held) await n.call('CONFIG', 'SET', 'maxclients', '1');
      for (const n of held) await n.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      await eventually(async () => {
        await pair.a.publish({ type: 'account', accountId: 'acc_elsewhere' });
        return published(onB).length > 0;
      }, 10_000);
      expect(onB.got[0]).toEqual({ type: 'resync' });
      expect((await Promise.all(held.map(listeners))).every((c) => c === 0)).toBe(true);
      expect(pair.b.live()).toBe(true);
    } finally {
      for (const n of held) await n.call('CONFIG', 'SET', 'maxclients', '10000');
      await pair.close();
    }
  });

  it('on a cluster, leaves a node the cluster client drops from its topology, though its connection stays up', async () => {
    const channel = `t${randomBytes(4).toString('hex')}:invalidate`;
    const publisher = connectRedis(cluster.url) as Cluster;
    await waitForReady(publisher, 20_000);
    const bus = new RedisInvalidationBus({ publisher, channel });
    try {
      await bus.ready();
      const on = collect(bus);
      const subscribedAt = async (): Promise<Redis | undefined> => {
        for (const n of publisher.nodes('master'))
          if (String(await n.call('CLIENT', 'LIST', 'TYPE', 'pubsub')).trim() !== '') return n;
        return undefined;
      };
      const first = (await subscribedAt())!;
      publisher.emit('-node', first);
      await eventually(() => on.got.some((m) => m.type === 'resync'), 1000);
      await eventually(async () => {
        const now = await subscribedAt();
        return now !== undefined && now !== first && bus.live();
      }, 10_000);
    } finally {
      await bus.close();
      await publisher.quit();
    }
  });

  it('resubscribes after the server restarts', async () => {
    const server = await PrivateRedis.start();
    const pair = await redisPair(server.url);
    try {
      const onB = collect(pair.b);
      await server.kill();
      await server.restart();
      await Promise.all(pair.clients.map((c) => waitForReady(c)));
      // The subscriber reconnects on its own schedule; publish until it is listening again.
      await eventually(async () => {
        await pair.a.publish({ type: 'account', accountId: 'acc_back' });
        return published(onB).length > 0;
      });
      expect(published(onB)[0]).toEqual({
        type: 'account',
        accountId: 'acc_back',
      });
    } finally {
      await pair.close().catch(() => undefined);
      await server.kill();
    }
  });
});
