import type { RuntimeConfig } from '../config/compile-config';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import { upstreamUrl } from '../config/upstreams-schema';
import { httpGet } from '../util/http-get';

/**
 * Polls every upstream's /healthz; readiness and lookup_upstream_up read the last answers, so a
 * probe never waits on a slow upstream.
 */
export class UpstreamHealth {
  private readonly up = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private config: () => RuntimeConfig,
    private readonly metrics: GatewayMetrics,
    private readonly intervalMs = 5000,
  ) {}

  async pollOnce(): Promise<void> {
    const ups = [...this.config().upstreams.entries()];
    await Promise.all(
      ups.map(async ([name, u]) => {
        let ok = false;
        try {
          ok = (await httpGet(upstreamUrl(u.url, '/healthz'), Math.min(2000, u.timeout_ms))).ok;
        } catch {
          ok = false;
        }
        this.up.set(name, ok);
        this.metrics.upstreamUp.set({ upstream: name }, ok ? 1 : 0);
      }),
    );
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
