import { Cluster, Redis, ReplyError } from 'ioredis';
import type { ClusterNode, RedisOptions } from 'ioredis';
import type { RedisSeed } from './redis-address';
import { parseRedisAddresses } from './redis-address';

export interface RedisClientOptions {
  /**
   * A command not answered by then fails (and the failover store falls back); 0: no timeout of
   * the client's own (the gateway's stores keep their deadlines in one queue, deadline-queue.ts).
   */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Ceiling of the reconnect backoff. */
  maxBackoffMs?: number;
  /**
   * Queue commands while disconnected. Off for counters (fail fast, fall back at once); on for a
   * pub/sub subscriber, whose SUBSCRIBE may be issued before the first connect.
   */
  offlineQueue?: boolean;
  /** Connection errors: the gateway logs them; never left unhandled (that would crash the process). */
  onError?: (err: Error) => void;
  /**
   * The server refused the database REDIS_URL names (`redis://host:6379/99` on a Redis of 16). The
   * client is then closed for good: ioredis would carry on in database 0, where replicas configured
   * alike would not meet, so the stores fall back (store_failure) and readiness fails until the
   * address is fixed.
   */
  onDatabaseRefused?: (err: Error) => void;
  /**
   * Connect on the first command (or `connect()`) instead of at once: for a caller that only
   * inspects the client. A client disconnected after a refused connect keeps ioredis' 2 s
   * disconnect timer alive, holding its process open that long.
   */
  lazyConnect?: boolean;
}

/** A single node, or a Redis Cluster: the stores use either alike (keys of one account share a slot). */
export type RedisClient = Redis | Cluster;

/** A single-node client tuned to fail fast and keep reconnecting with capped, jittered backoff. */
export function createRedisClient(url: string, opts: RedisClientOptions = {}): Redis {
  const client = new Redis(url, nodeOptions(opts));
  const onError = opts.onError ?? (() => undefined);
  client.on('error', (err: Error & { command?: { name?: string } }) => {
    // The only SELECT is the one ioredis sends on connecting, for the path's database.
    if (err instanceof ReplyError && err.command?.name === 'select') {
      client.disconnect();
      (opts.onDatabaseRefused ?? onError)(err);
    } else onError(err);
  });
  return client;
}

/**
 * REDIS_URL as DESIGN §5 takes it: one `redis://` (or `rediss://`) URL for a single node, or a
 * Redis Cluster given by its seed nodes, comma-separated (`redis://10.0.0.1:6379,redis://10.0.0.2:6379`),
 * or by one address with the `redis+cluster://` (`rediss+cluster://`) scheme, such as a managed
 * service's configuration endpoint. User name, password and TLS come from the first seed.
 */
export function connectRedis(url: string, opts: RedisClientOptions = {}): RedisClient {
  const seeds = parseRedisAddresses(url);
  const first = seeds[0] as RedisSeed;
  if (seeds.length === 1 && !first.cluster) return createRedisClient(url, opts);
  const nodes: ClusterNode[] = seeds.map(({ host, port }) => ({ host, port }));
  const node = nodeOptions(opts);
  const client = new Cluster(nodes, {
    enableOfflineQueue: node.enableOfflineQueue,
    lazyConnect: node.lazyConnect,
    clusterRetryStrategy: node.retryStrategy,
    slotsRefreshTimeout: node.connectTimeout,
    // Managed TLS clusters announce node names that certificates are issued for: no re-resolving.
    ...(first.tls
      ? { dnsLookup: (address: string, cb: (e: null, a: string) => void) => cb(null, address) }
      : {}),
    redisOptions: {
      ...node,
      ...(first.username ? { username: first.username } : {}),
      ...(first.password ? { password: first.password } : {}),
      ...(first.tls ? { tls: {} } : {}),
    },
  });
  client.on('error', opts.onError ?? (() => undefined));
  // ioredis opens a node's connection on its first command, which would then wait for the connect
  // (and, under load, miss its deadline and send the gateway to its fallback): open them all as
  // soon as the cluster is ready (a node added later connects on first use).
  const connectAll = (): void => {
    for (const n of client.nodes('all')) if (n.status === 'wait') n.connect().catch(() => undefined);
  };
  client.on('ready', connectAll);
  return client;
}

function nodeOptions(opts: RedisClientOptions): RedisOptions {
  const maxBackoff = opts.maxBackoffMs ?? 2_000;
  const offlineQueue = opts.offlineQueue ?? false;
  return {
    enableOfflineQueue: offlineQueue,
    commandTimeout: opts.commandTimeoutMs === 0 ? undefined : (opts.commandTimeoutMs ?? 500),
    connectTimeout: opts.connectTimeoutMs ?? 2_000,
    // Without an offline queue nothing waits for a reconnect; with one, a command waits for one retry.
    maxRetriesPerRequest: offlineQueue ? 1 : 0,
    retryStrategy: (times: number) =>
      Math.min(maxBackoff, 50 * 2 ** Math.min(times, 8)) + Math.floor(Math.random() * 50),
    lazyConnect: opts.lazyConnect ?? false,
  };
}

/** Resolves when the client is ready (now or later); rejects after timeoutMs. */
export function waitForReady(client: RedisClient, timeoutMs = 5_000): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    client.once('ready', onReady);
  });
}
