import { Redis } from 'ioredis';

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
}

/** A single-node client tuned to fail fast and keep reconnecting with capped, jittered backoff. */
export function createRedisClient(url: string, opts: RedisClientOptions = {}): Redis {
  const maxBackoff = opts.maxBackoffMs ?? 2_000;
  const offlineQueue = opts.offlineQueue ?? false;
  const client = new Redis(url, {
    enableOfflineQueue: offlineQueue,
    commandTimeout: opts.commandTimeoutMs === 0 ? undefined : (opts.commandTimeoutMs ?? 500),
    connectTimeout: opts.connectTimeoutMs ?? 2_000,
    // Without an offline queue nothing waits for a reconnect; with one, a command waits for one retry.
    maxRetriesPerRequest: offlineQueue ? 1 : 0,
    retryStrategy: (times) =>
      Math.min(maxBackoff, 50 * 2 ** Math.min(times, 8)) + Math.floor(Math.random() * 50),
  });
  client.on('error', opts.onError ?? (() => undefined));
  return client;
}

/** Resolves when the client is ready (now or later); rejects after timeoutMs. */
export function waitForReady(client: Redis, timeoutMs = 5_000): Promise<void> {
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
