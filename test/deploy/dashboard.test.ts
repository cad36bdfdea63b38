/**
 * The Grafana dashboard and the PrometheusRule alerts query only metrics (and labels) the
 * application exports, and the dashboard covers the panels operations asked for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { MetricRef } from './deploy-helpers';
import { DEPLOY_DIR, KNOWN_METRICS, promqlMetricRefs, unknownMetricProblem } from './deploy-helpers';
import { createGatewayMetrics } from '../../src/observability/gateway-metrics';

interface Target {
  expr?: string;
}
interface Panel {
  type: string;
  title?: string;
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  title: string;
  uid: string;
  panels: Panel[];
  templating?: { list: { name: string; type: string; query?: string | { query?: string } }[] };
}

const dashboard = JSON.parse(
  readFileSync(join(DEPLOY_DIR, 'grafana', 'lookup-api.json'), 'utf8'),
) as Dashboard;
const allPanels = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
const exprs = allPanels(dashboard.panels).flatMap((p) =>
  (p.targets ?? [])
    .filter((t) => t.expr !== undefined)
    .map((t) => ({ panel: p.title ?? p.type, expr: t.expr! })),
);

/** `label_values(metric{...}, label)` and plain PromQL in query variables. */
function variableRefs(): MetricRef[] {
  return (dashboard.templating?.list ?? [])
    .filter((v) => v.type === 'query')
    .flatMap((v) => {
      const q = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
      const lv = /^\s*label_values\((.*),\s*\w+\s*\)\s*$/.exec(q);
      return promqlMetricRefs(lv !== null ? lv[1]! : q);
    });
}

describe('deploy/grafana/lookup-api.json', () => {
  it('parses as a dashboard with PromQL targets', () => {
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.uid).toBeTruthy();
    expect(exprs.length).toBeGreaterThan(5);
  });

  it.each(exprs.map((e) => [e.panel, e.expr] as const))(
    '%s queries only exported metrics and labels',
    (_p, expr) => {
      const refs = promqlMetricRefs(expr);
      expect(refs.length).toBeGreaterThan(0);
      expect(refs.map((r) => unknownMetricProblem(r)).filter((p) => p !== undefined)).toEqual([]);
    },
  );

  it('uses only exported metrics in template variables', () => {
    expect(variableRefs().length).toBeGreaterThan(0);
    expect(
      variableRefs()
        .map((r) => unknownMetricProblem(r))
        .filter((p) => p !== undefined),
    ).toEqual([]);
  });

  it('covers traffic, latency, upstreams, quota, store fallback, key cache, reloads and bulk locks', () => {
    const used = new Set(exprs.flatMap((e) => promqlMetricRefs(e.expr).map((r) => r.name)));
    for (const metric of [
      'lookup_http_requests_total',
      'lookup_http_request_duration_seconds_bucket',
      'lookup_upstream_request_duration_seconds_bucket',
      'lookup_upstream_up',
      'lookup_upstream_failures_total',
      'lookup_upstream_queued_requests',
      'lookup_quota_rejections_total',
      'lookup_store_fallback_active',
      'lookup_key_cache_lookups_total',
      'lookup_config_reloads_total',
      'lookup_bulk_locks_total',
    ]) {
      expect({ metric, used: used.has(metric) }).toEqual({ metric, used: true });
    }
    const all = exprs.map((e) => e.expr).join('\n');
    expect(all).toMatch(/histogram_quantile\(0\.5,[^\n]*lookup_http_request_duration_seconds_bucket/);
    expect(all).toMatch(/histogram_quantile\(0\.99,[^\n]*lookup_http_request_duration_seconds_bucket/);
    expect(all).toMatch(/sum by \(reason\) \(rate\(lookup_quota_rejections_total/);
    expect(all).toMatch(/result="hit"/);
  });
});

describe('PrometheusRule alerts (deploy/k8s/overlays/prod/monitoring.yaml)', () => {
  const rules = parseAllDocuments(
    readFileSync(join(DEPLOY_DIR, 'k8s', 'overlays', 'prod', 'monitoring.yaml'), 'utf8'),
  )
    .map(
      (d) => d.toJS() as { kind: string; spec: { groups?: { rules: { alert?: string; expr: string }[] }[] } },
    )
    .filter((o) => o.kind === 'PrometheusRule')
    .flatMap((o) => (o.spec.groups ?? []).flatMap((g) => g.rules));

  it('has rules', () => {
    expect(rules.length).toBeGreaterThanOrEqual(4);
  });

  it.each(rules.map((r) => [r.alert ?? 'record', r.expr] as const))(
    '%s uses only exported metrics',
    (_a, expr) => {
      const problems = promqlMetricRefs(expr)
        // Prometheus' own, and kube-state-metrics' (replicas ready: the one signal left when none is).
        .map((r) => unknownMetricProblem(r, ['up', 'kube_deployment_status_replicas_available']))
        .filter((p) => p !== undefined);
      expect(problems).toEqual([]);
    },
  );
});

describe('the metrics the dashboard and the alerts are checked against', () => {
  it("are the gateway's own, every one with its labels, and the upstream kit's request counter", () => {
    const gateway = createGatewayMetrics({ defaultMetrics: false })
      .registry.getMetricsAsArray()
      .map((m) => m as unknown as { name: string; labelNames?: string[] });
    const exported = Object.fromEntries(gateway.map((m) => [m.name, m.labelNames ?? []]));
    // Each upstream service's own registry (src/upstream-kit/upstream-metrics.ts).
    exported.lookup_upstream_http_requests_total = ['dataset', 'status'];
    expect(KNOWN_METRICS).toEqual(exported);
  });
});

describe('promqlMetricRefs', () => {
  it('separates metric names from functions, keywords, labels, ranges and variables', () => {
    const refs = promqlMetricRefs(
      'histogram_quantile(0.99, sum by (le, dataset) (rate(a_b_bucket{namespace="$namespace", dataset=~"x"}[$__rate_interval]))) > 1e-3 and on (x) b offset 5m unless sum(c) without (d)',
    );
    expect(refs).toEqual([
      { name: 'a_b_bucket', labels: ['namespace', 'dataset'] },
      { name: 'b', labels: [] },
      { name: 'c', labels: [] },
    ]);
  });

  it('reports unknown metrics and labels', () => {
    expect(unknownMetricProblem({ name: 'lookup_http_requests_total', labels: ['status'] })).toBeUndefined();
    expect(
      unknownMetricProblem({ name: 'lookup_http_request_duration_seconds_bucket', labels: ['le'] }),
    ).toBeUndefined();
    expect(unknownMetricProblem({ name: 'lookup_requests_total', labels: [] })).toMatch(/unknown metric/);
    expect(unknownMetricProblem({ name: 'lookup_upstream_up', labels: ['dataset'] })).toMatch(/no label/);
    expect(unknownMetricProblem({ name: 'lookup_http_request_duration_seconds', labels: [] })).toMatch(
      /histogram/,
    );
  });
});
