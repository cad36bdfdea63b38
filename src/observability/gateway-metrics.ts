import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { HotCounter, HotHistogram } from './hot-metrics';
import { UPSTREAM_FAILURE_REASONS } from '../gateway/proxy/upstream-failure';
import type { UpstreamLoad } from '../gateway/proxy/admission';

/** The gateway's Prometheus metrics, in its own registry (never the global one). */
export interface GatewayMetrics {
  registry: Registry;
  // Updated on every request: see hot-metrics.ts.
  requests: HotCounter<'dataset' | 'status' | 'code' | 'plan'>;
  requestDuration: HotHistogram<'dataset'>;
  upstreamDuration: HotHistogram<'upstream'>;
  upstreamUp: Gauge<'upstream'>;
  /** Calls to an upstream that failed (each a 503 search_unavailable), by reason (upstream-failure.ts). */
  upstreamFailures: Counter<'upstream' | 'reason'>;
  quotaReservations: HotCounter<'result'>;
  quotaRefunds: Counter<'reason'>;
  quotaRejections: Counter<'reason'>;
  storeFallbackActive: Gauge;
  configReloads: Counter<'result'>;
  /** 1 while the last reload was refused: the alert holds as long as the bad file is in place. */
  configReloadFailing: Gauge;
  readinessCheck: Gauge<'check'>;
  keyCacheLookups: HotCounter<'result'>;
  bulkLocks: Counter<'dataset'>;
  /** 1 while a dataset's size is unknown (its upstream's /_stats fails): the bulk watch locks nobody on it. */
  datasetSizeUnknown: Gauge<'dataset'>;
  /** Refunds that could not be written: calls charged that should not have counted. */
  quotaRefundFailures: Counter;
  /**
   * Starts a config's per-dataset and per-upstream series at 0, so that a first event is an
   * increase Prometheus can see; at start and after each reload, leaving counted series as they are.
   */
  seed(config: MetricsSeed): void;
  /**
   * Where `lookup_upstream_connections_in_use` and `lookup_upstream_queued_requests` are read at each
   * scrape: the gateway's pipeline serving now. Nothing is counted on a request's path for them.
   */
  readUpstreamLoad(source: () => Iterable<readonly [string, UpstreamLoad]>): void;
}

/** What the per-dataset and per-upstream series are made for: a loaded config's datasets and upstreams. */
export interface MetricsSeed {
  datasets: ReadonlyMap<string, { path: string; bulkWatch: boolean }>;
  upstreams: ReadonlyMap<string, unknown>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createGatewayMetrics(opts: { defaultMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const r = { registers: [registry] };
  const m: Omit<GatewayMetrics, 'seed' | 'readUpstreamLoad'> = {
    registry,
    requests: new HotCounter({
      name: 'lookup_http_requests_total',
      help: 'Public API responses by dataset, HTTP status, error code and plan.',
      labelNames: ['dataset', 'status', 'code', 'plan'],
      ...r,
    }),
    requestDuration: new HotHistogram({
      name: 'lookup_http_request_duration_seconds',
      help: 'Public API request duration.',
      labelNames: ['dataset'],
      buckets: LATENCY_BUCKETS,
      ...r,
    }),
    upstreamDuration: new HotHistogram({
      name: 'lookup_upstream_request_duration_seconds',
      help: 'Upstream time of each call sent, from when it was sent (a wait in the gateway before, for one of pool_size connections, is not counted); failures are also counted in lookup_upstream_failures_total.',
      labelNames: ['upstream'],
      buckets: LATENCY_BUCKETS,
      ...r,
    }),
    upstreamUp: new Gauge({
      name: 'lookup_upstream_up',
      help: '1 when the upstream answered its last health check.',
      labelNames: ['upstream'],
      // WORKERS=N, aggregated: up only when every worker's last check found it up.
      aggregator: 'min',
      ...r,
    }),
    upstreamFailures: new Counter({
      name: 'lookup_upstream_failures_total',
      help: 'Upstream calls that failed (503 search_unavailable), by upstream and reason: timeout, no_connection (the deadline ran out waiting for a pool connection), network, too_large, memory_bound, server_error (a 5xx), bad_status (another status outside the contract), bad_body.',
      labelNames: ['upstream', 'reason'],
      ...r,
    }),
    quotaReservations: new HotCounter({
      name: 'lookup_quota_reservations_total',
      help: 'Quota reservations by result (quota, credits, rejected; capped: a new document over the full-text cap, rate slots only, counted again by its source if charged).',
      labelNames: ['result'],
      ...r,
    }),
    quotaRefunds: new Counter({
      name: 'lookup_quota_refunds_total',
      help: 'Reservations given back at settlement, by reason.',
      labelNames: ['reason'],
      ...r,
    }),
    quotaRejections: new Counter({
      name: 'lookup_quota_rejections_total',
      help: 'Requests refused by a limit, by reason.',
      labelNames: ['reason'],
      ...r,
    }),
    storeFallbackActive: new Gauge({
      name: 'lookup_store_fallback_active',
      help: '1 while Redis is unreachable and store_failure is in force: counting on the per-replica fallback (open) or refusing counted calls (closed).',
      // WORKERS=N, aggregated: 1 while any worker is on its fallback.
      aggregator: 'max',
      ...r,
    }),
    configReloads: new Counter({
      name: 'lookup_config_reloads_total',
      help: 'Configuration reloads by result.',
      labelNames: ['result'],
      ...r,
    }),
    keyCacheLookups: new HotCounter({
      name: 'lookup_key_cache_lookups_total',
      help: 'API key cache lookups by result (hit, miss).',
      labelNames: ['result'],
      ...r,
    }),
    bulkLocks: new Counter({
      name: 'lookup_bulk_locks_total',
      help: 'Accounts locked for bulk extraction, by dataset.',
      labelNames: ['dataset'],
      ...r,
    }),
    datasetSizeUnknown: new Gauge({
      name: 'lookup_dataset_size_unknown',
      help: "1 while a dataset's size is unknown (its upstream's /_stats fails): no account is locked for bulk extraction on it.",
      labelNames: ['dataset'],
      aggregator: 'max',
      ...r,
    }),
    configReloadFailing: new Gauge({
      name: 'lookup_config_reload_failing',
      help: '1 while the last configuration reload was refused (the previous configuration still runs).',
      aggregator: 'max',
      ...r,
    }),
    readinessCheck: new Gauge({
      name: 'lookup_readiness_check',
      help: "1 when the check passed at the last GET /readyz (the kubelet's probe), 0 when it failed; a check that does not gate (the database, an upstream) is seen here, as the replica stays ready.",
      labelNames: ['check'],
      // WORKERS=N, aggregated: 0 when the last probe any worker took found it failing.
      aggregator: 'min',
      ...r,
    }),
    quotaRefundFailures: new Counter({
      name: 'lookup_quota_refund_failures_total',
      help: 'Refunds that could not be written (the call stays counted although it should not).',
      ...r,
    }),
  };
  // A labelled series appears at its first increment, which increase() and rate() cannot see:
  // the known label values start at 0.
  for (const result of ['success', 'failure']) m.configReloads.inc({ result }, 0);
  for (const reason of ['rate_limited', 'quota_exceeded', 'too_many_requests', 'full_text_limit'])
    m.quotaRejections.inc({ reason }, 0);
  let loadSource: () => Iterable<readonly [string, UpstreamLoad]> = () => [];
  const loadGauge = (name: string, help: string, pick: (l: UpstreamLoad) => number): Gauge<'upstream'> =>
    new Gauge({
      name,
      help,
      labelNames: ['upstream'],
      ...r,
      // Read when scraped; reset first, so an upstream a reload removed leaves no stale series.
      collect() {
        this.reset();
        for (const [upstream, load] of loadSource()) this.set({ upstream }, pick(load));
      },
    });
  loadGauge(
    'lookup_upstream_connections_in_use',
    'Calls sent to the upstream and not yet over; at most its pool_size per gateway process.',
    (l) => l.inUse,
  );
  loadGauge(
    'lookup_upstream_queued_requests',
    "Calls waiting in the gateway for one of the upstream's pool_size connections: above 0 for long, the pool or the upstream is too small for the traffic.",
    (l) => l.queued,
  );
  let watchedDatasets = new Set<string>();
  return {
    ...m,
    readUpstreamLoad(source) {
      loadSource = source;
    },
    seed({ datasets, upstreams }) {
      // A dataset a reload removed, or stopped watching, leaves no "size unknown" behind: an alert
      // on it would fire until the next start.
      for (const path of watchedDatasets)
        if (!datasets.get(path)?.bulkWatch) m.datasetSizeUnknown.remove({ dataset: path });
      watchedDatasets = new Set([...datasets.values()].filter((d) => d.bulkWatch).map((d) => d.path));
      for (const ds of datasets.values()) if (ds.bulkWatch) m.bulkLocks.inc({ dataset: ds.path }, 0);
      for (const upstream of upstreams.keys())
        for (const reason of UPSTREAM_FAILURE_REASONS) m.upstreamFailures.inc({ upstream, reason }, 0);
    },
  };
}
