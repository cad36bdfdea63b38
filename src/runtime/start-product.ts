import { join } from 'node:path';
import { createAdminVerifier } from '../admin/admin-auth';
import { createAdminApp } from '../admin/create-admin-app';
import type { RuntimeConfig } from '../config/compile-config';
import type { Db } from '../db/db';
import { migrateLogged } from '../db/migrate';
import { assertDataDirFree } from '../db/data-dir-lock';
import { openDb } from '../db/open-db';
import { closeDataDir } from '../util/data-dir';
import { createApp } from '../gateway/create-app';
import type { GatewayApp } from '../gateway/create-app';
import { createGatewayMetrics } from '../observability/gateway-metrics';
import { clusterMetricsSource } from '../observability/cluster-metrics';
import { createOpsRoutes } from '../observability/ops-routes';
import { systemClock } from '../util/clock';
import type { Clock } from '../util/clock';
import type { Logger } from '../util/logger';
import { createLogger } from '../util/logger';
import { resolveAdminSecret, signAdminToken, warnOfAdminSecret } from './admin-secret';
import { configFingerprint, loadConfig, watchConfigDir } from './config-source';
import { createDemoAccounts, findDemoAccounts } from './demo-accounts';
import { localUpstreamPorts, startLocalUpstreams } from './local-upstreams';
import { startBanner } from './start-banner';
import { assertCountersFree } from './counter-snapshot';
import { createCounterStores } from './stores';
import { createGatewayServices } from './gateway-services';
import { UpstreamHealth } from './upstream-health';
import { createAdminServer, createPublicServer, PUBLIC_REQUEST_TIMEOUTS } from './http-servers';
import type { RequestTimeouts } from './http-servers';
import { checkPortsFree, listen } from './listen';
import type { WantedPort } from './listen';
import { PORT_VARIABLES } from '../config/start-only';
import { createConfigReloader } from './config-reloader';
import type { ReloadTrigger } from './config-reloader';
import { removedPlansInUse, warnAccountsOffPlans } from './plans-in-use';
import { readinessChecks } from './readiness-checks';
import { shutdownSequence } from './shutdown-sequence';
import { createProcessState } from '../gateway/process-state';

export interface ProductOptions {
  configDir: string;
  dataDir: string;
  port?: number;
  adminPort?: number;
  databaseUrl?: string;
  /** PostgreSQL: the most connections this process holds (10 by default). */
  databasePoolSize?: number;
  redisUrl?: string;
  adminJwtSecret?: string;
  adminJwksUrl?: string;
  logLevel?: string;
  clock?: Clock;
  logger?: Logger;
  /** Where the start banner (demo keys or accounts, admin token) goes; never the log. */
  print?: (text: string) => void;
  watchConfig?: boolean;
  /** How often CONFIG_DIR's files are compared besides the watch (config-source.ts); 10 s by default. */
  configPollMs?: number;
  /** A node:cluster worker (WORKERS=N): /metrics serves every worker's metrics, through the primary. */
  clusterWorker?: boolean;
  /** Seed the built-in upstreams it runs with sample data on their first start (default true). */
  seedSampleData?: boolean;
  /** The shared counters answered this replica before (a replacement worker): readiness does not wait for them. */
  countersReachedBefore?: boolean;
  /** Called once, when the shared counters first answer (a worker tells its primary). */
  onCountersReached?: () => void;
  /** How long the public port waits for a request's headers, and for the whole of it (tests shorten them). */
  requestTimeouts?: RequestTimeouts;
}

export interface RunningProduct {
  port: number;
  adminPort: number;
  db: Db;
  gateway: GatewayApp;
  /** Validates CONFIG_DIR again and swaps it in; an invalid one keeps the old and says why. */
  reloadConfig(): Promise<boolean>;
  shutdown(): Promise<void>;
}

/**
 * Before PGlite opens DATA_DIR: a product of a version that takes no data-directory lock may still
 * run on it, and opening the files under it (let alone migrating them) would corrupt what it has
 * open. Its lock, when it took one, names it best; its ports tell of it when it did not. A
 * directory open to other users is closed to them (PGlite's files in it are world-writable).
 */
async function guardDataDir(dataDir: string, ports: readonly WantedPort[], logger: Logger): Promise<void> {
  assertDataDirFree(dataDir);
  await checkPortsFree(ports);
  if (closeDataDir(dataDir))
    logger.warn({ data_dir: dataDir }, 'DATA_DIR was open to other users; it is now 0700 (its owner only)');
}

/** The whole product: gateway, admin API and the built-in upstreams whose URL is on this machine. */
export async function startProduct(opts: ProductOptions): Promise<RunningProduct> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(opts.logLevel ?? 'info');
  const print = opts.print ?? ((t: string) => process.stdout.write(t));
  // Taken before the read: an edit made while the process starts is then seen once the watch begins.
  const startedFingerprint = configFingerprint(opts.configDir);
  let config: RuntimeConfig = loadConfig(opts.configDir);
  /** The last reload of CONFIG_DIR was refused (the previous configuration still serves). */
  let reloadFailing = false;
  let draining = false;
  const publicPort = opts.port ?? config.raw.gateway.port;
  const adminPortWanted = opts.adminPort ?? config.raw.gateway.admin_port;
  if (publicPort !== 0 && publicPort === adminPortWanted)
    throw new Error(
      `the admin port (ADMIN_PORT, or gateway.yaml admin_port) must differ from the public port (PORT, or gateway.yaml port): both are ${publicPort}`,
    );
  const embedded = !opts.databaseUrl && !opts.redisUrl;
  if (!opts.databaseUrl)
    await guardDataDir(
      opts.dataDir,
      [
        { port: publicPort, what: 'PORT, or gateway.yaml port' },
        { port: adminPortWanted, what: 'ADMIN_PORT, or gateway.yaml admin_port' },
        ...localUpstreamPorts(config),
      ],
      logger,
    );
  const countersFile = opts.redisUrl ? undefined : join(opts.dataDir, 'usage-counters.json');
  if (countersFile) assertCountersFree(countersFile);
  const db = await openDb({
    databaseUrl: opts.databaseUrl,
    dataDir: opts.dataDir,
    poolSize: opts.databasePoolSize,
    // A connection (or a free one of the pool) waited for no longer than a query is.
    connectTimeoutMs: config.raw.gateway.database_timeout_ms,
  });
  await migrateLogged(db, 'gateway', logger);
  const upstreams = await startLocalUpstreams(config, db, logger, opts.seedSampleData);
  // What serves requests waits for the database a bounded time; migrations and seeding did not.
  const served = db.withQueryTimeout(config.raw.gateway.database_timeout_ms);
  const metrics = createGatewayMetrics();
  const stores = createCounterStores({
    redisUrl: opts.redisUrl,
    gateway: config.raw.gateway,
    windowDays: () => config.raw.gateway.bulk_watch.window_days,
    clock,
    logger,
    metrics,
    // Counted in this process alone (no Redis), with or without PostgreSQL: kept across restarts.
    ...(countersFile ? { countersFile } : {}),
  });
  const { accounts, keyCache, credits, identity, bulkWatch, unsubscribe } = await createGatewayServices({
    db,
    served,
    config: () => config,
    stores,
    clock,
    logger,
    metrics,
  });
  const deps = {
    clock,
    logger,
    accounts,
    keyCache,
    meter: stores.meter,
    credits,
    identity,
    ...createProcessState(config, credits),
    metrics,
    onIdsReturned: (accountId: string, dataset: string, ids: string[], plan: string, lockEnded: boolean) => {
      void bulkWatch.record(accountId, dataset, ids, plan, lockEnded);
    },
  };
  const gateway = createApp(config, deps);
  metrics.readUpstreamLoad(() => gateway.upstreamLoad());

  const { secret, embedded: embeddedSecret } = resolveAdminSecret({ ...opts, embeddedDefault: embedded });
  // A cluster's primary says it once for all its workers (main.ts).
  if (!opts.clusterWorker) warnOfAdminSecret(secret, logger, opts.adminJwksUrl);
  metrics.seed(config);
  const health = new UpstreamHealth(() => config, metrics, logger);
  health.start();
  const adminApp = createAdminApp({
    config: () => config,
    accounts,
    credits,
    meter: stores.meter,
    bus: stores.bus,
    clock,
    logger,
    accountDetails: async (a) => ({
      bulk_watch: {
        window_days: config.raw.gateway.bulk_watch.window_days,
        datasets: await bulkWatch.shares(a.id).catch(() => []),
      },
    }),
    beforeUnlock: (accountId) => bulkWatch.forget(accountId),
    verify: createAdminVerifier({
      secret: opts.adminJwksUrl ? undefined : secret,
      jwksUrl: opts.adminJwksUrl,
    }),
  });
  let countersReached = opts.countersReachedBefore ?? false;
  const reached = (): void => {
    if (countersReached) return;
    countersReached = true;
    opts.onCountersReached?.();
  };
  // At start, not only at the first probe: two workers started together must agree on it, and
  // whichever took no probe before Redis went away would otherwise never be ready.
  stores.whenReachable(reached);
  // As the meter store was made with it (read at start).
  const failClosed = config.raw.gateway.store_failure === 'closed';
  const ops = createOpsRoutes({
    registry: metrics.registry,
    metricsText: opts.clusterWorker ? clusterMetricsSource(metrics.registry) : undefined,
    identity,
    readiness: readinessChecks({
      accepting: () => !draining,
      configCurrent: () => !reloadFailing,
      database: served,
      counters: async () => {
        const ok = await stores.ping();
        if (ok) reached();
        return ok;
      },
      countersReached: () => countersReached,
      failClosed,
      upstreamsUp: () => health.allUp(),
    }),
    onChecked: (results) => {
      for (const [check, ok] of results) metrics.readinessCheck.set({ check }, ok ? 1 : 0);
    },
  });

  const publicServer = createPublicServer(gateway.app, opts.requestTimeouts ?? PUBLIC_REQUEST_TIMEOUTS);
  const adminServer = createAdminServer(ops, adminApp);
  const port = await listen(publicServer, publicPort, 'PORT, or gateway.yaml port');
  const adminPort = await listen(adminServer, adminPortWanted, 'ADMIN_PORT, or gateway.yaml admin_port');

  await warnAccountsOffPlans(accounts, config, logger);
  const created = embedded ? await createDemoAccounts(accounts, config) : undefined;
  const existing = embedded && !created ? await findDemoAccounts(accounts, config) : undefined;
  // The embedded secret's holder is whoever runs this start; an operator's secret is theirs to sign
  // with, so a token for it is printed only with the demo keys of a first start.
  const adminToken =
    secret !== undefined && (embeddedSecret || created !== undefined)
      ? await signAdminToken(secret, clock.now())
      : undefined;
  const banner = startBanner({ port, adminPort, created, existing, adminToken });
  if (banner) print(banner);
  const overridden = [
    ...(opts.port !== undefined ? ['port' as const] : []),
    ...(opts.adminPort !== undefined ? ['admin_port' as const] : []),
  ];
  logger.info(
    {
      port,
      admin_port: adminPort,
      // Which ports gateway.yaml does not set here: the image and the Deployments set both.
      ...(overridden.length > 0 ? { ports_from: overridden.map((k) => PORT_VARIABLES[k]) } : {}),
      embedded,
      upstreams: upstreams.names,
    },
    'lookup api started',
  );

  const reloader = createConfigReloader({
    configDir: opts.configDir,
    started: config,
    overridden,
    startedFingerprint,
    refusals: (next) => Promise.resolve(upstreams.movedBy(next)),
    pending: (next) => removedPlansInUse(accounts, config, next),
    apply: (next) => {
      config = next;
      upstreams.follow(next);
      gateway.reload(next);
      metrics.seed(next);
    },
    metrics,
    logger,
  });
  const reloadConfig = async (how?: ReloadTrigger): Promise<boolean> => {
    const taken = await reloader.reload(how);
    reloadFailing = !taken;
    return taken;
  };
  const stopWatch =
    opts.watchConfig === false
      ? () => undefined
      : watchConfigDir(opts.configDir, () => void reloadConfig('watch'), {
          changed: () => reloader.changed(),
          pollMs: opts.configPollMs,
        });

  const shutdown = (): Promise<void> =>
    shutdownSequence({
      publicServer,
      adminServer,
      logger,
      timeouts: () => ({
        shutdownMs: config.raw.gateway.shutdown_timeout_ms,
        databaseMs: config.raw.gateway.database_timeout_ms,
      }),
      stopAccepting: () => {
        draining = true;
        stopWatch();
      },
      stopHealthPolling: () => health.stop(),
      closers: [
        () => gateway.close(),
        unsubscribe,
        () => upstreams.close(),
        () => stores.close(),
        () => credits.close(),
        () => db.close(),
      ],
    });
  return { port, adminPort, db, gateway, reloadConfig, shutdown };
}
