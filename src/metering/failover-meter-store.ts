import type { Clock } from '../util/clock';
import { systemClock } from '../util/clock';
import type { RedisClient } from '../stores/redis-client';
import type { MeterStore, RefundInput, ReserveInput, ReserveResult, Usage } from './meter-store';
import { REFUND_MARKER_TTL_S, StoreUnavailableError } from './meter-store';
import type { Windows } from './windows';
import { createRetryKeeper } from '../util/retry-keeper';
import type { RetryKeeper } from '../util/retry-keeper';

export type StoreFailurePolicy = 'open' | 'closed';

export interface FailoverMeterStoreOptions {
  /** The shared store (RedisMeterStore). */
  primary: MeterStore;
  /** Per-replica store used while the primary is unreachable (MemoryMeterStore). */
  fallback: MeterStore;
  /** The primary's client: its 'ready' event says Redis is back. */
  redis: RedisClient;
  /** gateway.yaml store_failure. */
  policy: StoreFailurePolicy;
  /**
   * Called on every switch (true: Redis unreachable, the policy in force: counting locally, or
   * refusing with 'closed'); the gateway turns it into a metric and a log line.
   */
  onFallbackChange?: (active: boolean, cause?: unknown) => void;
  clock?: Clock;
  /**
   * While in fallback with the connection up (timeouts without a disconnect give no 'ready'),
   * a write of `probeKey` at most this often decides whether to switch back: not a PING, which a
   * Redis out of memory or refusing writes (OOM, MISCONF, READONLY) still answers.
   */
  probeIntervalMs?: number;
  /** The key that probe writes (with a 10 s TTL); default `lk:failover-probe`. */
  probeKey?: string;
  /** A refund of a call counted in Redis that Redis could not take: kept, and replayed there. */
  onRefundKept?: (input: RefundInput, cause: unknown) => void;
  /** A kept refund given up (too many kept, or Redis refused it): the call stays counted. */
  onRefundLost?: (input: RefundInput, cause: unknown) => void;
}

/**
 * Redis first; on a connection or timeout error either local limits ('open') or
 * StoreUnavailableError ('closed'). Errors that are not about reaching Redis are rethrown as is.
 * A refund of a call counted on the fallback goes to the fallback, whichever side is active at
 * settle time: given to Redis, it took from Redis's count a call Redis never held. A call counted
 * in Redis is given back only there: when Redis cannot take the refund, it is kept and
 * replayed once Redis answers (the refund is idempotent per request, so a timed-out refund that
 * Redis ran after all is not given twice).
 */
export class FailoverMeterStore implements MeterStore {
  private active = false;
  private lastProbe = 0;
  private probing = false;
  private readonly clock: Clock;
  private readonly probeIntervalMs: number;
  private readonly onReady = (): void => {
    this.setActive(false);
    void this.kept.retry();
  };
  /** Refunds Redis could not take, replayed there (a refund is idempotent per request). */
  private readonly kept: RetryKeeper<RefundInput>;

  constructor(private readonly opts: FailoverMeterStoreOptions) {
    this.clock = opts.clock ?? systemClock;
    this.probeIntervalMs = opts.probeIntervalMs ?? 1_000;
    this.kept = createRetryKeeper({
      key: (r) => r.requestId,
      run: (r) => opts.primary.refund(r),
      transient: isUnavailableError,
      onKept: opts.onRefundKept,
      onLost: opts.onRefundLost,
      // Past the refund's idempotence marker (REFUND_MARKER_TTL_S), a replay could give twice.
      maxAgeMs: (REFUND_MARKER_TTL_S - 60) * 1000,
      now: () => this.clock.now(),
    });
    opts.redis.on('ready', this.onReady);
  }

  /** The larger of the two sides': which one counts can change between two calls. */
  get distinctError(): number {
    return Math.max(this.opts.primary.distinctError, this.opts.fallback.distinctError);
  }

  fallbackActive(): boolean {
    return this.active;
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    // Every counted request comes here: the operation closure is made only once the primary failed.
    if (this.active) return this.run((s) => s.reserve(input));
    return this.opts.primary
      .reserve(input)
      .then(undefined, (err: unknown) => this.recover(err, (s) => s.reserve(input)));
  }

  refund(input: RefundInput): Promise<{ applied: boolean }> {
    // Counted on the fallback: given back there, Redis back or not. Redis never held it.
    if (!input.shared) return this.opts.fallback.refund(input);
    return this.opts.primary.refund(input).catch((err: unknown) => {
      if (!isUnavailableError(err)) throw err;
      this.kept.keep(input, err);
      return { applied: false };
    });
  }

  /** Refunds kept for Redis, not yet replayed. */
  keptRefunds(): number {
    return this.kept.size();
  }

  peek(accountId: string, windows: Windows): Promise<Usage> {
    return this.run((s) => s.peek(accountId, windows));
  }

  recordIds(accountId: string, dataset: string, dayKey: string, ids: readonly string[]): Promise<void> {
    return this.run((s) => s.recordIds(accountId, dataset, dayKey, ids));
  }

  countDistinct(accountId: string, dataset: string, dayKeys: readonly string[]): Promise<number> {
    return this.run((s) => s.countDistinct(accountId, dataset, dayKeys));
  }

  markLocked(accountId: string, dataset: string): Promise<void> {
    return this.run((s) => s.markLocked(accountId, dataset));
  }

  forgetIds(accountId: string, datasets: readonly string[], dayKeys: readonly string[]): Promise<void> {
    return this.run((s) => s.forgetIds(accountId, datasets, dayKeys));
  }

  recordAndCount(
    accountId: string,
    dataset: string,
    dayKey: string,
    ids: readonly string[],
    dayKeys: readonly string[],
    exact?: boolean,
  ) {
    return this.run((s) => s.recordAndCount(accountId, dataset, dayKey, ids, dayKeys, exact));
  }

  /**
   * Stops watching the client, after one last try of the kept refunds (those left are reported
   * lost); the stores and the client belong to the caller.
   */
  async close(): Promise<void> {
    this.opts.redis.off('ready', this.onReady);
    await this.kept.close();
  }

  private run<T>(op: (store: MeterStore) => Promise<T>): Promise<T> {
    if (this.active) {
      this.probe();
      if (this.opts.policy === 'open') return op(this.opts.fallback);
    }
    return op(this.opts.primary).catch((err: unknown) => this.recover(err, op));
  }

  /**
   * The primary failed: rethrow, or put the policy in force: refuse ('closed') or switch to the
   * fallback and run there ('open'). Either way it is reported (onFallbackChange): with 'closed' the
   * replicas turn unready, their traffic, and so their 5xx rate, goes to nothing, and this is the
   * one signal left of the outage.
   */
  private recover<T>(err: unknown, op: (store: MeterStore) => Promise<T>): Promise<T> {
    if (!isUnavailableError(err)) throw err;
    this.setActive(true, err);
    if (this.opts.policy === 'closed') throw new StoreUnavailableError(err);
    return op(this.opts.fallback);
  }

  private setActive(active: boolean, cause?: unknown): void {
    if (this.active === active) return;
    this.active = active;
    this.opts.onFallbackChange?.(active, cause);
  }

  /** Fire and forget; at most one in flight, and only when the connection claims to be up. */
  private probe(): void {
    const now = this.clock.now();
    if (this.probing || this.opts.redis.status !== 'ready' || now - this.lastProbe < this.probeIntervalMs)
      return;
    this.lastProbe = now;
    this.probing = true;
    this.opts.redis
      .set(this.opts.probeKey ?? 'lk:failover-probe', '1', 'PX', 10_000)
      .then(
        () => this.setActive(false),
        () => undefined,
      )
      .finally(() => {
        this.probing = false;
      });
  }
}

// Server replies that mean "cannot serve now" rather than "your command is wrong": among them a
// server out of memory under noeviction (OOM) or refusing writes after a failed save (MISCONF).
// Redis 6 wraps a script's in "ERR Error running script (...): ... -OOM ...".
const UNAVAILABLE_CODES = 'LOADING|READONLY|CLUSTERDOWN|MASTERDOWN|TRYAGAIN|BUSY|NOREPLICAS|OOM|MISCONF';
const UNAVAILABLE_REPLY = new RegExp(
  `^(${UNAVAILABLE_CODES})\\b|^ERR Error running script\\b.*-(${UNAVAILABLE_CODES})\\b`,
);

/**
 * Is this error about reaching Redis (connection closed, not writeable while offline, command
 * timeout, refused, cluster not ready)? Server error replies are bugs, except the few above.
 */
export function isUnavailableError(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (!(err instanceof Error)) return false;
  if (err.name === 'ReplyError') return UNAVAILABLE_REPLY.test(err.message);
  return true;
}
