import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { compileConfig } from '../config/compile-config';
import { loadRawConfig } from '../config/load-config';
import { createGatewayMetrics } from '../observability/gateway-metrics';
import { UpstreamHealth } from './upstream-health';
import { capturedLog } from '../../test/support/captured-log';

describe('upstream health', () => {
  it('logs a change of state once, naming the upstream and why it is down, and its return', async () => {
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
      status = 200;
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
});
