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
  private readonly loading = new Set<string>();

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

  async refresh(path: string): Promise<number | undefined> {
    const cfg = this.config();
    const ds = cfg.datasets.get(path);
    const up = ds && cfg.upstreams.get(ds.upstream);
    if (!ds || !up || this.loading.has(path)) return this.sizes.get(path)?.total;
    this.loading.add(path);
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
    } finally {
      this.loading.delete(path);
    }
    return this.sizes.get(path)?.total;
  }
}
