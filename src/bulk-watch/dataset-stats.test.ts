import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { compileConfig } from '../config/compile-config';
import { loadRawConfig } from '../config/load-config';
import { ManualClock } from '../util/clock';
import { DatasetStats, STATS_RETRY_MS } from './dataset-stats';
import { createGatewayMetrics } from '../observability/gateway-metrics';
import { capturedLog } from '../../test/support/captured-log';

/** The product's config with every upstream at `url`. */
function configAt(url: string) {
  const raw = loadRawConfig(join(__dirname, '..', '..', 'config'));
  for (const u of Object.values(raw.upstreams.upstreams)) u.url = url;
  return compileConfig(raw);
}

describe('dataset sizes for the bulk watch', () => {
  it("asks an upstream that verifies the gateway's assertion with one, and reads the size", async () => {
    const seen: (string | undefined)[] = [];
    const upstream = createServer((req, res) => {
      seen.push(req.headers.authorization);
      const ok = req.headers.authorization === 'Bearer gateway-assertion';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { total: 240 } : { code: 'unauthorized' }));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    try {
      const config = configAt(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
      const clock = new ManualClock(Date.now());
      const signed = new DatasetStats(
        () => config,
        clock,
        () => Promise.resolve('Bearer gateway-assertion'),
      );
      expect(await signed.refresh('bailiff-offices')).toBe(240);
      const unsigned = new DatasetStats(() => config, clock);
      expect(await unsigned.refresh('bailiff-offices')).toBeUndefined();
      expect(seen).toEqual(['Bearer gateway-assertion', undefined]);
    } finally {
      upstream.close();
    }
  });

  it("asks under the upstream URL's base path, as the data requests do", async () => {
    const paths: (string | undefined)[] = [];
    const upstream = createServer((req, res) => {
      paths.push(req.url);
      const ok = req.url === '/api/v2/bailiff-offices/_stats';
      res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { total: 77 } : { code: 'unknown_endpoint' }));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    try {
      const config = configAt(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api/v2/`);
      expect(
        await new DatasetStats(() => config, new ManualClock(Date.now())).refresh('bailiff-offices'),
      ).toBe(77);
      expect(paths).toEqual(['/api/v2/bailiff-offices/_stats']);
    } finally {
      upstream.close();
    }
  });

  it('says why a size is unknown, and asks again only after a rest, not on every watched call', async () => {
    let answer: { status: number; body: unknown } = { status: 404, body: { code: 'unknown_endpoint' } };
    let asked = 0;
    const upstream = createServer((_req, res) => {
      asked++;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const { logger: captured, lines } = capturedLog();
    try {
      const config = configAt(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
      const clock = new ManualClock(Date.now());
      const metrics = createGatewayMetrics({ defaultMetrics: false });
      const unknown = async () =>
        (await metrics.datasetSizeUnknown.get()).values.find((v) => v.labels.dataset === 'bailiff-offices')
          ?.value;
      const stats = new DatasetStats(() => config, clock, undefined, captured, metrics);
      expect(await stats.sizeNow('bailiff-offices')).toBeUndefined();
      for (let i = 0; i < 5; i++) expect(await stats.sizeNow('bailiff-offices')).toBeUndefined();
      expect([asked, await unknown()]).toEqual([1, 1]);
      expect(lines).toEqual([
        expect.objectContaining({
          dataset: 'bailiff-offices',
          upstream: 'directory',
          reason: 'status 404 unknown_endpoint',
          msg: "dataset size unknown: its upstream's /_stats did not give it",
        }),
      ]);
      answer = { status: 200, body: { total: 'lots' } };
      clock.advance(STATS_RETRY_MS);
      expect(await stats.sizeNow('bailiff-offices')).toBeUndefined();
      expect([asked, lines.at(-1)?.reason]).toEqual([2, 'no whole total >= 0 in its answer']);
      answer = { status: 200, body: { total: 1234 } };
      clock.advance(STATS_RETRY_MS);
      expect(await stats.sizeNow('bailiff-offices')).toBe(1234);
      expect(await stats.sizeNow('bailiff-offices')).toBe(1234);
      expect([asked, await unknown()]).toEqual([3, 0]);
    } finally {
      upstream.close();
    }
  });

  it.each([
    [503, { code: 'unavailable' }],
    [200, { total: 5 }],
  ])(
    'leaves no size series for a dataset a reload removed from the watch during the lookup (answer %s)',
    async (status, body) => {
      let config = configAt('http://127.0.0.1:1');
      const upstream = createServer((_req, res) => {
        // The reload comes while the upstream answers.
        config = compileConfig(
          (() => {
            const raw = loadRawConfig(join(__dirname, '..', '..', 'config'));
            const ds = raw.datasets.datasets.find((d) => d.path === 'bailiff-offices')!;
            ds.bulk_watch = false;
            return raw;
          })(),
        );
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
      await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
      try {
        config = configAt(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
        const metrics = createGatewayMetrics({ defaultMetrics: false });
        const stats = new DatasetStats(
          () => config,
          new ManualClock(Date.now()),
          undefined,
          undefined,
          metrics,
        );
        await stats.refresh('bailiff-offices');
        expect((await metrics.datasetSizeUnknown.get()).values).toEqual([]);
      } finally {
        upstream.close();
      }
    },
  );
});
