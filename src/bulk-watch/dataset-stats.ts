import type { RuntimeConfig } from '../config/compile-config';
import type { Clock } from '../util/clock';
import { upstreamUrl } from '../config/upstreams-schema';
import { httpGet } from '../util/http-get';
import { parseJsonObject } from '../util/json-object';
import type { Logger } from '../util/logger';
import type { GatewayMetrics } from '../observability/gateway-metrics';

/** After a failed read of a size, the next one waits this long: not one per watched call. */
export const STATS_RETRY_MS = 30_000;

/**
 * Dataset sizes from each upstream's /{path}/_stats (DESIGN §4), cached and refreshed in the
 * background of the call that finds them stale; an unknown size is reported as undefined. A read
 * that fails is logged with its reason and tried again after STATS_RETRY_MS.
 */
export class DatasetStats {
  private readonly sizes = new Map<string, { total: number; at: number }>();
  /** Refreshes in flight, so that a caller who must wait for one waits for the same. */
  private readonly loading = new Map<string, Promise<number | undefined>>();
  private readonly failedAt = new Map<string, number>();

  constructor(
    private readonly config: () => RuntimeConfig,
    private readonly clock: Clock,
    /** The gateway's identity assertion for one upstream, by its name: one that verifies it answers nothing without. */
    private readonly authorization?: (upstream: string) => string | Promise<string>,
    private readonly logger?: Logger,
    private readonly metrics?: Pick<GatewayMetrics, 'datasetSizeUnknown'>,
  ) {}

  /** The last known size; starts a refresh when it is missing or older than the refresh period. */
  size(path: string): number | undefined {
    const hit = this.sizes.get(path);
    const maxAge = this.config().raw.gateway.bulk_watch.stats_refresh_seconds * 1000;
    if ((!hit || this.clock.now() - hit.at > maxAge) && !this.resting(path)) void this.refresh(path);
    return hit?.total;
  }

  /**
   * The size, waiting for the upstream when none is known yet (after a start or a reload): a
   * threshold read without it would be min_records alone, and lock an account that is far from a
   * large dataset's share. Undefined at once while a failed read rests.
   */
  async sizeNow(path: string): Promise<number | undefined> {
    const known = this.size(path);
    if (known !== undefined) return known;
    return this.loading.get(path) ?? (this.resting(path) ? undefined : await this.refresh(path));
  }

  private resting(path: string): boolean {
    const at = this.failedAt.get(path);
    return at !== undefined && this.clock.now() - at < STATS_RETRY_MS;
  }

  /**
   * Whether the dataset is watched now: a reload during a lookup may have removed it, or its watch,
   * and its series with it, which the lookup's end must not bring back.
   */
  private watched(path: string): boolean {
    return this.config().datasets.get(path)?.bulkWatch === true;
  }

  refresh(path: string): Promise<number | undefined> {
    const running = this.loading.get(path);
    if (running) return running;
    const next = this.load(path).finally(() => this.loading.delete(path));
    this.loading.set(path, next);
    return next;
  }

  private async load(path: string): Promise<number | undefined> {
    const cfg = this.config();
    const ds = cfg.datasets.get(path);
    const up = ds && cfg.upstreams.get(ds.upstream);
    if (!ds || !up) return this.sizes.get(path)?.total;
    let reason: string;
    try {
      const headers: Record<string, string> = this.authorization
        ? { authorization: await this.authorization(ds.upstream) }
        : {};
      const r = await httpGet(
        upstreamUrl(up.url, `/${ds.upstreamPath}/_stats`),
        up.timeout_ms,
        undefined,
        headers,
      );
      const body = parseJsonObject(r.body);
      const total = body?.total;
      if (r.ok && typeof total === 'number' && Number.isSafeInteger(total) && total >= 0) {
        this.sizes.set(path, { total, at: this.clock.now() });
        this.failedAt.delete(path);
        if (this.watched(path)) this.metrics?.datasetSizeUnknown.set({ dataset: path }, 0);
        return total;
      }
      // unknown_endpoint: the upstream does not serve the dataset at all (a datasets.yaml entry
      // for a path it lacks), and every call to it answers 503 too.
      reason = r.ok
        ? 'no whole total >= 0 in its answer'
        : `status ${r.status}${typeof body?.code === 'string' ? ` ${body.code.slice(0, 64)}` : ''}`;
    } catch (err) {
      reason = (err as Error).message;
    }
    this.failedAt.set(path, this.clock.now());
    // A size known before stays in use (and the gauge at 0); none ever known: no lock on this dataset.
    if (!this.sizes.has(path) && this.watched(path))
      this.metrics?.datasetSizeUnknown.set({ dataset: path }, 1);
    this.logger?.warn(
      { dataset: path, upstream: ds.upstream, reason, last_known: this.sizes.get(path)?.total ?? null },
      "dataset size unknown: its upstream's /_stats did not give it",
    );
    return this.sizes.get(path)?.total;
  }
}
