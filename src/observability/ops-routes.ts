import type express from 'express';
import type { Registry } from 'prom-client';
import type { IdentitySigner } from '../gateway/identity-signer';

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

/**
 * Operational routes on the admin port: /healthz (process alive), /readyz (config, stores and
 * upstreams reachable), /metrics (Prometheus text) and the JWKS upstreams verify assertions with.
 */
export function mountOpsRoutes(
  app: express.Express,
  deps: {
    registry: Registry;
    identity: IdentitySigner;
    readiness: ReadinessCheck[];
    /** The text /metrics serves, when not this registry's alone (a cluster worker: all workers'). */
    metricsText?: () => Promise<string>;
  },
): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      deps.readiness.map(async (c) => [c.name, await c.check().catch(() => false)] as const),
    );
    const ready = results.every(([, ok]) => ok);
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
  });
  app.get('/metrics', async (_req, res) => {
    let text: string;
    try {
      text = deps.metricsText ? await deps.metricsText() : await deps.registry.metrics();
    } catch (err) {
      res
        .status(503)
        .type('text/plain')
        .end(`metrics unavailable: ${(err as Error).message}\n`);
      return;
    }
    res.setHeader('Content-Type', deps.registry.contentType);
    res.end(text);
  });
  app.get('/.well-known/jwks.json', (_req, res) => {
    res.json(deps.identity.jwks());
  });
}
