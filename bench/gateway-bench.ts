// npm run bench [-- flags]
// Side-by-side throughput, latency and CPU per request of the same keep-alive GET through:
//   (a) the upstream stub directly, (b) nginx proxy_pass (one worker), (c) a bare Node proxy doing
//   the envelope rewrite only (bench/bare-proxy.ts, on the gateway's upstream client; (c-http): the
//   same on node's http.request, once), (d) the full gateway (dist build, its own
//   process, Redis + PostgreSQL, a real key, metering/locking/headers/logging on), (e) the gateway
//   with WORKERS=2 (node:cluster, one port).
// (c) and (d) are measured in alternating rounds (c, d, c, d, ...) so that drift of a shared machine
// hits both; the table shows each one's median round and d/c is the median of the per-round ratios.
// With two or more CPUs the server under test runs on the last CPU and the load generator and stub on
// CPU 0 (taskset), so (b), (c) and (d) each get one core of their own; (e) gets all of them.
// Then open-loop rounds at 50% of (d)'s peak, (a), (c) and (d) alternating: the p99 the gateway adds,
// beside what the bare proxy adds.
// Flags: --duration=10 --warmup=3 --rounds=3 --connections=32 --open-seconds=10 --open-warmup=2 --open-first-warmup=20
//        --only=a,b,c-http,c,d,e
//        --log-level=info --cpu-prof (profile gateway (d), summary printed) --no-build --no-pin
//        --keep-log (keep the gateway's log of (d) and print its path)
//        --d-node-args='--trace-gc ...' (more node flags for (d), a diagnosis: with --keep-log its
//        GC lines land in the same log as its access lines; the notes record them)
//        --fixed-rate=N (also (c) and (d) under an open loop at N req/s: CPU per request at equal load)
//        --soak[=300] (one gateway under closed-loop load for N s: RSS and heap over time; nothing
//        else; --d-node-args and --keep-log apply to its gateway)
//        --ab=<revision> (the gateway built from <revision> against the working tree's, alternating
//        rounds; --rounds, --duration, --warmup apply, and --fixed-rate=N makes them open-loop rounds
//        at N req/s with each one's p99; --b-node-args='--flag ...' and --b-log-level=L start B
//        with node flags or another log level, --b-node=<path> on another node binary,
//        --b-env=NAME=value,NAME2= with those environment variables (an empty value leaves one
//        out: --b-env=REDIS_URL= counts in-process); with
//        --fixed-rate, --idle=S measures resumption after S idle seconds instead; --gc-growth runs
//        both with --trace-gc-nvp and gives each round's old-generation growth per request,
//        bench/gc-growth.ts; --a-config runs A on its revision's config files, for a base older than
//        this tree's config schema; nothing else)
//        --sweep[=1,2,4,8,32] ((c) and (d) in closed loop at each number of connections: user and
//        system CPU per request; nothing else) --perf (with --sweep: each one's main thread sampled
//        by perf(1), its CPU per request by kind of work, bench/native-profile.ts)
//        --instructions[=5000] ((c) and (d) under valgrind's callgrind: instructions per request in
//        --rounds rounds of N requests each, after --warm-requests=30000; --keep-log keeps the
//        dumps; nothing else; bench/instruction-count.ts)
// Every gateway runs with the heap a production replica has (bench/deployment-heap.ts: the prod
// overlay's memory limit as Node sizes the heap from it); --d-node-args / --b-node-args can override it.
// Results: bench/results/gateway-<date>.json and gateway-latest.json (soak: gateway-soak-*.json).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import {
  closedLoop,
  cpuSeconds,
  fullGcCount,
  machine,
  processTree,
  rssBytes,
  usPerRequest,
} from './bench-lib';
import type { LoadResult, LoadTarget } from './bench-lib';
import { markdown, median, medianRun, ratio, treeRevision, writeResults } from './gateway-report';
import { instructionCount } from './instruction-count';
import { openLoopRounds } from './open-loop-rounds';
import { OPEN_LOOP_NODE_FLAGS, startOpenLoop } from './open-loop-client';
import type { OpenLoop } from './open-loop-client';
import type { OpenLoopComparison } from './open-loop-rounds';
import type { Measured, Method } from './gateway-report';
import {
  SERVER_NICE,
  STUB_HOST,
  benchConfig,
  benchKey,
  build,
  canPin,
  ensureNginx,
  pinKernelMonitors,
  pinProcess,
  pinSelf,
  startBare,
  startGateway,
  startNginx,
  startStub,
} from './gateway-setup';
import type { Gateway, Server } from './gateway-setup';
import { soak } from './gateway-soak';
import { replicaHeap } from './deployment-heap';
import type { ReplicaHeap } from './deployment-heap';
import { ab, envChanges } from './gateway-ab';
import { sweep } from './concurrency-sweep';
import { perfAvailable } from './native-profile';
import { summarizeProfile } from './profile-summary';
import type { ProfileRow } from './profile-summary';

const DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PATH = '/v1/legal-documents?q=luat';

function flag(name: string): string | undefined {
  const arg = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (arg === undefined) return undefined;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : '';
}
const num = (name: string, dflt: number): number => {
  const v = flag(name);
  return v === undefined || v === '' ? dflt : Number(v);
};

const DURATION = num('duration', 10);
const WARMUP = num('warmup', 3);
const ROUNDS = Math.max(1, num('rounds', 3));
const CONNECTIONS = num('connections', 32);
const OPEN_SECONDS = num('open-seconds', 10);
/** Seconds at the open loop's rate before each measured window (see open-loop-rounds.ts). */
const OPEN_WARMUP = num('open-warmup', 2);
/** Seconds at the rate on each target, once, before the first open-loop round (step 25). */
const OPEN_FIRST_WARMUP = num('open-first-warmup', 20);
const ALL_TARGETS = ['a', 'b', 'c-http', 'c', 'd', 'e'];
// A sweep needs only (c) and (d).
const ONLY = new Set(
  (flag('only') ?? (flag('sweep') !== undefined ? 'c,d' : ALL_TARGETS.join(','))).split(','),
);
const LOG_LEVEL = flag('log-level') ?? 'info';
const CPU_PROF = flag('cpu-prof') !== undefined;
const SOAK = flag('soak');
/** Connections per step of the concurrency sweep (concurrency-sweep.ts), instead of the bench's run. */
const SWEEP = flag('sweep');
/** With --sweep: also sample each server's main thread with perf(1) (native-profile.ts). */
const PERF = flag('perf') !== undefined;
const AB = flag('ab');
const INSTRUCTIONS = flag('instructions');
/** Also measure (c) and (d) at this fixed offered rate (open loop): CPU per request at equal load. */
const FIXED_RATE = num('fixed-rate', 0);
/** Keep (d)'s log file (one JSON line per request, with duration_ms and upstream_ms) and print its path. */
const KEEP_LOG = flag('keep-log') !== undefined;
/** More node flags for (d) only, after npm start's (a diagnosis; (e) runs as the product does). */
const D_NODE_ARGS = (flag('d-node-args') ?? '').split(' ').filter(Boolean);
const notes: string[] = [];
const note = (s: string): void => {
  notes.push(s);
  console.log(`note: ${s}`);
};

/** Whether perf(1) can sample here; a note says so when it cannot. */
function perfOrSay(): boolean {
  if (perfAvailable()) return true;
  note('--perf: perf(1) cannot sample on this machine (not installed, or not allowed); no split by kind');
  return false;
}

// ---------------------------------------------------------------- measuring

async function measure(
  id: string,
  label: string,
  pids: () => number[],
  run: (seconds: number) => Promise<LoadResult & { parts?: LoadResult[] }>,
  opts: { warm?: boolean; counter?: () => Promise<number> } = {},
): Promise<Measured & { counter_delta?: number }> {
  const { warm = true, counter } = opts;
  process.stdout.write(`(${id}) ${label}: ${warm ? `warm-up ${WARMUP}s ... ` : ''}`);
  if (warm && WARMUP > 0) await run(WARMUP);
  const tree = pids().flatMap(processTree);
  const c0 = counter ? await counter() : 0;
  const before = cpuSeconds(tree);
  const r = await run(DURATION);
  const cpu = cpuSeconds(tree) - before;
  const c1 = counter ? await counter() : 0;
  const out: Measured & { counter_delta?: number } = {
    id,
    label,
    ...r,
    cpu_s: Math.round(cpu * 100) / 100,
    cpu_us_per_req: usPerRequest(cpu, r.requests),
    processes: tree.length,
    ...(counter ? { counter_delta: c1 - c0 } : {}),
  };
  console.log(
    `${out.rps} req/s, p50 ${out.p50_ms} ms, p99 ${out.p99_ms} ms, ${out.cpu_us_per_req} µs CPU/req` +
      (out.non2xx || out.errors ? `, non-2xx ${out.non2xx}, errors ${out.errors}` : ''),
  );
  return out;
}

interface AtRate {
  id: string;
  rate: number;
  achieved_rps: number;
  cpu_us_per_req: number;
  p99_ms: number;
}

/** CPU per request of a server under an open loop at a fixed rate: equal load, so equal batching. */
async function cpuAtRate(
  gen: OpenLoop,
  id: string,
  pids: number[],
  t: LoadTarget,
  rate: number,
): Promise<AtRate> {
  process.stdout.write(`(${id}) at ${rate} req/s open loop ... `);
  await gen.run(t, rate, 2, { freshPool: true });
  const tree = pids.flatMap(processTree);
  const before = cpuSeconds(tree);
  const r = await gen.run(t, rate, OPEN_SECONDS);
  const cpu_us_per_req = usPerRequest(cpuSeconds(tree) - before, r.completed);
  console.log(`${cpu_us_per_req} µs CPU/req, p99 ${r.p99_ms} ms`);
  return { id, rate, achieved_rps: r.achieved_rps, cpu_us_per_req, p99_ms: r.p99_ms };
}

async function bodyBytes(t: LoadTarget): Promise<{ status: number; bytes: number }> {
  const r = await fetch(t.url, { headers: t.headers ?? {} });
  const buf = Buffer.from(await r.arrayBuffer());
  return { status: r.status, bytes: buf.length };
}

/** The pid of the Redis at REDIS_URL when it runs on this machine (its INFO pid is one of ours). */
async function localRedisPid(redis: Redis): Promise<number | undefined> {
  const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
  if (!pid) return undefined;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('redis') ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function evalshaCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  const m = /cmdstat_evalsha:calls=(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = machine();
  console.log(`machine: ${started.nproc} × ${started.cpu_model}, load ${started.load_average.join(' ')}`);
  const pin = flag('no-pin') === undefined && canPin(started.nproc);
  const loadCpus = pin ? '0' : undefined;
  const serverCpus = pin ? String(started.nproc - 1) : undefined;
  const allCpus = pin ? `0-${started.nproc - 1}` : undefined;
  if (loadCpus) pinSelf(loadCpus);
  // This process runs autocannon on the load CPU, then only waits through the open loop. Left on,
  // V8's memory reducer collects its idle heap in full about 75 s after the closed loop: 70 ms of
  // work on the load CPU, which fell in the open loop's first windows and made the generator send
  // late there (step 26). `npm run bench` starts it with --no-memory-reducer.
  const reducerOff = process.execArgv.includes('--no-memory-reducer');
  if (!reducerOff)
    note(
      "the bench process runs with V8's memory reducer on (npm run bench turns it off): a full collection of its idle heap can fall in an open-loop window",
    );
  const pinning = pin
    ? `Pinned: server under test on CPU ${serverCpus}; load generator and stub on CPU ${loadCpus}; (e) on CPUs ${allCpus}.`
    : 'Not pinned.';
  const distNote = build(flag('no-build') === undefined, note);
  const revision = treeRevision();
  const cleanup: (() => Promise<void>)[] = [];
  const schema = `bench_gw_${randomBytes(4).toString('hex')}`;
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  await pg.query(`CREATE SCHEMA ${schema}`);
  cleanup.push(async () => {
    await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pg.end();
  });
  const redis = new Redis(REDIS_URL, { lazyConnect: false });
  cleanup.push(() => Promise.resolve(redis.disconnect()));
  // Raising a priority takes root; without it the servers keep the generator's priority.
  const serverPriority = SERVER_NICE;
  let redisPinned = 'Redis not moved';
  if (loadCpus && serverPriority !== undefined) {
    // A local Redis stands in for one on its own machine: off the server's CPU, like the stub.
    const pid = await localRedisPid(redis);
    const restore = pid === undefined ? undefined : pinProcess(pid, loadCpus, serverPriority);
    if (restore) {
      redisPinned = `Redis moved to CPU ${loadCpus} at nice ${serverPriority} for the run (put back after)`;
      cleanup.push(() => Promise.resolve(restore()));
    }
  }
  let monitorsPinned = '';
  if (loadCpus) {
    const monitors = pinKernelMonitors(loadCpus);
    cleanup.push(() => Promise.resolve(monitors.restore()));
    if (monitors.moved.length > 0)
      monitorsPinned = ` The kernel's ${monitors.moved.join(', ')} moved to CPU ${loadCpus} for the run (put back after).`;
  }
  try {
    // At SERVER_NICE, like the servers under test: it stands in for an upstream on its own machine.
    const stub = await startStub(loadCpus);
    cleanup.unshift(() => stub.stop());
    const stubUrl = `http://${STUB_HOST}:${stub.port}`;
    const gen = await startOpenLoop(loadCpus);
    cleanup.unshift(() => gen.close());
    const secret = randomBytes(24).toString('hex');
    const env = {
      CONFIG_DIR: benchConfig(stubUrl),
      DATABASE_URL: `${DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`,
      REDIS_URL,
      ADMIN_JWT_SECRET: secret,
    };
    // Read from the prod overlay (kubectl kustomize) only when a gateway will run.
    const runsGateway =
      AB !== undefined || SOAK !== undefined || INSTRUCTIONS !== undefined || ONLY.has('d') || ONLY.has('e');
    const heap: ReplicaHeap = runsGateway ? replicaHeap() : { flags: [], note: '' };
    if (runsGateway) note(heap.note);
    if (AB) {
      return await ab({
        env,
        secret,
        base: AB,
        rounds: ROUNDS,
        seconds: DURATION,
        warmup: WARMUP,
        connections: CONNECTIONS,
        logLevel: LOG_LEVEL,
        path: PATH,
        cpus: serverCpus,
        rate: FIXED_RATE,
        gen,
        idle: num('idle', 0),
        gcGrowth: flag('gc-growth') !== undefined,
        aConfig: flag('a-config') !== undefined ? (root) => benchConfig(stubUrl, root) : undefined,
        bNodeArgs: flag('b-node-args')?.split(' ').filter(Boolean),
        bLogLevel: flag('b-log-level'),
        bNode: flag('b-node'),
        bEnv: envChanges(flag('b-env')),
        heapFlags: heap.flags,
        keepLog: KEEP_LOG,
        note,
      });
    }
    if (INSTRUCTIONS !== undefined) {
      return await instructionCount({
        env,
        secret,
        stubUrl,
        path: PATH,
        requests: Number(INSTRUCTIONS || 5000),
        rounds: ROUNDS,
        warmRequests: num('warm-requests', 30_000),
        connections: num('connections', 8),
        logLevel: LOG_LEVEL,
        distNote,
        heapFlags: heap.flags,
        extraFlags: D_NODE_ARGS,
        keepDumps: KEEP_LOG,
      });
    }
    if (SOAK !== undefined) {
      const seconds = Number(SOAK || 300);
      return await soak({
        env,
        secret,
        seconds,
        connections: CONNECTIONS,
        logLevel: LOG_LEVEL,
        path: PATH,
        distNote,
        cpus: serverCpus,
        heapFlags: heap.flags,
        extraFlags: D_NODE_ARGS,
        keepLog: KEEP_LOG,
      });
    }

    const rows: Measured[] = [];
    const sizes: Record<string, { status: number; bytes: number }> = {};
    const direct: LoadTarget = { url: `${stubUrl}${PATH}` };
    /** One closed-loop measurement of a server measured once (not in the alternating rounds). */
    const once = async (id: string, label: string, pid: number, t: LoadTarget): Promise<void> => {
      sizes[id] = await bodyBytes(t);
      rows.push(
        await measure(
          id,
          label,
          () => [pid],
          (s) => closedLoop(t, CONNECTIONS, s),
        ),
      );
    };
    if (ONLY.has('a')) await once('a', 'upstream direct', stub.pid, direct);
    if (ONLY.has('b')) {
      const bin = ensureNginx(note);
      if (bin) {
        const nginx = await startNginx(bin, stub.port, serverCpus);
        await once('b', 'nginx proxy_pass, 1 worker', nginx.pid, {
          url: `http://127.0.0.1:${nginx.port}${PATH}`,
        });
        await nginx.stop('SIGQUIT');
      }
    }

    // A hand-rolled proxy on node's own HTTP client: what (c) was before the gateway moved to undici.
    if (ONLY.has('c-http')) {
      const h = await startBare(stubUrl, serverCpus, 'http');
      const t: LoadTarget = { url: `http://127.0.0.1:${h.port}${PATH}` };
      await once('c-http', 'bare Node proxy + envelope, node:http client', h.pid, t);
      await h.stop();
    }

    // (c) and (d) side by side: both servers up, then alternating rounds.
    let bare: (Server & { target: LoadTarget }) | undefined;
    if (ONLY.has('c')) {
      const b = await startBare(stubUrl, serverCpus);
      cleanup.unshift(() => b.stop());
      bare = { ...b, target: { url: `http://127.0.0.1:${b.port}${PATH}` } };
      sizes.c = await bodyBytes(bare.target);
    }
    const profDir = CPU_PROF ? mkdtempSync(join(tmpdir(), 'lk-bench-prof-')) : undefined;
    let gw1: Gateway | undefined;
    let headers: Record<string, string> = {};
    let t1: LoadTarget | undefined;
    if (ONLY.has('d') || ONLY.has('e')) {
      const g = await startGateway({
        env,
        logLevel: LOG_LEVEL,
        cpus: serverCpus,
        nice: SERVER_NICE,
        profDir,
        heapFlags: heap.flags,
        extraFlags: D_NODE_ARGS,
      });
      note(`(d) runs with node ${g.nodeFlags.join(' ')}`);
      if (D_NODE_ARGS.length > 0) note(`(d) runs with these node flags as well: ${D_NODE_ARGS.join(' ')}`);
      gw1 = g;
      cleanup.unshift(() => g.stop());
      headers = { 'x-api-key': await benchKey(g, secret) };
      t1 = { url: `http://127.0.0.1:${g.port}${PATH}`, headers };
      sizes.d = await bodyBytes(t1);
      if (sizes.d.status !== 200) throw new Error(`gateway answered ${sizes.d.status}`);
    }
    if (SWEEP !== undefined) {
      if (!bare || !gw1 || !t1) throw new Error('--sweep measures (c) and (d): do not leave either out');
      return await sweep({
        bare,
        gateway: { ...gw1, target: t1 },
        connections: (SWEEP || '1,2,4,8,32').split(',').map(Number),
        seconds: DURATION,
        warmup: WARMUP,
        perf: PERF && perfOrSay(),
        distNote,
        notes: [...notes, pinning],
      });
    }
    const rounds = { c: [] as Measured[], d: [] as Measured[], dc: [] as number[] };
    let evalsha = 0;
    const atRate: AtRate[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const tag = ROUNDS > 1 ? `, round ${i + 1}/${ROUNDS}` : '';
      if (bare) {
        const b = bare;
        rounds.c.push(
          await measure(
            'c',
            `bare Node proxy + envelope${tag}`,
            () => [b.pid],
            (s) => closedLoop(b.target, CONNECTIONS, s),
            {
              warm: i === 0,
            },
          ),
        );
      }
      if (gw1 && t1 && ONLY.has('d')) {
        const g = gw1;
        const t = t1;
        const m = await measure(
          'd',
          `gateway, 1 process${CPU_PROF ? ' (--cpu-prof)' : ''}${tag}`,
          () => [g.pid],
          (s) => closedLoop(t, CONNECTIONS, s),
          { warm: i === 0, counter: () => evalshaCalls(redis) },
        );
        // Server-wide EVALSHA count (the Redis is shared, so other clients can only add to it).
        evalsha += m.counter_delta ?? 0;
        delete m.counter_delta;
        rounds.d.push(m);
      }
      const c = rounds.c[i];
      const d = rounds.d[i];
      if (c && d) rounds.dc.push(ratio(d.rps, c.rps) ?? 0);
    }
    if (FIXED_RATE > 0 && bare) atRate.push(await cpuAtRate(gen, 'c', [bare.pid], bare.target, FIXED_RATE));
    if (FIXED_RATE > 0 && gw1 && t1 && ONLY.has('d'))
      atRate.push(await cpuAtRate(gen, 'd', [gw1.pid], t1, FIXED_RATE));
    const c = medianRun(rounds.c);
    const d = medianRun(rounds.d);
    if (c) rows.push(c);
    if (d) rows.push(d);
    const dRequests = rounds.d.reduce((s, r) => s + r.requests, 0);
    const evalshaPerReq = dRequests > 0 ? Math.round((evalsha / dRequests) * 1000) / 1000 : null;
    const gatewayRss = gw1 && d ? rssBytes(gw1.pid) : null;

    let open: OpenLoopComparison | undefined;
    if (gw1 && t1 && d && OPEN_SECONDS > 0)
      open = await openLoopRounds(
        gen,
        {
          a: { ...direct, pids: () => processTree(stub.pid) },
          c: bare && { ...bare.target, pids: () => processTree(bare.pid) },
          d: { ...t1, pids: () => processTree(gw1.pid), fullGcs: () => fullGcCount(gw1.adminPort) },
        },
        Math.max(1, Math.round(d.rps / 2)),
        OPEN_SECONDS,
        ROUNDS,
        OPEN_WARMUP,
        serverCpus === undefined ? undefined : Number(serverCpus),
        OPEN_FIRST_WARMUP,
      );
    if (bare) await bare.stop();
    if (gw1) {
      await gw1.stop();
      if (KEEP_LOG) console.log(`gateway log (d): ${gw1.logFile}`);
      else rmSync(gw1.logFile, { force: true });
    }
    if (ONLY.has('e')) {
      const gw2 = await startGateway({
        env: { ...env, WORKERS: '2' },
        logLevel: LOG_LEVEL,
        cpus: allCpus,
        heapFlags: heap.flags,
      });
      cleanup.unshift(() => gw2.stop());
      const t2: LoadTarget = { url: `http://127.0.0.1:${gw2.port}${PATH}`, headers };
      const e = await measure(
        'e',
        'gateway, WORKERS=2 (node:cluster, one port)',
        () => [gw2.pid],
        (s) => closedLoop(t2, CONNECTIONS, s),
      );
      e.note = `primary + 2 workers on CPUs ${allCpus ?? 'all'}, sharing them with the load generator, stub and Redis`;
      rows.push(e);
      await gw2.stop();
      rmSync(gw2.logFile, { force: true });
    }
    let profile: { file: string; top: ProfileRow[] } | undefined;
    if (profDir) {
      const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        const top = summarizeProfile(join(profDir, file), 30);
        profile = { file: join(profDir, file), top };
        console.log(`\nprofile ${join(profDir, file)} (whole gateway run: the (d) rounds and the open loop)`);
        for (const r of top) console.log(`${r.self_pct.toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
      } else note('--cpu-prof: no profile written');
    }

    const by = (id: string): number | undefined => rows.find((r) => r.id === id)?.rps;
    const ratios = {
      'd/c': rounds.dc.length > 0 ? median(rounds.dc) : ratio(by('d'), by('c')),
      'd/b': ratio(by('d'), by('b')),
      'd/c-http': ratio(by('d'), by('c-http')),
      'e/d': ratio(by('e'), by('d')),
    };
    const ended = machine();
    const method: Method = {
      path: PATH,
      connections: CONNECTIONS,
      duration_s: DURATION,
      warmup_s: WARMUP,
      rounds: ROUNDS,
      open_loop_s: OPEN_SECONDS,
      log_level: LOG_LEVEL,
      pinning: `${pinning} ${serverPriority !== undefined ? `Stub and the servers under test (b)-(d), all their threads, at nice ${serverPriority}; the load generators and (e) at 0.` : 'Every process at normal priority (not root).'} ${redisPinned}; PostgreSQL (not on the hot path) untouched.${monitorsPinned} Open loop: its own generator process on CPU ${loadCpus ?? 'any'} (undici, ${OPEN_LOOP_NODE_FLAGS.join(' ')}); the bench process (autocannon) ${reducerOff ? 'with --no-memory-reducer' : "with V8's memory reducer on"}.`,
    };
    const result = {
      date: new Date().toISOString(),
      machine: { ...ended, load_average_at_start: started.load_average },
      build: distNote,
      revision,
      method: {
        ...method,
        cpu: 'utime+stime from /proc/<pid>/stat of the server process tree during the measured run, divided by requests',
        rows: '(c) and (d): the round with the median throughput; d/c: the median of the per-round ratios',
      },
      response_bytes: sizes,
      results: rows,
      rounds,
      ratios,
      open_loop: open
        ? {
            rate: open.rate,
            seconds: open.seconds,
            warmup_s: open.warmup_s,
            first_warmup_s: open.first_warmup_s,
            a: open.median.a,
            c: open.median.c,
            d: open.median.d,
            p99_added_ms: open.median.p99_added_ms,
            c_p99_added_ms: open.c_p99_added_ms,
            from_send_p99_added_ms: open.from_send_p99_added_ms,
            c_from_send_p99_added_ms: open.c_from_send_p99_added_ms,
            rounds: open.rounds,
          }
        : null,
      fixed_rate: atRate.length > 0 ? atRate : null,
      redis_evalsha_per_gateway_request: evalshaPerReq,
      gateway_rss_after_load_mb: gatewayRss === null ? null : Math.round(gatewayRss / 1048576),
      profile,
      notes,
    };
    // A run of some targets only, or a profiled one, is not the bench's result: kept apart.
    const partial = CPU_PROF || ALL_TARGETS.some((t) => !ONLY.has(t));
    const file = writeResults(partial ? 'gateway-partial' : 'gateway', result);
    console.log(`\n${markdown(ended, method, rows, rounds, open, ratios, notes)}\n\nwritten: ${file}`);
  } finally {
    for (const c of cleanup) await c().catch((err: unknown) => console.error('cleanup:', err));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
