import { AccountRepo } from '../accounts/account-repo';
import { KeyCache } from '../accounts/key-cache';
import { BulkWatch } from '../bulk-watch/bulk-watch';
import { DatasetStats } from '../bulk-watch/dataset-stats';
import type { RuntimeConfig } from '../config/compile-config';
import type { Db } from '../db/db';
import { SqlSigningKeyStore } from '../gateway/identity-key-store';
import { createIdentitySigner } from '../gateway/identity-signer';
import type { IdentitySigner } from '../gateway/identity-signer';
import { SqlCreditLedger } from '../metering/credit-ledger';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import type { Clock } from '../util/clock';
import type { Logger } from '../util/logger';
import { refundReports } from './refund-reports';
import type { CounterStores } from './stores';

/** What the public pipeline and the admin API share, over the database and the counter stores. */
export interface GatewayServices {
  accounts: AccountRepo;
  keyCache: KeyCache;
  credits: SqlCreditLedger;
  identity: IdentitySigner;
  bulkWatch: BulkWatch;
  /** Stops the key cache following the stores' invalidation bus. */
  unsubscribe: () => void;
}

export async function createGatewayServices(opts: {
  /** Migrations' database: the signing keys are read once at start, without the served bound. */
  db: Db;
  /** The database as requests use it, each query bounded by gateway.yaml database_timeout_ms. */
  served: Db;
  config: () => RuntimeConfig;
  stores: CounterStores;
  clock: Clock;
  logger: Logger;
  metrics: GatewayMetrics;
}): Promise<GatewayServices> {
  const { clock, logger, metrics, stores, config } = opts;
  const accounts = new AccountRepo(opts.served);
  // The cache's bounds are read at start; a reload does not resize a cache in use.
  const kc = config().raw.gateway.key_cache;
  const keyCache = new KeyCache(
    accounts,
    clock,
    {
      ttlMs: kc.ttl_seconds * 1000,
      negativeTtlMs: kc.negative_ttl_seconds * 1000,
      maxEntries: kc.max_entries,
      invalidationsLive: () => stores.bus.live(),
    },
    (hit) => metrics.keyCacheLookups.inc({ result: hit ? 'hit' : 'miss' }),
  );
  const unsubscribe = stores.bus.subscribe((msg) => {
    if (msg.type === 'account') keyCache.invalidateAccount(msg.accountId);
    else if (msg.type === 'key') keyCache.invalidateKey(msg.keyHash);
    else keyCache.clear(); // config, or resync: the bus's delivery was cut or resumed
  });
  const credits = new SqlCreditLedger(
    opts.served,
    refundReports(logger, metrics, {
      kept: 'credit refund kept until the database answers',
      lost: 'credit refund lost: the credit stays spent',
    }),
  );
  const id = config().raw.gateway.identity;
  const identity = await createIdentitySigner(
    { issuer: id.issuer, audience: id.audience, ttlSeconds: id.ttl_seconds },
    clock,
    new SqlSigningKeyStore(opts.db),
  );
  const bulkWatch = new BulkWatch({
    config,
    meter: stores.meter,
    accounts,
    bus: stores.bus,
    // The gateway's own calls name it as their account (the bulk watch's dataset sizes).
    stats: new DatasetStats(
      config,
      clock,
      (upstream) => identity.authorization(upstream, 'gateway', 'system'),
      logger,
      metrics,
    ),
    clock,
    logger,
    metrics,
  });
  return { accounts, keyCache, credits, identity, bulkWatch, unsubscribe };
}
