import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capturedLog } from '../../test/support/captured-log';
import { clusterProductOptions, copyConfig, httpGet, startE2eProduct } from '../../test/openapi/e2e-support';
import type { E2eProduct } from '../../test/openapi/e2e-support';
import { startProduct } from './start-product';
import type { RunningProduct } from './start-product';

const quotaLimit = async (base: string, key: string): Promise<string | null> =>
  (await fetch(`${base}/v1/me`, { headers: { 'x-api-key': key } })).headers.get('x-quota-limit');
const perPage = async (base: string, key: string): Promise<number> =>
  ((await httpGet(base, '/v1/bailiff-offices?per_page=500', key)).body as { meta: { per_page: number } }).meta
    .per_page;

async function until(fn: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await new Promise((r) => setTimeout(r, 100)))
    if (await fn()) return true;
  return false;
}

describe('a reload asked for (SIGHUP)', () => {
  let e: E2eProduct;
  let plansFile: string;
  let plans: string;
  beforeAll(async () => {
    // Reloads are read from /v1/me and the admin API: no sample rows needed.
    e = await startE2eProduct({ seedSampleData: false });
    plansFile = join(e.configDir, 'plans.yaml');
    plans = readFileSync(plansFile, 'utf8');
  }, 120_000);
  afterEach(() => writeFileSync(plansFile, plans));
  afterAll(async () => {
    await e?.product.shutdown();
    if (e) rmSync(e.root, { recursive: true, force: true });
  });

  it('refuses a plans.yaml that renames a plan accounts are on, and their plan keeps serving', async () => {
    const { key } = await e.account('enterprise');
    expect(await quotaLimit(e.base, key)).toBe('1000000');
    writeFileSync(plansFile, plans.replace(/^ {2}enterprise:/m, '  enterprice:'));
    expect(await e.product.reloadConfig()).toBe(false);
    expect(await quotaLimit(e.base, key)).toBe('1000000');
    writeFileSync(plansFile, plans.replace(/^ {2}enterprise:.*\n/m, ''));
    expect(await e.product.reloadConfig()).toBe(false);
    expect(await quotaLimit(e.base, key)).toBe('1000000');
  });

  it('takes a plan added, and its removal while no account is on it', async () => {
    const trial =
      '  trial: { monthly_calls: 5, daily_calls: 5, per_minute: 5, per_second: 1, per_page_max: 5, max_page: 1, full_text_daily: 0, ip_allowlist: false, extra_credits: false, bulk_watch: true }\n';
    const trialPlan = () => e.product.gateway.config().plans.get('trial');
    writeFileSync(plansFile, plans.trimEnd() + '\n' + trial);
    expect(await e.product.reloadConfig()).toBe(true);
    expect(trialPlan()).toMatchObject({ monthly_calls: 5, per_page_max: 5 });
    writeFileSync(plansFile, plans);
    expect(await e.product.reloadConfig()).toBe(true);
    expect(trialPlan()).toBeUndefined();
  });

  it('refuses an empty gateway.yaml instead of resetting every gateway setting to its default', async () => {
    const gatewayFile = join(e.configDir, 'gateway.yaml');
    const gateway = readFileSync(gatewayFile, 'utf8');
    try {
      writeFileSync(gatewayFile, '');
      expect(await e.product.reloadConfig()).toBe(false);
      writeFileSync(gatewayFile, '# every setting commented out\n');
      expect(await e.product.reloadConfig()).toBe(false);
      writeFileSync(gatewayFile, '{}\n');
      expect(await e.product.reloadConfig()).toBe(true);
    } finally {
      writeFileSync(gatewayFile, gateway);
      expect(await e.product.reloadConfig()).toBe(true);
    }
  });
});

describe('the files watched', () => {
  let root: string;
  let configDir: string;
  let product: RunningProduct | undefined;
  let proKey = '';
  const edit = (dir: string, from: string, to: string): void => {
    const file = join(dir, 'plans.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
  };
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lookup-reload-'));
    configDir = await copyConfig(root);
    product = await startProduct({
      ...(await clusterProductOptions(root, configDir)),
      // What is read is the gateway's meta: no sample rows needed (they take half of a first start).
      seedSampleData: false,
      watchConfig: true,
      // Longer than the first test waits: what it sees is the check made when the watch begins.
      configPollMs: 4_000,
      // The banner is printed after the files were read and before the watch begins: an edit made
      // then is one a ConfigMap update landing while a pod starts makes.
      print: (text) => {
        proKey = /^ +pro +(\S+) +\(demo-pro@/m.exec(text)?.[1] ?? '';
        edit(configDir, 'per_page_max: 100,', 'per_page_max: 7,');
      },
    });
  }, 120_000);
  afterAll(async () => {
    await product?.shutdown();
    rmSync(root, { recursive: true, force: true });
  });

  it('takes an edit made while the process was starting, once it has started', async () => {
    const base = `http://127.0.0.1:${product!.port}`;
    expect(proKey).not.toBe('');
    expect(await until(async () => (await perPage(base, proKey)) === 7, 2_000)).toBe(true);
  });

  it('takes a change after CONFIG_DIR was replaced as a whole, which a watch on the old one misses', async () => {
    const base = `http://127.0.0.1:${product!.port}`;
    renameSync(configDir, `${configDir}-old`);
    cpSync(`${configDir}-old`, configDir, { recursive: true });
    // The old directory's watch reports its move, once: the edit comes after that has passed.
    await new Promise((r) => setTimeout(r, 1_000));
    edit(configDir, 'per_page_max: 7,', 'per_page_max: 9,');
    expect(await until(async () => (await perPage(base, proKey)) === 9, 15_000)).toBe(true);
  });
});

describe('a start with accounts on a plan plans.yaml no longer has', () => {
  it('warns, naming the plan, its accounts and the plan they are served as', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lookup-offplan-'));
    try {
      const configDir = await copyConfig(root);
      const noSamples = { ...(await clusterProductOptions(root, configDir)), seedSampleData: false };
      await (await startProduct(noSamples)).shutdown();
      const plansFile = join(configDir, 'plans.yaml');
      writeFileSync(plansFile, readFileSync(plansFile, 'utf8').replace(/^ {2}enterprise:.*\n/m, ''));
      const { logger, lines } = capturedLog();
      await (await startProduct({ ...noSamples, logger })).shutdown();
      const warning = lines.find((l) => String(l.msg).startsWith('accounts are on plans'));
      expect(warning).toMatchObject({ plans: { enterprise: 1 }, served_as: 'free' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
