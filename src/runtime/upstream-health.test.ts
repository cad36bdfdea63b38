import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { compileConfig } from '../config/compile-config';
import { loadRawConfig } from '../config/load-config';
import { createGatewayMetrics } from '../observability/gateway-metrics';
import { UpstreamHealth } from './upstream-health';
import { capturedLog } from '../../test/support/captured-log';

describe('upstream health', () => {
  it('logs a change of state once, naming the upstream and why it is down, and its return (any answer below 500)', async () => {
    let status = 200;
    const server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { logger: captured, lines } = capturedLog();
    try {
      const raw = loadRawConfig(join(__dirname, '..', '..', 'config'));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const u of Object.values(raw.upstreams.upstreams)) u.url = url;
      const config = compileConfig(raw);
      const health = new UpstreamHealth(
        () => config,
        createGatewayMetrics({ defaultMetrics: false }),
        captured,
      );
      const legal = () => lines.filter((l) => l.upstream === 'legal').map((l) => [l.msg, l.reason]);
      await health.pollOnce();
      expect([health.allUp(), legal()]).toEqual([true, []]);
      status = 503;
      await health.pollOnce();
      await health.pollOnce();
      expect([health.allUp(), legal()]).toEqual([false, [['upstream down', '/healthz answered 503']]]);
      // A dataset service without a /healthz route (DESIGN §4 asks none) answers 404: it is up.
      status = 404;
      await health.pollOnce();
      await health.pollOnce();
      expect(legal()).toEqual([
        ['upstream down', '/healthz answered 503'],
        ['upstream up again', undefined],
      ]);
    } finally {
      server.close();
    }
  });

  it('drops the lookup_upstream_up series of an upstream a reload removed, so its alert stops', async () => {
    const raw = loadRawConfig(join(__dirname, '..', '..', 'config'));
    // Nothing listens on port 9 of loopback: the upstream is down, as one being removed often is.
    for (const u of Object.values(raw.upstreams.upstreams)) u.url = 'http://127.0.0.1:9';
    let config = compileConfig(raw);
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    const health = new UpstreamHealth(() => config, metrics);
    const series = async () =>
      (await metrics.registry.getSingleMetric('lookup_upstream_up')!.get()).values.map(
        (v) => `${String(v.labels.upstream)}=${v.value}`,
      );
    await health.pollOnce();
    expect(await series()).toContain('directory=0');
    const fewer = loadRawConfig(join(__dirname, '..', '..', 'config'));
    for (const u of Object.values(fewer.upstreams.upstreams)) u.url = 'http://127.0.0.1:9';
    delete fewer.upstreams.upstreams.directory;
    fewer.datasets.datasets = fewer.datasets.datasets.filter((d) => d.upstream !== 'directory');
    config = compileConfig(fewer);
    await health.pollOnce();
    const after = await series();
    expect(after.some((s) => s.startsWith('directory='))).toBe(false);
    expect(after).toContain('legal=0');
    expect(health.allUp()).toBe(false);
  });
});
