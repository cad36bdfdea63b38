import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { signAdminToken } from '../../src/runtime/admin-secret';
import { startProduct } from '../../src/runtime/start-product';
import type { RunningProduct } from '../../src/runtime/start-product';
import { freePort } from '../support/free-port';
import { writeTemplateCluster } from '../support/pglite-template';
import type { HttpResult } from '../support/openapi-validator';

export const ADMIN_SECRET = 'x'.repeat(32);

/**
 * A copy of config/ in a temp dir, the local upstreams moved to free ports: the built-in upstreams
 * listen on the ports written in upstreams.yaml, which a developer's `npm start` or another test
 * worker may hold. Everything else is the real configuration.
 */
export async function copyConfig(root: string): Promise<string> {
  const dir = join(root, 'config');
  cpSync(join(__dirname, '..', '..', 'config'), dir, { recursive: true });
  const file = join(dir, 'upstreams.yaml');
  const doc = parse(readFileSync(file, 'utf8')) as { upstreams: Record<string, { url: string }> };
  for (const up of Object.values(doc.upstreams)) {
    const url = new URL(up.url);
    if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') continue;
    url.port = String(await freePort());
    up.url = url.toString().replace(/\/$/, '');
  }
  writeFileSync(file, stringify(doc));
  return dir;
}

export interface E2eProduct {
  product: RunningProduct;
  root: string;
  configDir: string;
  base: string;
  /** Creates a verified (by default) account on the plan via the admin API; returns its id and key. */
  account(plan: string, opts?: { verified?: boolean }): Promise<{ id: string; key: string }>;
  /** PATCH /admin/accounts/{id}. */
  patchAccount(id: string, body: Record<string, unknown>): Promise<void>;
}

/** The embedded product's options for a test: PGlite under root, free ports, silent, no watching. */
export const testProductOptions = (root: string, configDir: string): Parameters<typeof startProduct>[0] => ({
  configDir,
  dataDir: join(root, 'data'),
  port: 0,
  adminPort: 0,
  adminJwtSecret: ADMIN_SECRET,
  logLevel: 'silent',
  print: () => undefined,
  watchConfig: false,
});

/**
 * testProductOptions with a fresh PGlite cluster already in the data directory, so that the first
 * start runs migrations and seeds without initdb (3 s idle, 5–8 s with the other suites busy).
 */
export async function clusterProductOptions(
  root: string,
  configDir: string,
): Promise<Parameters<typeof startProduct>[0]> {
  const options = testProductOptions(root, configDir);
  mkdirSync(options.dataDir, { mode: 0o700 });
  await writeTemplateCluster(options.dataDir);
  return options;
}

/** The real product: gateway, admin API, built-in upstreams with their sample data (unless told not to seed), PGlite. */
export async function startE2eProduct(opts: { seedSampleData?: boolean } = {}): Promise<E2eProduct> {
  const root = mkdtempSync(join(tmpdir(), 'lookup-openapi-e2e-'));
  const configDir = await copyConfig(root);
  const product = await startProduct({ ...(await clusterProductOptions(root, configDir)), ...opts });
  const token = await signAdminToken(ADMIN_SECRET, Date.now());
  const adminBase = `http://127.0.0.1:${product.adminPort}/admin`;
  const admin = async (method: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(adminBase + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`admin ${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  let n = 0;
  return {
    product,
    root,
    configDir,
    base: `http://127.0.0.1:${product.port}`,
    async account(plan, opts = {}) {
      n += 1;
      const acc = await admin('POST', '/accounts', {
        email: `openapi-${plan}-${n}@example.vn`,
        plan,
        email_verified: opts.verified ?? true,
      });
      const id = String(acc.id);
      const key = await admin('POST', `/accounts/${id}/keys`, {});
      return { id, key: String(key.key) };
    },
    async patchAccount(id, body) {
      await admin('PATCH', `/accounts/${id}`, body);
    },
  };
}

/** A GET as a client makes it, the key in X-Api-Key. */
export async function httpGet(base: string, path: string, key?: string): Promise<HttpResult> {
  const res = await fetch(base + path, { headers: key ? { 'x-api-key': key } : {} });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the validator reports the content type
  }
  return { status: res.status, body, headers: Object.fromEntries(res.headers) };
}
