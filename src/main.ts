// Entry point: the only place that reads process.env (DESIGN §5) and installs signal handlers.
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { ConfigError } from './config/load-config';
import { DataDirError } from './util/data-dir';
import { drainServers } from './util/drain-servers';
import { openDb } from './db/open-db';
import { serveClusterMetrics } from './observability/cluster-metrics';
import { warnOfAdminSecret } from './runtime/admin-secret';
import { productEnvProblem, readEnv } from './runtime/env-schema';
import { PortUnavailableError, listen } from './runtime/listen';
import { prepareBuiltin } from './runtime/prepare-builtin';
import { makeGlobalsPlain } from './runtime/plain-globals';
import { COUNTERS_REACHED, WORKER_READY, runPrimary } from './runtime/run-primary';
import { startProduct } from './runtime/start-product';
import { createWorkerRestarts } from './runtime/worker-restarts';
import { answerPings, createLivenessWatch } from './runtime/worker-liveness';
import { BUILTIN_UPSTREAMS, builtinUpstream } from './upstreams/builtin-upstreams';
import { remoteIdentityVerifier, upstreamAudience } from './upstream-kit/verify-identity';
import { monotonicClock, systemClock } from './util/clock';
import { batchedDestination, createLogger } from './util/logger';

makeGlobalsPlain();
const output = batchedDestination();
// Lines still in the batch (the last access lines of a drain, a shutdown error) are written at exit.
process.on('exit', () => output.flushSync());
const [command, arg] = process.argv.slice(2);
/** A variable that cannot be right: one JSON line naming it and what it must be, and exit 1. */
function invalidEnvironment(p: { variable: string; reason: string }): never {
  createLogger('info', output).fatal(
    { variable: p.variable, reason: p.reason },
    `invalid environment: ${p.variable} ${p.reason}`,
  );
  process.exit(1);
}
const read = readEnv(process.env);
if (!read.ok) invalidEnvironment(read);
const problem = command === 'upstream' ? undefined : productEnvProblem(read.env);
if (problem) invalidEnvironment(problem);
const env = read.env;
const logger = createLogger(env.LOG_LEVEL, output);
// A throw or a rejection nobody handles still ends the process (Node's default, and the orchestrator
// restarts it), but first says why in a JSON line that log pipelines read like every other.
process.on('uncaughtExceptionMonitor', (err, origin) =>
  logger.fatal(
    { err, origin },
    origin === 'unhandledRejection' ? 'unhandled promise rejection: exiting' : 'uncaught exception: exiting',
  ),
);

async function runProduct(): Promise<void> {
  // Listened for from the first moment: node's default for SIGHUP ends the process, and a reload
  // asked while this one starts (a WORKERS=N primary passes every SIGHUP on) is made once it runs.
  const hup = {
    asked: false,
    reload: (): void => {
      hup.asked = true;
    },
  };
  process.on('SIGHUP', () => hup.reload());
  const product = await startProduct({
    configDir: env.CONFIG_DIR,
    dataDir: env.DATA_DIR,
    port: env.PORT,
    adminPort: env.ADMIN_PORT,
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    redisUrl: env.REDIS_URL,
    adminJwtSecret: env.ADMIN_JWT_SECRET,
    adminJwksUrl: env.ADMIN_JWKS_URL,
    logger,
    clusterWorker: cluster.isWorker,
    seedSampleData: env.SEED_SAMPLE_DATA,
    countersReachedBefore: env.LOOKUP_COUNTERS_REACHED,
    ...(cluster.isWorker ? { onCountersReached: () => process.send?.(COUNTERS_REACHED) } : {}),
  });
  // A cluster worker tells the primary its start went through, then answers its pings (run-primary.ts).
  if (cluster.isWorker) {
    answerPings(process);
    process.send?.(WORKER_READY);
  }
  exitAfterDrain({}, () => product.shutdown());
  hup.reload = () => void product.reloadConfig();
  if (hup.asked) hup.reload();
}

/**
 * On SIGTERM or SIGINT, once: drain, then exit 0 (1 when the drain fails). A second SIGINT during
 * the drain exits at once with 130: someone at a terminal pressing Ctrl-C again does not want to
 * wait out the drain; an orchestrator repeating SIGTERM is ignored, its SIGKILL comes anyway.
 */
function exitAfterDrain(fields: Record<string, string>, drain: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping && signal === 'SIGINT') {
      logger.warn({ ...fields, signal }, 'second interrupt: exiting without waiting for the drain');
      process.exit(130);
    }
    if (stopping) return;
    stopping = true;
    logger.info({ ...fields, signal }, 'shutting down: draining in-flight requests');
    const t0 = Date.now();
    drain().then(
      () => {
        // A clean stop says so: without this line it read in the logs like a SIGKILL.
        logger.info({ ...fields, ms: Date.now() - t0 }, 'stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Within Kubernetes' 30 s grace period after the 5 s preStop, as the gateway's default drain. */
const UPSTREAM_DRAIN_MS = 10_000;

/** `node dist/main.js upstream <name>`: one built-in upstream on PORT (a Kubernetes Deployment). */
async function runUpstream(name: string): Promise<void> {
  const builtin = builtinUpstream(name);
  if (!builtin)
    throw new Error(`no built-in upstream "${name}" (have: ${Object.keys(BUILTIN_UPSTREAMS).join(', ')})`);
  const db = await openDb({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    poolSize: env.DATABASE_POOL_SIZE,
  });
  await prepareBuiltin(db, builtin, logger, env.SEED_SAMPLE_DATA);
  const identity = env.IDENTITY_JWKS_URL
    ? remoteIdentityVerifier(env.IDENTITY_JWKS_URL, {
        issuer: env.IDENTITY_ISSUER,
        audience: upstreamAudience(env.IDENTITY_AUDIENCE, name),
      })
    : undefined;
  // Its requests' queries end when the gateway stops waiting (its timeout_ms): one that ran on
  // would hold a pool connection, and a full pool fails /healthz on every replica at once.
  const served = db.withQueryTimeout(env.QUERY_TIMEOUT_MS);
  const server = createServer(
    builtin.createApp({
      db: served,
      setupDb: db,
      logger: logger.child({ upstream: name }),
      identity,
    }),
  );
  server.keepAliveTimeout = 65_000;
  const port = await listen(server, env.PORT ?? 8080, 'PORT');
  logger.info({ upstream: name, port, verifies_identity: identity !== undefined }, 'upstream started');
  exitAfterDrain({ upstream: name }, async () => {
    await drainServers([server], UPSTREAM_DRAIN_MS);
    await db.close();
  });
}

/**
 * WORKERS=N (N > 1): N gateway processes sharing the ports through node:cluster. Only with shared
 * state (DATABASE_URL and REDIS_URL): PGlite and in-memory counters belong to one process.
 */
function startPrimary(workers: number): void {
  if (!env.DATABASE_URL || !env.REDIS_URL) {
    logger.fatal({ workers }, 'WORKERS > 1 needs DATABASE_URL and REDIS_URL (state shared by the workers)');
    process.exit(1);
  }
  warnOfAdminSecret(env.ADMIN_JWT_SECRET, logger, env.ADMIN_JWKS_URL);
  serveClusterMetrics(cluster);
  const primary = runPrimary(workers, {
    cluster,
    logger,
    restarts: createWorkerRestarts(systemClock),
    liveness: createLivenessWatch(env.WORKER_LIVENESS_TIMEOUT_MS, { clock: monotonicClock, logger }),
    livenessTickMs: Math.ceil(env.WORKER_LIVENESS_TIMEOUT_MS / 4),
    exit: (code) => process.exit(code),
  });
  process.on('SIGTERM', () => primary.stop());
  process.on('SIGINT', () => primary.stop());
  process.on('SIGHUP', () => primary.reload());
}

const workers = env.WORKERS ?? 1;
if (command !== 'upstream' && workers > 1 && cluster.isPrimary) startPrimary(workers);
else
  (command === 'upstream' ? runUpstream(arg ?? '') : runProduct()).catch((err: unknown) => {
    if (err instanceof ConfigError)
      logger.fatal(
        { file: err.file, path: err.path, reason: err.reason },
        `invalid configuration: ${err.message}`,
      );
    // A DATA_DIR that cannot be used or that another process holds, a port taken: the operator's to
    // resolve, said without a stack.
    else if (err instanceof DataDirError || err instanceof PortUnavailableError)
      logger.fatal(`failed to start: ${err.message}`);
    else logger.fatal({ err }, 'failed to start');
    process.exit(1);
  });
