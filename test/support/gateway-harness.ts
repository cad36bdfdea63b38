import { join } from 'node:path';
import { AccountRepo } from '../../src/accounts/account-repo';
import { KeyCache } from '../../src/accounts/key-cache';
import { newId } from '../../src/accounts/api-keys';
import { issueKey } from '../../src/accounts/issue-key';
import { compileConfig } from '../../src/config/compile-config';
import type { RuntimeConfig } from '../../src/config/compile-config';
import { loadRawConfig } from '../../src/config/load-config';
import type { RawConfig } from '../../src/config/load-config';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openTestPglite } from './pglite-template';
import { BulkWatch } from '../../src/bulk-watch/bulk-watch';
import { DatasetStats } from '../../src/bulk-watch/dataset-stats';
import { createApp } from '../../src/gateway/create-app';
import { InProcessInvalidationBus } from '../../src/stores/invalidation-bus';
import type { GatewayApp } from '../../src/gateway/create-app';
import type { GatewayDeps } from '../../src/gateway/deps';
import { createIdentitySigner } from '../../src/gateway/identity-signer';
import { SqlCreditLedger } from '../../src/metering/credit-ledger';
import { MemoryMeterStore } from '../../src/metering/memory-meter-store';
import type { MeterStore } from '../../src/metering/meter-store';
import { createGatewayMetrics } from '../../src/observability/gateway-metrics';
import { ManualClock } from '../../src/util/clock';
import { silentLogger } from '../../src/util/logger';
import type { Logger } from '../../src/util/logger';
import { startStubUpstream } from './stub-upstream';
import { createProcessState } from '../../src/gateway/process-state';

export const CONFIG_DIR = join(__dirname, '..', '..', 'config');

/** A fixed instant: Thursday 2026-11-19 10:00 in Asia/Ho_Chi_Minh. */
export const T0 = Date.UTC(2026, 10, 19, 3, 0, 0);

export interface Harness {
  gw: GatewayApp;
  config: RuntimeConfig;
  deps: GatewayDeps;
  db: Db;
  clock: ManualClock;
  stub: Awaited<ReturnType<typeof startStubUpstream>>;
  bulkWatch: BulkWatch;
  accounts: AccountRepo;
  /** Creates a verified account on the plan with one key; returns both. */
  account(
    plan: string,
    opts?: { verified?: boolean; ipAllowlist?: string[]; expiresAt?: number | null },
  ): Promise<{ id: string; key: string; keyId: string }>;
  /** Resolves once every bulk-watch recording started by a response so far is done. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** The real config with every upstream pointed at a stub, optionally edited by the test. */
export async function startHarness(
  edit: (raw: RawConfig) => void = () => undefined,
  meter?: MeterStore,
  /** Whether the key cache is told invalidations arrive (the bus is connected); always, unless given. */
  invalidationsLive?: () => boolean,
  /** Where the gateway logs (its access lines included); nowhere, unless given. */
  logger: Logger = silentLogger(),
): Promise<Harness> {
  const stub = await startStubUpstream();
  const raw = loadRawConfig(CONFIG_DIR);
  for (const u of Object.values(raw.upstreams.upstreams)) {
    u.url = stub.url;
    u.timeout_ms = 1000;
  }
  edit(raw);
  const config = compileConfig(raw);
  const db = await openTestPglite();
  await migrate(db, 'gateway');
  const clock = new ManualClock(T0);
  const accounts = new AccountRepo(db);
  const credits = new SqlCreditLedger(db);
  const deps: GatewayDeps = {
    clock,
    logger,
    accounts,
    keyCache: new KeyCache(accounts, clock, {
      ttlMs: 60_000,
      negativeTtlMs: 0,
      maxEntries: 1000,
      invalidationsLive,
    }),
    meter: meter ?? new MemoryMeterStore({ clock }),
    credits,
    identity: await createIdentitySigner({ issuer: 'gw', audience: 'up', ttlSeconds: 120 }, clock),
    ...createProcessState(config, credits),
    metrics: createGatewayMetrics({ defaultMetrics: false }),
  };
  const bus = new InProcessInvalidationBus();
  bus.subscribe((msg) => {
    if (msg.type === 'account') deps.keyCache.invalidateAccount(msg.accountId);
  });
  const bulkWatch = new BulkWatch({
    config: () => config,
    meter: deps.meter,
    accounts,
    bus,
    stats: new DatasetStats(() => config, clock),
    clock,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  // The recordings still running, so a test can wait for them instead of for a fixed time.
  const recording = new Set<Promise<void>>();
  deps.onIdsReturned = (acc, ds, ids, plan, lockEnded) => {
    const done = bulkWatch.record(acc, ds, ids, plan, lockEnded);
    recording.add(done);
    void done.finally(() => recording.delete(done));
  };
  const gw = createApp(config, deps);
  deps.metrics.readUpstreamLoad(() => gw.upstreamLoad()); // as the product's start wires it
  return {
    gw,
    config,
    deps,
    db,
    clock,
    stub,
    accounts,
    bulkWatch,
    async idle() {
      while (recording.size > 0) await Promise.all([...recording]);
    },
    async account(plan, opts = {}) {
      const acc = await accounts.createAccount({
        id: newId('acc_'),
        email: `${newId('u')}@example.vn`,
        plan,
        email_verified: opts.verified ?? true,
      });
      const { key, record } = await issueKey(accounts, acc.id, opts);
      return { id: acc.id, key, keyId: record.id };
    },
    async close() {
      gw.close();
      await deps.meter.close();
      await stub.close();
      await db.close();
    },
  };
}
