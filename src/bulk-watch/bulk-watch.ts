import type { AccountRepo } from '../accounts/account-repo';
import type { RuntimeConfig } from '../config/compile-config';
import type { MeterStore } from '../metering/meter-store';
import { computeWindows, dayKeysBack } from '../metering/windows';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import type { InvalidationBus } from '../stores/invalidation-bus';
import type { Clock } from '../util/clock';
import type { Logger } from '../util/logger';
import type { DatasetStats } from './dataset-stats';

export interface BulkWatchDeps {
  config: () => RuntimeConfig;
  meter: MeterStore;
  accounts: AccountRepo;
  bus: InvalidationBus;
  stats: DatasetStats;
  clock: Clock;
  logger: Logger;
  metrics: GatewayMetrics;
}

export interface WatchedShare {
  dataset: string;
  distinct_ids: number;
  dataset_size: number | null;
  share: number | null;
  /** Null while the dataset's size is unknown: no lock is decided on it then. */
  threshold: number | null;
}

/**
 * Standard errors of the distinct count (MeterStore.distinctError) a count must be past the
 * threshold to lock: an account exactly at the threshold is locked by the estimate's error alone
 * about once in 700 (on Redis: a lock from 2.43% past it, 513 records for a threshold of 500).
 */
const LOCK_MARGIN_ERRORS = 3;

/**
 * Bulk-extraction watch: distinct record ids each account received per dataset, over the last
 * window_days days (HyperLogLog day keys, union by PFCOUNT). Past max(min_records, max_share × size)
 * the account is locked for lock_hours, durably in the database, and every replica is told.
 */
export class BulkWatch {
  /** The last day keys made, kept while the day and the length stay the same. */
  private lastKeys: readonly string[] = [];

  constructor(private readonly deps: BulkWatchDeps) {}

  /**
   * The window's day keys in the service time zone, today first. Every watched call reads them:
   * they are made once a day (and when window_days changes), not by a zone lookup per day per call,
   * which cost a watched call more than the rest of the gateway's work.
   */
  dayKeys(nowMs: number, days = this.deps.config().raw.gateway.bulk_watch.window_days): readonly string[] {
    const today = computeWindows(nowMs, this.deps.config().raw.plans.timezone).dayKey;
    if (this.lastKeys[0] !== today || this.lastKeys.length !== days) this.lastKeys = dayKeysBack(today, days);
    return this.lastKeys;
  }

  /**
   * max(min_records, max_share × size); null while the size is unknown (the upstream's /_stats
   * fails: DatasetStats logs why). min_records alone would lock paying accounts a few pages into a
   * large dataset for the upstream's fault, so no account is locked on a dataset of unknown size.
   */
  async threshold(dataset: string): Promise<{ threshold: number | null; size: number | undefined }> {
    const bw = this.deps.config().raw.gateway.bulk_watch;
    const size = await this.deps.stats.sizeNow(dataset);
    return {
      threshold: size === undefined ? null : Math.max(bw.min_records, Math.floor(bw.max_share * size)),
      size,
    };
  }

  /**
   * Called after the response is sent: never on the request's path, never throws. The promise,
   * which never rejects, tells a caller that wants to know when the recording (and any lock) is done.
   */
  record(
    accountId: string,
    dataset: string,
    ids: string[],
    planName: string,
    lockEnded = false,
  ): Promise<void> {
    const plan = this.deps.config().plans.get(planName);
    if (!plan?.bulk_watch) return Promise.resolve();
    return this.recordNow(accountId, dataset, ids, lockEnded).catch((err: unknown) =>
      this.deps.logger.warn(
        { err: (err as Error).message, account_id: accountId, dataset },
        'bulk watch: recording failed',
      ),
    );
  }

  /**
   * `lockEnded`: the account was locked before (its restricted_until is past). Where that lock was
   * set over this dataset's window, the count is past the threshold already, so only a record new
   * to the window may lock it again, and the store is asked exactly whether the call's ids grew
   * it: rereading what was taken is no harvest. Any other window past the threshold locks whatever
   * its call returned: a crossing whose lock failed (the database, a size not known yet, a lower
   * threshold since) is made up for, on an account never locked and on one locked over another
   * dataset alike.
   */
  async recordNow(accountId: string, dataset: string, ids: string[], lockEnded = false): Promise<void> {
    // Returning no record takes nothing: it neither crosses a threshold nor makes up for one.
    if (ids.length === 0) return;
    const now = this.deps.clock.now();
    const days = this.dayKeys(now);
    const { distinct, grew, lockedOn } = await this.deps.meter.recordAndCount(
      accountId,
      dataset,
      days[0]!,
      ids,
      days,
      lockEnded,
    );
    if (lockedOn && !grew) return;
    const { threshold, size } = await this.threshold(dataset);
    // On Redis the count is an estimate: a lock waits until it is past the threshold by more than
    // its error could put it there, so no account is locked before it (embedded: exact, no margin).
    if (threshold === null) return;
    if (distinct <= threshold * (1 + LOCK_MARGIN_ERRORS * this.deps.meter.distinctError)) return;
    const until = now + this.deps.config().raw.gateway.bulk_watch.lock_hours * 3_600_000;
    const locked = await this.deps.accounts.lockUntil(accountId, until, now);
    // Not locked by this call: locked already (another replica, another dataset), this window too.
    if (!locked) return this.markLocked(accountId, dataset);
    // The lock holds in the database now: its record and its mark never wait on the news of it.
    this.deps.metrics.bulkLocks.inc({ dataset });
    this.deps.logger.warn(
      {
        event: 'bulk_extraction_lock',
        account_id: accountId,
        dataset,
        distinct_ids: distinct,
        dataset_size: size ?? null,
        share: size ? distinct / size : null,
        threshold,
        restricted_until: new Date(until).toISOString(),
      },
      'account locked for bulk extraction',
    );
    await Promise.all([
      this.markLocked(accountId, dataset),
      this.deps.bus.publish({ type: 'account', accountId }),
    ]);
  }

  /** Never rejects: a mark that cannot be written only lets a reread lock again once the lock ends. */
  private async markLocked(accountId: string, dataset: string): Promise<void> {
    await this.deps.meter
      .markLocked(accountId, dataset)
      .catch((err: unknown) =>
        this.deps.logger.warn(
          { err: (err as Error).message, account_id: accountId, dataset },
          'bulk watch: the lock mark could not be written',
        ),
      );
  }

  /**
   * An admin lifted the account's lock: what led to it is forgotten, or the next new record would
   * lock the account again at once. Day keys one past the window too, as long as the store keeps them.
   */
  async forget(accountId: string): Promise<void> {
    const days = this.dayKeys(
      this.deps.clock.now(),
      this.deps.config().raw.gateway.bulk_watch.window_days + 1,
    );
    const datasets = [...this.deps.config().datasets.values()].filter((d) => d.bulkWatch).map((d) => d.path);
    await this.deps.meter.forgetIds(accountId, datasets, days);
  }

  /** Each watched dataset's share for one account (admin API). */
  async shares(accountId: string): Promise<WatchedShare[]> {
    const days = this.dayKeys(this.deps.clock.now());
    const out: WatchedShare[] = [];
    for (const ds of this.deps.config().datasets.values()) {
      if (!ds.bulkWatch) continue;
      const distinct = await this.deps.meter.countDistinct(accountId, ds.path, days);
      if (distinct === 0) continue;
      const { threshold, size } = await this.threshold(ds.path);
      out.push({
        dataset: ds.path,
        distinct_ids: distinct,
        dataset_size: size ?? null,
        share: size ? distinct / size : null,
        threshold,
      });
    }
    return out;
  }
}
