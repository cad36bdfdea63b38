import type { GatewayFile } from '../config/gateway-schema';
import { FailoverMeterStore } from '../metering/failover-meter-store';
import { MemoryMeterStore } from '../metering/memory-meter-store';
import type { MeterStore } from '../metering/meter-store';
import { RedisMeterStore } from '../metering/redis-meter-store';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import { InProcessInvalidationBus } from '../stores/invalidation-bus';
import type { InvalidationBus } from '../stores/invalidation-bus';
import { RedisInvalidationBus } from '../stores/redis-invalidation-bus';
import { connectRedis } from '../stores/redis-client';
import type { Clock } from '../util/clock';
import { createDeadlineQueue, withDeadline } from '../util/deadline-queue';
import { keepCounters } from './counter-snapshot';
import { refundReports } from './refund-reports';
import type { Logger } from '../util/logger';
import { errorText } from '../util/error-text';

export interface CounterStores {
  meter: MeterStore;
  bus: InvalidationBus;
  /** Is the shared store answering (readiness). */
  ping(): Promise<boolean>;
  /** Calls back once the shared store is first connected (at once if it is, or in-process). */
  whenReachable(cb: () => void): void;
  close(): Promise<void>;
}

/** Redis (shared by replicas) when REDIS_URL is set, else in-process stores (single replica). */
export function createCounterStores(opts: {
  redisUrl?: string;
  gateway: GatewayFile;
  clock: Clock;
  logger: Logger;
  metrics: GatewayMetrics;
  /** In-process counters only: kept in this file across restarts (in DATA_DIR). */
  countersFile?: string;
  /**
   * The bulk watch's window_days now, read at each write: a reload changes it (`gateway` holds the
   * start-only settings, read once).
   */
  windowDays: () => number;
}): CounterStores {
  const { windowDays } = opts;
  // A Redis command not answered by then fails; the meter store then falls back (store_failure).
  const commandTimeoutMs = opts.gateway.store_timeout_ms;
  if (!opts.redisUrl) {
    const meter = new MemoryMeterStore({ clock: opts.clock, distinctWindowDays: windowDays });
    const kept = opts.countersFile ? keepCounters(meter, opts.countersFile, opts.logger) : undefined;
    const bus = new InProcessInvalidationBus();
    return {
      meter,
      bus,
      ping: () => Promise.resolve(true),
      whenReachable: (cb) => cb(),
      close: async () => {
        kept?.close();
        await meter.close();
        await bus.close();
      },
    };
  }
  // Reconnect attempts repeat the same error, for the counters' connection and the bus's own:
  // one line of each every 10 s is enough.
  const everyTenSeconds = (msg: string): ((err: unknown) => void) => {
    let last = Number.NEGATIVE_INFINITY;
    return (err) => {
      if (opts.clock.now() - last <= 10_000) return;
      last = opts.clock.now();
      opts.logger.warn({ err: errorText(err) }, msg);
    };
  };
  // No timer per command: every user of the connection below puts its commands under a deadline
  // of a queue (deadline-queue.ts), the meter store its own.
  const redis = connectRedis(opts.redisUrl, {
    commandTimeoutMs: 0,
    onError: everyTenSeconds('redis connection error'),
    onDatabaseRefused: (err) =>
      opts.logger.error(
        { err: err.message },
        'REDIS_URL names a database this Redis refuses: not connecting (counting per store_failure, not ready) until it is fixed',
      ),
  });
  const meter = new FailoverMeterStore({
    primary: new RedisMeterStore({
      redis,
      prefix: 'lk:',
      distinctWindowDays: windowDays,
      commandTimeoutMs,
    }),
    fallback: new MemoryMeterStore({ clock: opts.clock, distinctWindowDays: windowDays }),
    redis,
    policy: opts.gateway.store_failure,
    clock: opts.clock,
    onFallbackChange: (active, cause) => {
      opts.metrics.storeFallbackActive.set(active ? 1 : 0);
      if (active)
        opts.logger.error(
          { policy: opts.gateway.store_failure, err: (cause as Error | undefined)?.message },
          opts.gateway.store_failure === 'open'
            ? 'redis unreachable: counting on per-replica fallback'
            : 'redis unreachable: refusing counted calls (store_failure closed)',
        );
      else opts.logger.info('redis reachable again: shared counting resumed');
    },
    ...refundReports(opts.logger, opts.metrics, {
      kept: 'refund kept until redis answers',
      lost: 'refund lost: the call stays counted',
    }),
  });
  const deadlines = createDeadlineQueue(commandTimeoutMs);
  const bus = new RedisInvalidationBus({
    publisher: redis,
    deadlines,
    republishForMs: opts.gateway.key_cache.ttl_seconds * 1000,
    onError: everyTenSeconds('invalidation bus error'),
    // Each on its own line: the other replicas keep what it would have dropped until their TTL.
    onUnpublished: (msg, cause) =>
      opts.logger.warn(
        { change: msg, err: errorText(cause) },
        'invalidation given up unpublished; other replicas keep their cached copy until its TTL',
      ),
  });
  return {
    meter,
    bus,
    ping: async () =>
      (await withDeadline(deadlines, redis.ping(), 'ping timed out').catch(() => '')) === 'PONG',
    whenReachable: (cb) => {
      if (redis.status === 'ready') cb();
      else redis.once('ready', cb);
    },
    close: async () => {
      await bus.close();
      await meter.close();
      redis.disconnect();
    },
  };
}
