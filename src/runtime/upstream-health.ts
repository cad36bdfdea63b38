import type { RuntimeConfig } from '../config/compile-config';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import { upstreamUrl } from '../config/upstreams-schema';
import { httpGet } from '../util/http-get';
import type { Logger } from '../util/logger';

/**
 * Polls every upstream's /healthz (down: no answer, or a 5xx); readiness and lookup_upstream_up
 * read the last answers, so a probe never waits on a slow upstream. A change of state is logged
 * once, naming the upstream (and why it is down): /readyz only says whether all are up.
 */
export class UpstreamHealth {
  private readonly up = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private config: () => RuntimeConfig,
    private readonly metrics: GatewayMetrics,
    private readonly logger?: Logger,
    private readonly intervalMs = 5000,
  ) {}

  async pollOnce(): Promise<void> {
    const ups = [...this.config().upstreams.entries()];
    await Promise.all(
      ups.map(async ([name, u]) => {
        let ok = false;
        let why: string;
        try {
          const r = await httpGet(upstreamUrl(u.url, '/healthz'), Math.min(2000, u.timeout_ms));
          // DESIGN §4 asks no /healthz of a dataset service: one answering 404 (or 401, verifying
          // every request's assertion) is reachable and serving. A 5xx is what says "not ready".
          ok = r.status < 500;
          why = `/healthz answered ${r.status}`;
        } catch (err) {
          why = (err as Error).message;
        }
        const was = this.up.get(name);
        if (!ok && was !== false) this.logger?.warn({ upstream: name, reason: why }, 'upstream down');
        if (ok && was === false) this.logger?.info({ upstream: name }, 'upstream up again');
        this.up.set(name, ok);
        this.metrics.upstreamUp.set({ upstream: name }, ok ? 1 : 0);
      }),
    );
    // An upstream a reload removed (often because it was down) leaves no series behind: a 0 kept
    // for it would hold LookupUpstreamDown firing until every replica restarted.
    const configured = this.config().upstreams;
    for (const name of [...this.up.keys()])
      if (!configured.has(name)) {
        this.up.delete(name);
        this.metrics.upstreamUp.remove({ upstream: name });
      }
  }

  allUp(): boolean {
    return [...this.config().upstreams.keys()].every((n) => this.up.get(n) === true);
  }

  start(): void {
    const tick = (): void => {
      void this.pollOnce().finally(() => {
        this.timer = setTimeout(tick, this.intervalMs);
        this.timer.unref();
      });
    };
    tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
