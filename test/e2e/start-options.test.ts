import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startProduct } from '../../src/runtime/start-product';
import type { ProductOptions, RunningProduct } from '../../src/runtime/start-product';
import { clusterProductOptions, copyConfig, testProductOptions } from '../openapi/e2e-support';
import { capturedLog } from '../support/captured-log';

/**
 * A product started on a directory of its own with `extra` options (`prepare` sees the options
 * first, and its data directory is left to it; otherwise that holds a fresh cluster), given to
 * `use`, then shut down and its directory removed.
 */
async function withProduct(
  prefix: string,
  extra: Partial<ProductOptions>,
  use: (product: RunningProduct, options: ProductOptions) => void | Promise<void>,
  prepare?: (options: ProductOptions) => void,
): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  try {
    const configDir = await copyConfig(root);
    const options = prepare
      ? testProductOptions(root, configDir)
      : await clusterProductOptions(root, configDir);
    prepare?.(options);
    const product = await startProduct({ ...options, ...extra });
    try {
      await use(product, options);
    } finally {
      await product.shutdown();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('SEED_SAMPLE_DATA=false on the product start', () => {
  it('runs the built-in upstreams on an empty database, adding no sample rows to real data', async () => {
    await withProduct('lookup-no-seed-', { seedSampleData: false }, async (product) => {
      const count = async (table: string): Promise<number> =>
        Number((await product.db.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
      expect(await count('legal_documents')).toBe(0);
      expect(await count('directory_organisations')).toBe(0);
      const health = await fetch(`http://127.0.0.1:${product.adminPort}/healthz`);
      expect(health.status).toBe(200);
    });
  }, 120_000);
});

describe('the public and admin ports', () => {
  it('refuses at once to start with the admin port equal to the public one, whichever sets them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lookup-ports-'));
    try {
      const options = testProductOptions(root, await copyConfig(root));
      const file = join(options.configDir, 'gateway.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^admin_port: \d+/m, 'admin_port: 18099'));
      await expect(startProduct({ ...options, port: 18099, adminPort: undefined })).rejects.toThrow(
        'the admin port (ADMIN_PORT, or gateway.yaml admin_port) must differ from the public port (PORT, or gateway.yaml port): both are 18099',
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a start whose port is taken', () => {
  it('on PGlite, refuses before it opens the data directory, so nothing is migrated under a product still running', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lookup-port-held-'));
    const holder = createNetServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const held = (holder.address() as AddressInfo).port;
    try {
      const options = testProductOptions(root, await copyConfig(root));
      await expect(startProduct({ ...options, port: held })).rejects.toThrow(
        `port ${held} (PORT, or gateway.yaml port) is in use by another process`,
      );
      expect(existsSync(options.dataDir)).toBe(false);
    } finally {
      holder.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a start on usage counters another gateway keeps', () => {
  it('refuses before it opens the database, so nothing is migrated under the gateway keeping them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lookup-counters-held-'));
    try {
      const options = testProductOptions(root, await copyConfig(root));
      mkdirSync(options.dataDir, { recursive: true });
      // Kept by a live process (this test's parent), and a database that would refuse the start if
      // it were reached first.
      writeFileSync(join(options.dataDir, 'usage-counters.json.lock'), String(process.ppid));
      await expect(
        startProduct({ ...options, databaseUrl: 'postgres://postgres@127.0.0.1:1/nowhere' }),
      ).rejects.toThrow(`the usage counters in ${options.dataDir} are kept by process ${process.ppid}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a data directory open to others', () => {
  it('is closed to all but its owner at start, with a warning, since PGlite writes world-writable files in it', async () => {
    const { logger, lines } = capturedLog();
    await withProduct(
      'lookup-open-dir-',
      { logger, seedSampleData: false },
      (_product, options) => {
        expect(statSync(options.dataDir).mode & 0o777).toBe(0o700);
        expect(lines.some((l) => l.level === 40 && String(l.msg).startsWith('DATA_DIR was open'))).toBe(true);
        // A first start on it applies every migration, and says which.
        const applied = lines.filter((l) => l.msg === 'migrations applied').map((l) => l.set);
        expect(applied).toEqual(expect.arrayContaining(['gateway', 'legal', 'directory', 'admin-units']));
      },
      (options) => {
        mkdirSync(options.dataDir, { mode: 0o755 });
        chmodSync(options.dataDir, 0o755);
      },
    );
  }, 60_000);
});

describe('the admin secret', () => {
  it('warns at start of an ADMIN_JWT_SECRET shorter than 32 bytes, and not of one as long', async () => {
    for (const [secret, warned] of [
      ['short-secret', true],
      ['x'.repeat(32), false],
    ] as const) {
      const { logger, lines } = capturedLog();
      await withProduct('lookup-secret-', { adminJwtSecret: secret, logger, seedSampleData: false }, () => {
        const warning = lines.find((l) => String(l.msg).startsWith('ADMIN_JWT_SECRET is shorter'));
        expect([secret, warning?.bytes]).toEqual([secret, warned ? 12 : undefined]);
      });
    }
  }, 120_000);
});

describe('the public port against slow clients', () => {
  it('closes a connection whose request headers, or whose request, do not arrive in time, and serves whole ones', async () => {
    // No sample data: nothing here reads a dataset, and seeding it would only lengthen the start.
    const timeouts = { requestTimeouts: { headersMs: 400, requestMs: 800 }, seedSampleData: false };
    await withProduct('lookup-slow-', timeouts, async (product) => {
      // Resolves with what the server wrote before closing, or 'open' if it still holds the socket.
      const hold = (first: string, trickle: string, ms: number): Promise<string> =>
        new Promise((resolve) => {
          let got = '';
          const socket = connect(product.port, '127.0.0.1', () => socket.write(first));
          const drip = setInterval(() => socket.writable && socket.write(trickle), 100);
          const give = (v: string) => {
            clearInterval(drip);
            clearTimeout(limit);
            socket.destroy();
            resolve(v);
          };
          socket.on('data', (b) => (got += b.toString()));
          socket.on('close', () => give(got || 'closed'));
          socket.on('error', () => undefined);
          const limit = setTimeout(() => give('open'), ms);
        });
      // Headers dripped one byte at a time, never ending.
      expect(await hold('GET /v1/me HTTP/1.1\r\nHost: x\r\nX-A: ', 'a', 3_000)).not.toBe('open');
      // Headers whole, then a body dripped far slower than its length asks for.
      expect(
        await hold('GET /v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n', 'a', 3_000),
      ).not.toBe('open');
      const whole = await fetch(`http://127.0.0.1:${product.port}/v1/me`);
      expect(whole.status).toBe(401);
    });
  }, 60_000);
});
