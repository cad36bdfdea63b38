import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { compileConfig } from '../config/compile-config';
import { loadRawConfig } from '../config/load-config';
import { ManualClock } from '../util/clock';
import { DatasetStats } from './dataset-stats';

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
      const raw = loadRawConfig(join(__dirname, '..', '..', 'config'));
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      for (const u of Object.values(raw.upstreams.upstreams)) u.url = url;
      const config = compileConfig(raw);
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
      const raw = loadRawConfig(join(__dirname, '..', '..', 'config'));
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api/v2/`;
      for (const u of Object.values(raw.upstreams.upstreams)) u.url = url;
      const config = compileConfig(raw);
      expect(
        await new DatasetStats(() => config, new ManualClock(Date.now())).refresh('bailiff-offices'),
      ).toBe(77);
      expect(paths).toEqual(['/api/v2/bailiff-offices/_stats']);
    } finally {
      upstream.close();
    }
  });
});
