import type express from 'express';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { DatasetSpec } from './dataset-spec';

/**
 * Each upstream app's own Prometheus registry on GET /metrics: process metrics and
 * lookup_upstream_http_requests_total{dataset,status}, so dataset teams see their service's traffic.
 */
export function mountUpstreamMetrics(app: express.Express, datasets: readonly DatasetSpec[]): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'lookup_upstream_http_requests_total',
    help: 'Upstream service responses by dataset and HTTP status.',
    labelNames: ['dataset', 'status'],
    registers: [registry],
  });
  // Longest path first, so "catalogs/agencies" is not taken for a dataset named "catalogs".
  const paths = datasets.map((d) => d.path).sort((a, b) => b.length - a.length);
  app.use((req, res, next) => {
    if (req.path === '/metrics' || req.path === '/healthz' || req.path === '/livez') return next();
    res.on('finish', () => {
      const p = req.path.slice(1);
      const dataset = paths.find((d) => p === d || p.startsWith(`${d}/`)) ?? 'unknown';
      requests.inc({ dataset, status: String(res.statusCode) });
    });
    next();
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.end(await registry.metrics());
  });
}
