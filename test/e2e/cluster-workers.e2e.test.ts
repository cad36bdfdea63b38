import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/databases';
import { PrivateRedis } from '../support/private-redis';
import {
  ADMIN_SECRET,
  apiGet,
  configWithFreePorts,
  freePort,
  spawnProduct,
  startProductProcess,
  tempConfig,
} from './product-process';
import type { ProductProcess } from './product-process';

// WORKERS=2: the node:cluster primary and its two gateway workers, as separate processes.
const schema = `e2e_${randomBytes(5).toString('hex')}`;
const env = (): Record<string, string> => ({
  WORKERS: '2',
  DATABASE_URL: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`,
  REDIS_URL: TEST_REDIS_URL,
  ADMIN_JWT_SECRET: ADMIN_SECRET,
  // Only /v1/me is asked: the first start need not seed the schema with sample rows.
  SEED_SAMPLE_DATA: 'false',
});

/** The built-in upstreams on free ports, so that the run does not depend on a product already up on the defaults. */
const startCluster = async (): Promise<ProductProcess> =>
  startProductProcess({ ...env(), CONFIG_DIR: await configWithFreePorts() });

const workersOf = (pid: number): number[] => {
  try {
    // Only the workers: tsx's loader can also keep an esbuild service as a child of the primary
    // (when its transform cache is cold, right after a source changed).
    return execFileSync('pgrep', ['-P', String(pid), '-f', 'main\\.ts'])
      .toString()
      .trim()
      .split('\n')
      .map(Number);
  } catch {
    return [];
  }
};

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const startedLines = (p: ProductProcess): number => p.output().split('"lookup api started"').length - 1;

/** Both workers' pids, once both have started (a worker killed before it listened is another case). */
async function twoWorkers(p: ProductProcess): Promise<number[]> {
  try {
    await until('both workers started', () => (startedLines(p) >= 2 ? true : undefined));
    return await until('two workers', () => {
      const w = workersOf(p.child.pid!);
      return w.length === 2 ? w : undefined;
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; the product said:\n${p.output().slice(-3000)}`);
  }
}

beforeAll(async () => {
  const pg = new Client({ connectionString: TEST_DATABASE_URL });
  await pg.connect();
  await pg.query(`CREATE SCHEMA ${schema}`);
  await pg.end();
});

afterAll(async () => {
  const pg = new Client({ connectionString: TEST_DATABASE_URL });
  await pg.connect();
  await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pg.end();
});

describe('WORKERS=2: the cluster primary', () => {
  let product: ProductProcess | undefined;
  afterEach(async () => {
    await product?.stop();
    product = undefined;
  });

  /** The primary gives up on workers that never started: exit 1, the workers' reason, no restart. */
  const expectGivesUp = async (vars: Record<string, string>, why: string): Promise<void> => {
    const run = spawnProduct(vars);
    expect(await run.exited).toBe(1);
    const out = run.output();
    expect(out).toContain(why);
    expect(out).toContain('"reason":"never_started"');
    expect(out).not.toContain('starting another');
  };

  it('exits with 1 when the workers cannot start, instead of starting them again in a loop', async () => {
    const configDir = tempConfig((docs) => docs.plans.set('per_ip_per_minute', 'many'));
    await expectGivesUp({ ...env(), CONFIG_DIR: configDir }, 'invalid configuration');
  }, 90_000);

  it('exits with 1 when the workers fail after their upstreams listen (the public port taken), without starting them again', async () => {
    const taken = await freePort();
    const holder = createNetServer();
    await new Promise<void>((r) => holder.listen(taken, () => r()));
    try {
      await expectGivesUp(
        { ...env(), CONFIG_DIR: await configWithFreePorts(), PORT: String(taken) },
        `port ${taken} (PORT, or gateway.yaml port) is in use by another process`,
      );
    } finally {
      await new Promise<void>((r) => holder.close(() => r()));
    }
  }, 90_000);

  it('stops at once without an admin secret, naming it, and starts no worker', async () => {
    const { ADMIN_JWT_SECRET: _unset, ...withoutSecret } = env();
    const run = spawnProduct({ ...withoutSecret, CONFIG_DIR: await configWithFreePorts() });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('invalid environment: ADMIN_JWT_SECRET must be set, or ADMIN_JWKS_URL');
    expect(run.output()).not.toMatch(/gateway worker|lookup api started/);
  }, 90_000);

  it('replaces a worker that dies while serving, after a delay, and keeps answering', async () => {
    product = await startCluster();
    const primary = product.child.pid!;
    const before = await twoWorkers(product);
    process.kill(before[0]!, 'SIGKILL');
    await until('the restart line', () =>
      product!.output().includes('starting another') ? true : undefined,
    );
    expect(product.output()).toMatch(
      /"signal":"SIGKILL","restart_in_ms":250,"msg":"gateway worker exited; starting another"/,
    );
    const after = await until('a new worker', () => {
      const w = workersOf(primary);
      return w.length === 2 && !w.includes(before[0]!) ? w : undefined;
    });
    expect(after).toContain(before[1]);
    await until('the new worker started', () => (startedLines(product!) >= 3 ? true : undefined));
    const answers = await Promise.all(Array.from({ length: 8 }, () => apiGet(product!, '/v1/me')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(401));
  }, 180_000);

  it('kills a worker that stopped answering (its process stopped) and starts another', async () => {
    product = await startProductProcess({
      ...env(),
      // Long enough that a healthy worker paused by a busy CI machine is not taken for a stuck one.
      WORKER_LIVENESS_TIMEOUT_MS: '5000',
      CONFIG_DIR: await configWithFreePorts(),
    });
    const primary = product.child.pid!;
    const before = await twoWorkers(product);
    // A stopped process keeps its listening sockets, as a worker stuck in a loop would.
    process.kill(before[0]!, 'SIGSTOP');
    await until('the kill line', () => (product!.output().includes('stopped answering') ? true : undefined));
    expect(product.output()).toMatch(
      new RegExp(
        `"pid":${before[0]},"silent_ms":\\d+,"timeout_ms":5000,.*"msg":"gateway worker stopped answering`,
      ),
    );
    const after = await until('a new worker', () => {
      const w = workersOf(primary);
      return w.length === 2 && !w.includes(before[0]!) ? w : undefined;
    });
    expect(after).toContain(before[1]);
    expect(() => process.kill(before[0]!, 0)).toThrow();
    await until('the new worker started', () => (startedLines(product!) >= 3 ? true : undefined));
    const answers = await Promise.all(Array.from({ length: 8 }, () => apiGet(product!, '/v1/me')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(401));
    // The workers that answer are left alone.
    expect(product.output().split('stopped answering').length - 1).toBe(1);
  }, 180_000);

  it('keeps the workers that kept the last good config serving while a replacement cannot start on a config refused meanwhile', async () => {
    const configDir = await configWithFreePorts();
    product = await startProductProcess({ ...env(), CONFIG_DIR: configDir });
    const before = await twoWorkers(product);
    const plans = join(configDir, 'plans.yaml');
    const good = readFileSync(plans, 'utf8');
    writeFileSync(plans, good.replace(/^per_ip_per_minute: .*$/m, 'per_ip_per_minute: many'));
    const refusals = () => product!.output().split('configuration reload refused').length - 1;
    await until('both workers refusing the edit', () => (refusals() >= 2 ? true : undefined));
    process.kill(before[0]!, 'SIGKILL');
    // Each replacement reads the refused file and dies; past the 5 quick deaths that stop a
    // primary whose workers are all gone, this one goes on, its other worker serving.
    const restarts = () => product!.output().split('starting another').length - 1;
    await until('seven restarts', () => (restarts() >= 7 ? true : undefined), 90_000);
    expect(product.output()).not.toContain('crash_loop');
    expect(product.child.exitCode).toBeNull();
    const answers = await Promise.all(Array.from({ length: 4 }, () => apiGet(product!, '/v1/me')));
    expect(answers.map((a) => a.status)).toEqual(Array(4).fill(401));
    // The file mended, the next replacement starts on it.
    const started = startedLines(product);
    writeFileSync(plans, good);
    await until('a replacement started', () => (startedLines(product!) > started ? true : undefined), 60_000);
  }, 240_000);

  it('stops its workers and exits with 0 on SIGTERM (and warns of a short admin secret once, not per worker)', async () => {
    product = await startProductProcess({
      ...env(),
      ADMIN_JWT_SECRET: 'short-secret',
      CONFIG_DIR: await configWithFreePorts(),
    });
    const workers = await twoWorkers(product);
    expect(product.output().split('ADMIN_JWT_SECRET is shorter than 32 bytes').length - 1).toBe(1);
    const stopped = product;
    const code = await stopped.stop('SIGTERM');
    product = undefined;
    const output = stopped.output();
    expect(code).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    // Each worker's last line, then the primary's.
    expect(output.split('"msg":"stopped"').length - 1).toBe(3);
  }, 180_000);
});

describe('WORKERS=2: /metrics', () => {
  let product: ProductProcess | undefined;
  afterAll(async () => {
    await product?.stop();
  });

  /** A GET on a connection of its own: cluster hands new connections to the workers in turn. */
  const fresh = (url: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      get(url, { agent: false }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      }).on('error', reject);
    });

  const total = (text: string, name: string): number =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
      .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

  it('answers for every worker, whichever one takes the scrape', async () => {
    product = await startCluster();
    await twoWorkers(product);
    const calls = await Promise.all(Array.from({ length: 20 }, () => fresh(`${product!.base}/v1/me`)));
    expect(calls.map((c) => c.status)).toEqual(Array(20).fill(401));
    const scrapes = await Promise.all(Array.from({ length: 6 }, () => fresh(`${product!.admin}/metrics`)));
    for (const s of scrapes) {
      expect(s.status).toBe(200);
      expect(total(s.text, 'lookup_http_requests_total')).toBe(20);
      expect(s.text).toContain('lookup_upstream_up');
    }
  }, 180_000);

  it("keeps a dead worker's counts in the sums, so no counter of the pod goes back", async () => {
    const [gone] = await twoWorkers(product!);
    const before = total((await fresh(`${product!.admin}/metrics`)).text, 'lookup_http_requests_total');
    expect(before).toBe(20);
    process.kill(gone!, 'SIGKILL');
    await until('the replacement started', () => (startedLines(product!) >= 3 ? true : undefined));
    const calls = await Promise.all(Array.from({ length: 6 }, () => fresh(`${product!.base}/v1/me`)));
    expect(calls.map((c) => c.status)).toEqual(Array(6).fill(401));
    for (let i = 0; i < 4; i++) {
      const s = await fresh(`${product!.admin}/metrics`);
      expect(total(s.text, 'lookup_http_requests_total')).toBe(26);
    }
  }, 180_000);
});

describe('WORKERS=2: /readyz', () => {
  let product: ProductProcess | undefined;
  let redis: PrivateRedis | undefined;
  afterAll(async () => {
    await product?.stop();
    await redis?.kill();
  });

  const readyz = (): Promise<number> =>
    new Promise((resolve, reject) => {
      get(`${product!.admin}/readyz`, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });
  const tenProbes = async (): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < 10; i++) out.push(await readyz());
    return out;
  };

  it('answers the same whichever worker takes the probe, a replacement started with Redis down included', async () => {
    redis = await PrivateRedis.start();
    product = await startProductProcess({
      ...env(),
      REDIS_URL: redis.url,
      CONFIG_DIR: await configWithFreePorts(),
    });
    const [first] = await twoWorkers(product);
    // No probe before Redis goes: each worker saw the counters answer at its start.
    await redis.kill();
    expect(await tenProbes()).toEqual(Array(10).fill(200));
    process.kill(first!, 'SIGKILL');
    await until('the replacement started', () => (startedLines(product!) >= 3 ? true : undefined));
    expect(await tenProbes()).toEqual(Array(10).fill(200));
  }, 180_000);
});
