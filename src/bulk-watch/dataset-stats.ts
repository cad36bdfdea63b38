import type { RuntimeConfig } from '../config/compile-config';
import type { Clock } from '../util/clock';
import { upstreamUrl } from '../config/upstreams-schema';
import { httpGet } from '../util/http-get';

/**
 * Dataset sizes from each upstream's /{path}/_stats (DESIGN §4), cached and refreshed in the
 * background of the call that finds them stale; an unknown size is reported as undefined.
 */
export class DatasetStats {
  private readonly sizes = new Map<string, { total: number; at: number }>();
  /** Refreshes in flight, so that a caller who must wait for one waits for the same. */
  private readonly loading = new Map<string, Promise<number | undefined>>();

  constructor(
    private readonly config: () => RuntimeConfig,
    private readonly clock: Clock,
    /** The gateway's identity assertion for one upstream, by its name: one that verifies it answers nothing without. */
    private readonly authorization?: (upstream: string) => string | Promise<string>,
  ) {}

  /** The last known size; starts a refresh when it is missing or older than the refresh period. */
  size(path: string): number | undefined {
    const hit = this.sizes.get(path);
    const maxAge = this.config().raw.gateway.bulk_watch.stats_refresh_seconds * 1000;
    if (!hit || this.clock.now() - hit.at > maxAge) void this.refresh(path);
    return hit?.total;
  }

  /**
   * The size, waiting for the upstream when none is known yet (after a start or a reload): a
   * threshold read without it would be min_records alone, and lock an account that is far from a
   * large dataset's share.
   */
  async sizeNow(path: string): Promise<number | undefined> {
    return this.size(path) ?? (await this.refresh(path));
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
      const body = JSON.parse(r.body) as { total?: unknown };
      if (r.ok && typeof body.total === 'number' && Number.isFinite(body.total)) {
        this.sizes.set(path, { total: body.total, at: this.clock.now() });
      }
    } catch {
      // keep the last known size; the next call tries again
    }
    return this.sizes.get(path)?.total;
  }
}
