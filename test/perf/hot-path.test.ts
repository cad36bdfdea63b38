// Hot-path counts of the gateway (DESIGN §2, step 8): a counted request with a warm key cache costs
// exactly one Redis round trip (the reserve EVALSHA; settling a 200 costs none) and no database
// query. The bulk-extraction watch's recordAndCount runs after the response: one pipeline per
// request (one script call for an account whose lock has ended), never awaited before the
// response is written.
//
// Redis traffic is counted three ways, on the real Redis at TEST_REDIS_URL: commands handed to the
// client (sendCommand, pipelined or not), writes to the client's socket (one per round trip), and
// the server's own MONITOR feed filtered to the gateway connection's address, which sees every
// command that reached Redis whatever the client code did.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { AccountRepo } from '../../src/accounts/account-repo';
import { newId } from '../../src/accounts/api-keys';
import { issueKey } from '../../src/accounts/issue-key';
import { KeyCache } from '../../src/accounts/key-cache';
import { BulkWatch } from '../../src/bulk-watch/bulk-watch';
import { DatasetStats } from '../../src/bulk-watch/dataset-stats';
import { compileConfig } from '../../src/config/compile-config';
import { loadRawConfig } from '../../src/config/load-config';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openTestPglite } from '../support/pglite-template';
import { createApp } from '../../src/gateway/create-app';
import type { GatewayApp } from '../../src/gateway/create-app';
import type { GatewayDeps } from '../../src/gateway/deps';
import { createIdentitySigner } from '../../src/gateway/identity-signer';
import { SqlCreditLedger } from '../../src/metering/credit-ledger';
import { FailoverMeterStore } from '../../src/metering/failover-meter-store';
import { MemoryMeterStore } from '../../src/metering/memory-meter-store';
import { RedisMeterStore } from '../../src/metering/redis-meter-store';
import { recordIdsScript } from '../../src/metering/record-ids-lua';
import { createGatewayMetrics } from '../../src/observability/gateway-metrics';
import { InProcessInvalidationBus } from '../../src/stores/invalidation-bus';
import { createRedisClient, waitForReady } from '../../src/stores/redis-client';
import { ManualClock } from '../../src/util/clock';
import { silentLogger } from '../../src/util/logger';
import { TEST_REDIS_URL } from '../support/databases';
import { CONFIG_DIR } from '../support/gateway-harness';
import { recordingDb } from '../support/recording-db';
import { startStubUpstream } from '../support/stub-upstream';
import { UNLIMITED_PLAN } from '../support/unlimited-plan';
import { createProcessState } from '../../src/gateway/process-state';

interface DbCounts {
  queries: string[];
}

interface RedisCounts {
  /** Commands given to the client: name, and whether they went through a pipeline. */
  commands: { name: string; pipelined: boolean }[];
  /** Writes to the client's socket: a single command or a whole pipeline is one write. */
  writes: number;
  /** Commands Redis itself received from the client's connection (MONITOR). */
  monitored: string[];
}

const prefix = `lkperf${randomBytes(4).toString('hex')}:`;
let stub: Awaited<ReturnType<typeof startStubUpstream>>;
let redis: Redis;
let monitorBase: Redis;
let monitor: Redis;
let rawDb: Db;
let gw: GatewayApp;
let server: Server;
let base: string;
let bulkWatch: BulkWatch;
let accounts: AccountRepo;
const dbCounts: DbCounts = { queries: [] };
const redisCounts: RedisCounts = { commands: [], writes: 0, monitored: [] };
let gate: Promise<void> = Promise.resolve();
const execs: Promise<unknown>[] = [];
/** What the client sees of the bulk watch's exact script (its EVALSHA, or EVAL when Redis lost it). */
const WATCH = 'evalsha (bulk watch)';
const watchScript = recordIdsScript(1);

function reset(): void {
  dbCounts.queries.length = 0;
  redisCounts.commands.length = 0;
  redisCounts.writes = 0;
  redisCounts.monitored.length = 0;
  execs.length = 0;
}

beforeAll(async () => {
  stub = await startStubUpstream();
  const raw = loadRawConfig(CONFIG_DIR);
  for (const u of Object.values(raw.upstreams.upstreams)) u.url = stub.url;
  raw.plans.per_ip_per_minute = 10_000_000;
  raw.plans.plans.hot = { ...UNLIMITED_PLAN, bulk_watch: false };
  raw.plans.plans.watched = { ...UNLIMITED_PLAN, bulk_watch: true };
  const config = compileConfig(raw);

  rawDb = await openTestPglite();
  await migrate(rawDb, 'gateway');
  const db = recordingDb(rawDb, dbCounts.queries);

  redis = createRedisClient(TEST_REDIS_URL);
  await waitForReady(redis);
  const info = String(await redis.client('INFO'));
  const addr = /\baddr=(\S+)/.exec(info)?.[1];
  if (!addr) throw new Error(`no addr in CLIENT INFO: ${info}`);
  monitorBase = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  monitor = await monitorBase.monitor(); // its own connection
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === addr) redisCounts.monitored.push(String(args[0]).toLowerCase());
  });
  // Client side: every command (direct or pipelined) goes through sendCommand; every round trip
  // is one write on the socket (ioredis writes a pipeline as one buffer).
  const sendCommand = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    const head = command.args[0];
    const watch = head === watchScript.sha || head === watchScript.lua;
    redisCounts.commands.push({
      name: watch ? WATCH : command.name.toLowerCase(),
      pipelined: stream !== undefined,
    });
    if (!watch) return sendCommand(command, stream);
    // As the pipelines below: the watch's script waits for the gate.
    execs.push(command.promise.catch(() => undefined));
    return gate.then(() => sendCommand(command, stream));
  };
  const socket = redis.stream;
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = (...args: unknown[]) => {
    redisCounts.writes++;
    return write(...args);
  };
  // Pipelines (bulk watch) wait for the gate: a request that awaited one could not finish meanwhile.
  const pipeline = redis.pipeline.bind(redis);
  redis.pipeline = (commands) => {
    const p = pipeline(commands);
    const exec = p.exec.bind(p);
    p.exec = () => {
      const run = gate.then(() => exec());
      execs.push(run.catch(() => undefined));
      return run;
    };
    return p;
  };

  const clock = new ManualClock(Date.now());
  const meter = new FailoverMeterStore({
    primary: new RedisMeterStore({ redis, prefix }),
    fallback: new MemoryMeterStore({ clock }),
    redis,
    policy: 'closed', // a Redis failure must fail the test, not be counted locally
    clock,
  });
  accounts = new AccountRepo(db);
  const credits = new SqlCreditLedger(db);
  const deps: GatewayDeps = {
    clock,
    logger: silentLogger(),
    accounts,
    keyCache: new KeyCache(accounts, clock, { ttlMs: 600_000, negativeTtlMs: 0, maxEntries: 1000 }),
    meter,
    credits,
    identity: await createIdentitySigner({ issuer: 'gw', audience: 'up', ttlSeconds: 120 }, clock),
    ...createProcessState(config, credits),
    metrics: createGatewayMetrics({ defaultMetrics: false }),
  };
  bulkWatch = new BulkWatch({
    config: () => config,
    meter,
    accounts,
    bus: new InProcessInvalidationBus(),
    stats: new DatasetStats(() => config, clock),
    clock,
    logger: deps.logger,
    metrics: deps.metrics,
  });
  deps.onIdsReturned = (acc, ds, ids, plan, lockEnded) => bulkWatch.record(acc, ds, ids, plan, lockEnded);
  gw = createApp(config, deps);
  server = createServer(gw.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  gate = Promise.resolve();
  await Promise.all(execs);
  await new Promise<void>((r) => {
    server?.close(() => r());
    server?.closeAllConnections();
  });
  gw?.close();
  monitor?.disconnect();
  monitorBase?.disconnect();
  if (redis) {
    const cleaner = new Redis(TEST_REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await cleaner.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await cleaner.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    cleaner.disconnect();
    redis.disconnect();
  }
  await stub?.close();
  await rawDb?.close();
});

async function keyFor(plan: string, restrictedUntil: number | null = null): Promise<string> {
  const acc = await accounts.createAccount({
    id: newId('acc_'),
    email: `${newId('u')}@example.vn`,
    plan,
    email_verified: true,
  });
  if (restrictedUntil !== null) await accounts.patchAccount(acc.id, { restricted_until: restrictedUntil });
  return (await issueKey(accounts, acc.id)).key;
}

async function get(key: string): Promise<number> {
  const r = await fetch(`${base}/v1/legal-documents?q=luat`, { headers: { 'x-api-key': key } });
  const body = (await r.json()) as { success?: boolean };
  if (r.status === 200) expect(body.success).toBe(true);
  return r.status;
}

/**
 * MONITOR lines arrive on another connection: wait until the expected count is in (or 15 s; fewer
 * lines then fail the exact counts that follow).
 */
async function monitoredAtLeast(n: number): Promise<void> {
  const until = Date.now() + 15_000;
  while (redisCounts.monitored.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100)); // and anything that would come after
}

const tally = (xs: string[]): Record<string, number> =>
  xs.reduce<Record<string, number>>((acc, x) => ((acc[x] = (acc[x] ?? 0) + 1), acc), {});

test('N warm counted requests: exactly N Redis round trips (one EVALSHA each), 0 database queries', async () => {
  const key = await keyFor('hot');
  reset();
  expect(await get(key)).toBe(200); // cold: loads the key (and the script, if Redis lost it)
  expect(dbCounts.queries.length).toBeGreaterThan(0);

  const N = 50;
  reset();
  for (let i = 0; i < N; i++) expect(await get(key)).toBe(200);
  // and N more at once: concurrency must not add round trips either
  const statuses = await Promise.all(Array.from({ length: N }, () => get(key)));
  expect(statuses.every((s) => s === 200)).toBe(true);
  await monitoredAtLeast(2 * N);

  const report = {
    requests: 2 * N,
    db_queries: dbCounts.queries.length,
    client_commands: tally(redisCounts.commands.map((c) => c.name)),
    socket_writes: redisCounts.writes,
    server_received: tally(redisCounts.monitored),
  };
  console.log(`hot path, warm key cache: ${JSON.stringify(report)}`);
  expect(dbCounts.queries).toEqual([]);
  expect(redisCounts.commands).toEqual(
    Array.from({ length: 2 * N }, () => ({ name: 'evalsha', pipelined: false })),
  );
  expect(redisCounts.writes).toBe(2 * N);
  expect(redisCounts.monitored).toEqual(Array.from({ length: 2 * N }, () => 'evalsha'));
  expect(execs).toHaveLength(0); // no bulk watch on this plan
}, 60_000);

/**
 * M warm requests of one key while the watch's calls to Redis wait at the gate, then the gate
 * opened: every response came before any of them could run. The socket writes made before it.
 */
async function behindGate(key: string, M: number, monitoredLines: number): Promise<number> {
  expect(await get(key)).toBe(200); // warm the key cache (and the scripts)
  await Promise.all(execs);
  await monitoredAtLeast(1);
  reset();
  let open!: () => void;
  gate = new Promise<void>((r) => (open = r));
  for (let i = 0; i < M; i++) expect(await get(key)).toBe(200);
  expect(execs).toHaveLength(M);
  const writes = redisCounts.writes;
  open();
  await Promise.all(execs);
  await monitoredAtLeast(monitoredLines);
  return writes;
}

test('bulk watch: recordAndCount is one pipeline per request, sent after the response, never awaited by it', async () => {
  const M = 20;
  const writesBeforeGate = await behindGate(await keyFor('watched'), M, 4 * M);
  const pipelined = redisCounts.commands.filter((c) => c.pipelined).map((c) => c.name);
  const direct = redisCounts.commands.filter((c) => !c.pipelined).map((c) => c.name);
  const report = {
    requests: M,
    db_queries: dbCounts.queries.length,
    direct_commands: tally(direct),
    pipelines: execs.length,
    pipelined_commands: tally(pipelined),
    socket_writes: redisCounts.writes,
    server_received: tally(redisCounts.monitored),
  };
  console.log(`hot path with bulk watch (after the response): ${JSON.stringify(report)}`);
  expect(writesBeforeGate).toBe(M); // the reserves alone
  expect(dbCounts.queries).toEqual([]);
  expect(direct).toEqual(Array.from({ length: M }, () => 'evalsha'));
  expect(tally(pipelined)).toEqual({ pfadd: M, expire: M, pfcount: M });
  // M reserves + M pipelines, each one write: two round trips per request, the second after the response.
  expect(redisCounts.writes).toBe(2 * M);
  expect(tally(redisCounts.monitored)).toEqual({ evalsha: M, pfadd: M, expire: M, pfcount: M });
}, 60_000);

test('bulk watch, for an account whose lock has ended: one script call per request, after the response', async () => {
  const M = 20;
  const writesBeforeGate = await behindGate(await keyFor('watched', Date.now() - 86_400_000), M, 2 * M);
  const report = {
    requests: M,
    db_queries: dbCounts.queries.length,
    client_commands: tally(redisCounts.commands.map((c) => c.name)),
    socket_writes: redisCounts.writes,
    server_received: tally(redisCounts.monitored),
  };
  console.log(`hot path with bulk watch, lock ended (after the response): ${JSON.stringify(report)}`);
  expect(writesBeforeGate).toBe(M); // the reserves alone
  expect(dbCounts.queries).toEqual([]);
  expect(redisCounts.commands.filter((c) => c.pipelined)).toEqual([]);
  expect(report.client_commands).toEqual({ evalsha: M, [WATCH]: M });
  expect(redisCounts.writes).toBe(2 * M);
  expect(report.server_received).toEqual({ evalsha: 2 * M });
}, 60_000);
