import { execFileSync, spawn } from 'node:child_process';
import { get } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/databases';
import { ADMIN_SECRET, ROOT, apiGet, startProductProcess, tempConfig } from './product-process';
import type { ProductProcess } from './product-process';

// WORKERS=2: the node:cluster primary and its two gateway workers, as separate processes.
const schema = `e2e_${randomBytes(5).toString('hex')}`;
const env = (): Record<string, string> => ({
  WORKERS: '2',
  DATABASE_URL: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`,
  REDIS_URL: TEST_REDIS_URL,
  ADMIN_JWT_SECRET: ADMIN_SECRET,
});

const workersOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)])
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

const twoWorkers = (primary: number): Promise<number[]> =>
  until('two workers', () => {
    const w = workersOf(primary);
    return w.length === 2 ? w : undefined;
  });

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

  it('exits with 1 when the workers cannot start, instead of starting them again in a loop', async () => {
    const configDir = tempConfig((docs) => docs.plans.set('per_ip_per_minute', 'many'));
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...env(),
        CONFIG_DIR: configDir,
        PORT: '0',
        ADMIN_PORT: '0',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'lk-data-')),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(out).toContain('invalid configuration');
    expect(out).toContain('"reason":"never_started"');
    expect(out).not.toContain('starting another');
  }, 90_000);

  it('replaces a worker that dies while serving, after a delay, and keeps answering', async () => {
    product = await startProductProcess(env());
    const primary = product.child.pid!;
    const before = await twoWorkers(primary);
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
    await until('the new worker started', () =>
      product!.output().split('"lookup api started"').length - 1 >= 3 ? true : undefined,
    );
    const answers = await Promise.all(Array.from({ length: 8 }, () => apiGet(product!, '/v1/me')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(401));
  }, 180_000);

  it('stops its workers and exits with 0 on SIGTERM', async () => {
    product = await startProductProcess(env());
    const primary = product.child.pid!;
    const workers = await twoWorkers(primary);
    const code = await product.stop('SIGTERM');
    product = undefined;
    expect(code).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  }, 180_000);
});

describe('WORKERS=2: /metrics', () => {
  let product: ProductProcess | undefined;
  afterAll(async () => {
    await product?.stop();
  });

  /** A scrape on a connection of its own, so that successive scrapes land on either worker. */
  const scrape = (p: ProductProcess): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      get(`${p.admin}/metrics`, { agent: false }, (res) => {
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
    product = await startProductProcess(env());
    await twoWorkers(product.child.pid!);
    // Every answer on a new connection: cluster hands connections to the workers in turn.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${product!.base}/v1/me`, { headers: { connection: 'close' } }).then((r) => r.text()),
      ),
    );
    const scrapes = await Promise.all(Array.from({ length: 6 }, () => scrape(product!)));
    for (const s of scrapes) {
      expect(s.status).toBe(200);
      expect(total(s.text, 'lookup_http_requests_total')).toBe(20);
      expect(s.text).toContain('lookup_upstream_up');
    }
  }, 180_000);
});
