import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProduct } from '../../src/runtime/start-product';
import type { RunningProduct } from '../../src/runtime/start-product';
import { copyConfig } from '../openapi/e2e-support';
import { spawnProduct } from './product-process';

// The embedded default as a person meets it: `npm start`, then `npm start` again on the same data.
// The tests run in order on one data directory: each restart follows the first start.

const root = mkdtempSync(join(tmpdir(), 'lk-embedded-start-'));
let configDir = '';

/** One start on the shared data directory, with what it printed. */
async function start(adminJwtSecret?: string): Promise<{ product: RunningProduct; banner: string }> {
  let banner = '';
  const product = await startProduct({
    configDir,
    dataDir: join(root, 'data'),
    port: 0,
    adminPort: 0,
    adminJwtSecret,
    logLevel: 'silent',
    print: (t) => (banner += t),
    watchConfig: false,
  });
  return { product, banner };
}

const adminToken = (banner: string): string | undefined => /Admin token[^\n]*\n\s+(\S+)/.exec(banner)?.[1];

async function adminGet(p: RunningProduct, path: string, token: string | undefined): Promise<Response> {
  return fetch(`http://127.0.0.1:${p.adminPort}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

beforeAll(async () => {
  configDir = await copyConfig(root);
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the embedded default, started twice on one data directory', () => {
  let demo: { plan: string; key: string }[] = [];
  let firstToken: string | undefined;

  it('the first start prints one working demo key per plan and an admin token the admin API accepts, in a data directory only its owner enters, its sample tables vacuumed', async () => {
    const { product, banner } = await start();
    try {
      demo = [...banner.matchAll(/^ {2}(\S+)\s+(lk_\S+)\s+\(/gm)].map((m) => ({ plan: m[1]!, key: m[2]! }));
      expect(demo.map((d) => d.plan)).toEqual(['free', 'starter', 'pro', 'enterprise']);
      firstToken = adminToken(banner);
      const me = await fetch(`http://127.0.0.1:${product.port}/v1/me`, {
        headers: { 'x-api-key': demo[1]!.key },
      });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { data: { plan: string } }).data.plan).toBe('starter');
      expect((await adminGet(product, '/admin/accounts/acc_none', adminToken(banner))).status).toBe(404);
      expect((await adminGet(product, '/admin/accounts/acc_none', undefined)).status).toBe(401);
      // PGlite writes some of its files world-writable; a directory only its owner enters keeps them.
      expect(statSync(join(root, 'data')).mode & 0o777).toBe(0o700);
      // PGlite never vacuums by itself: unmarked pages send every index-only scan to the heap.
      const tables = await product.db.query<{ name: string; visible: number; pages: number }>(
        `SELECT c.relname AS name, c.relallvisible AS visible, (pg_relation_size(c.oid) / 8192)::int AS pages
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'r' AND n.nspname = ANY (current_schemas(false)) AND pg_relation_size(c.oid) >= 8 * 8192`,
      );
      expect(tables.rows.map((t) => t.name)).toContain('legal_documents');
      for (const t of tables.rows)
        expect([t.name, Number(t.visible) * 2 >= Number(t.pages)]).toEqual([t.name, true]);
    } finally {
      await product.shutdown();
    }
  }, 120_000);

  it('a restart shows no key, names the demo accounts, and prints a fresh admin token that works', async () => {
    expect(demo).toHaveLength(4);
    const { product, banner } = await start();
    try {
      expect(banner).not.toMatch(/lk_/);
      const ids = [...banner.matchAll(/^ {2}(\S+)\s+(acc_\S+)\s+\(/gm)].map((m) => ({
        plan: m[1]!,
        id: m[2]!,
      }));
      expect(ids.map((d) => d.plan)).toEqual(['free', 'starter', 'pro', 'enterprise']);
      expect(banner).toContain('npm run admin -- keys create');
      const token = adminToken(banner);
      expect(token).toBeDefined();
      expect(firstToken).toBeDefined();
      expect(token).not.toBe(firstToken);
      const acc = await adminGet(product, `/admin/accounts/${ids[2]!.id}`, token);
      expect(acc.status).toBe(200);
      expect(((await acc.json()) as { plan: string }).plan).toBe('pro');
      // The first start's key still answers: the restart kept the accounts and their keys.
      const me = await fetch(`http://127.0.0.1:${product.port}/v1/me`, {
        headers: { 'x-api-key': demo[0]!.key },
      });
      expect(me.status).toBe(200);
    } finally {
      await product.shutdown();
    }
  }, 120_000);

  it('a restart keeps the usage counted before it: the month, the day and the full-text documents', async () => {
    expect(demo).toHaveLength(4);
    const starter = { 'x-api-key': demo[1]!.key };
    const before = await start();
    try {
      const base = `http://127.0.0.1:${before.product.port}`;
      const list = (await (
        await fetch(`${base}/v1/legal-documents?q=luat`, { headers: starter })
      ).json()) as {
        data: { id: string }[];
      };
      const detail = await fetch(`${base}/v1/legal-documents/${list.data[0]!.id}`, { headers: starter });
      expect(detail.status).toBe(200);
    } finally {
      await before.product.shutdown();
    }
    const after = await start();
    try {
      const me = await fetch(`http://127.0.0.1:${after.product.port}/v1/me`, { headers: starter });
      const { quota } = ((await me.json()) as { data: { quota: Record<string, number> } }).data;
      expect(quota).toMatchObject({ monthly_used: 2, daily_used: 2, full_text_used_today: 1 });
    } finally {
      await after.product.shutdown();
    }
  }, 120_000);

  it('a second npm start on the same data directory while the first runs exits 1, naming the first', async () => {
    const { product } = await start();
    try {
      const second = spawnProduct({ DATA_DIR: join(root, 'data'), CONFIG_DIR: configDir });
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(
        `failed to start: the database in ${join(root, 'data')} is in use by process ${process.pid}`,
      );
      // The first goes on serving.
      expect((await adminGet(product, '/healthz', undefined)).status).toBe(200);
    } finally {
      await product.shutdown();
    }
  }, 120_000);

  it('a restart with an operator-supplied admin secret prints no token for it', async () => {
    expect(demo).toHaveLength(4);
    const { product, banner } = await start('o'.repeat(32));
    try {
      expect(banner).not.toContain('Admin token');
      expect(banner).toContain('Demo accounts');
    } finally {
      await product.shutdown();
    }
  }, 120_000);
});
