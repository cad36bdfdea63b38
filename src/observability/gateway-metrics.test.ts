import { createGatewayMetrics } from './gateway-metrics';

const text = async (m: ReturnType<typeof createGatewayMetrics>): Promise<string> => m.registry.metrics();

describe('gateway metrics: series an alert reads exist before their first event', () => {
  it('starts reload results, rejection reasons and refund failures at 0', async () => {
    const out = await text(createGatewayMetrics({ defaultMetrics: false }));
    expect(out).toContain('lookup_config_reloads_total{result="success"} 0');
    expect(out).toContain('lookup_config_reloads_total{result="failure"} 0');
    for (const reason of ['rate_limited', 'quota_exceeded', 'too_many_requests', 'full_text_limit'])
      expect(out).toContain(`lookup_quota_rejections_total{reason="${reason}"} 0`);
    expect(out).toContain('lookup_quota_refund_failures_total 0');
    expect(out).toContain('lookup_config_reload_failing 0');
  });

  it('starts the bulk-lock series of each watched dataset at 0, and no other', async () => {
    const m = createGatewayMetrics({ defaultMetrics: false });
    m.seed({
      datasets: new Map([
        ['legal-documents', { path: 'legal-documents', bulkWatch: true }],
        ['catalogs/statuses', { path: 'catalogs/statuses', bulkWatch: false }],
      ]),
      upstreams: new Map(),
    });
    const out = await text(m);
    expect(out).toContain('lookup_bulk_locks_total{dataset="legal-documents"} 0');
    expect(out).not.toContain('dataset="catalogs/statuses"');
  });

  it("starts each upstream's failure series at 0 for every reason, without resetting one already counted", async () => {
    const m = createGatewayMetrics({ defaultMetrics: false });
    m.seed({ datasets: new Map(), upstreams: new Map([['legal', {}]]) });
    m.upstreamFailures.inc({ upstream: 'legal', reason: 'timeout' });
    m.seed({
      datasets: new Map(),
      upstreams: new Map([
        ['legal', {}],
        ['directory', {}],
      ]),
    }); // a reload
    const out = await text(m);
    expect(out).toContain('lookup_upstream_failures_total{upstream="legal",reason="timeout"} 1');
    expect(out).toContain('lookup_upstream_failures_total{upstream="directory",reason="bad_body"} 0');
    expect(out.match(/^lookup_upstream_failures_total\{/gm)).toHaveLength(16);
  });

  it("drops a dataset's size-unknown series when a reload removes the dataset or its watch, and keeps the others'", async () => {
    const m = createGatewayMetrics({ defaultMetrics: false });
    const ds = (path: string, bulkWatch = true): [string, { path: string; bulkWatch: boolean }] => [
      path,
      { path, bulkWatch },
    ];
    m.seed({
      datasets: new Map([ds('legal-documents'), ds('preschools'), ds('kindergartens')]),
      upstreams: new Map(),
    });
    for (const dataset of ['legal-documents', 'preschools', 'kindergartens'])
      m.datasetSizeUnknown.set({ dataset }, 1);
    // A reload: preschools removed, kindergartens no longer watched.
    m.seed({
      datasets: new Map([ds('legal-documents'), ds('kindergartens', false)]),
      upstreams: new Map(),
    });
    const out = await text(m);
    expect(out.match(/^lookup_dataset_size_unknown\{.*$/gm)).toEqual([
      'lookup_dataset_size_unknown{dataset="legal-documents"} 1',
    ]);
  });
});
