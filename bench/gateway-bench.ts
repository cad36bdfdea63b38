// npm run bench [-- flags]
// Side-by-side throughput, latency and CPU per request of the same keep-alive GET through:
//   (a) the upstream stub directly, (b) nginx proxy_pass (one worker), (c) a bare Node proxy doing
//   the envelope rewrite only (bench/bare-proxy.ts), (d) the full gateway (dist build, its own
//   process, Redis + PostgreSQL, a real key, metering/locking/headers/logging on), (e) two gateway
//   processes on separate ports with the connections split between them (no cluster mode yet).
// Then an open-loop run at 50% of (d)'s peak on (a) and (d): the p99 the gateway adds.
// Flags: --duration=10 --warmup=3 --connections=32 --open-seconds=10 --only=a,b,c,d,e
//        --log-level=info --cpu-prof (profile gateway (d), summary printed) --no-build
//        --soak[=300] (one gateway under closed-loop load for N s: RSS and heap over time; nothing else)
// Results: bench/results/gateway-<date>.json and gateway-latest.json (soak: gateway-soak-*.json).
import { execFileSync, execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { parseDocument } from 'yaml';
import { signAdminToken } from '../src/runtime/admin-secret';
import {
  closedLoop,
  closedLoopSplit,
  cpuSeconds,
  freePort,
  machine,
  openLoop,
  processTree,
  rssBytes,
  sleep,
  spawnChild,
  waitForHttp,
} from './bench-lib';
import type { Child, LoadResult, LoadTarget, Machine, OpenLoopResult } from './bench-lib';
import { summarizeProfile } from './profile-summary';
import type { ProfileRow } from './profile-summary';

const ROOT = resolve(__dirname, '..');
const DIST = join(ROOT, 'var', 'bench-dist');
const RESULTS = join(ROOT, 'bench', 'results');
const DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const STUB_HOST = '127.0.0.2';
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
const CONNECTIONS = num('connections', 32);
const OPEN_SECONDS = num('open-seconds', 10);
const ONLY = new Set((flag('only') ?? 'a,b,c,d,e').split(','));
const LOG_LEVEL = flag('log-level') ?? 'info';
const CPU_PROF = flag('cpu-prof') !== undefined;
const SOAK = flag('soak');
const notes: string[] = [];
const note = (s: string): void => {
  notes.push(s);
  console.log(`note: ${s}`);
};

// ---------------------------------------------------------------- setup

function build(): string {
  if (flag('no-build') !== undefined && existsSync(join(DIST, 'main.js'))) return 'dist (not rebuilt)';
  try {
    execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', DIST], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    return 'dist build of the working tree';
  } catch (err) {
    // tsc emits even with type errors; a half-edited tree still runs if main.js came out.
    if (!existsSync(join(DIST, 'main.js'))) throw err;
    const out = (err as { stdout?: Buffer }).stdout?.toString().split('\n').slice(0, 3).join(' | ') ?? '';
    note(`tsc reported errors while building the working tree (emitted anyway): ${out}`);
    return 'dist build of the working tree (with type errors)';
  }
}

function benchConfig(stubUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lk-bench-config-'));
  cpSync(join(ROOT, 'config'), dir, { recursive: true });
  const edit = (file: string, fn: (doc: ReturnType<typeof parseDocument>) => void): void => {
    const doc = parseDocument(readFileSync(join(dir, file), 'utf8'));
    fn(doc);
    writeFileSync(join(dir, file), doc.toString());
  };
  edit('upstreams.yaml', (doc) => {
    const ups = doc.getIn(['upstreams']) as { items: { key: { value: string } }[] };
    for (const item of ups.items) {
      doc.setIn(['upstreams', item.key.value, 'url'], stubUrl);
      doc.setIn(['upstreams', item.key.value, 'pool_size'], 64);
    }
  });
  edit('plans.yaml', (doc) => {
    doc.set('per_ip_per_minute', 10_000_000);
    doc.setIn(
      ['plans', 'bench'],
      doc.createNode({
        monthly_calls: 1_000_000_000,
        daily_calls: 1_000_000_000,
        per_minute: 1_000_000_000,
        per_second: 1_000_000_000,
        per_page_max: 100,
        max_page: 1000,
        full_text_daily: 1000,
        ip_allowlist: true,
        extra_credits: false,
        bulk_watch: false,
      }),
    );
  });
  return dir;
}

interface Gateway extends Child {
  port: number;
  adminPort: number;
  logFile: string;
}

async function startGateway(env: Record<string, string>, profDir?: string): Promise<Gateway> {
  const port = await freePort();
  const adminPort = await freePort();
  const logDir = mkdtempSync(join(tmpdir(), 'lk-bench-gw-'));
  const logFile = join(logDir, 'gateway.log');
  const fd = openSync(logFile, 'a');
  const args = [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), join(DIST, 'main.js')];
  const child = spawnChild(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      DATA_DIR: logDir,
      LOG_LEVEL: LOG_LEVEL,
      ...env,
    },
    stdio: ['ignore', fd, fd],
  });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/v1/me`, 120_000);
  } catch (err) {
    await child.stop('SIGKILL');
    throw new Error(`${(err as Error).message}\n${readFileSync(logFile, 'utf8').slice(-3000)}`);
  }
  return { ...child, port, adminPort, logFile };
}

async function benchKey(gw: Gateway, secret: string): Promise<string> {
  const token = await signAdminToken(secret, Date.now(), 3600);
  const call = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const r = await fetch(`http://127.0.0.1:${gw.adminPort}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await r.json()) as Record<string, unknown>;
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const acc = await call('/admin/accounts', {
    email: `bench-${randomBytes(4).toString('hex')}@example.vn`,
    plan: 'bench',
    email_verified: true,
  });
  const key = await call(`/admin/accounts/${String(acc.id)}/keys`, {});
  return String(key.key);
}

function ensureNginx(): string | undefined {
  const which = (): string | undefined => {
    try {
      return execSync('command -v nginx', { stdio: 'pipe', shell: '/bin/sh' }).toString().trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const found = which();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    note('nginx is not installed and this is not root: (b) skipped (apt-get install -y nginx)');
    return undefined;
  }
  try {
    console.log('installing nginx (apt-get) ...');
    execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx', {
      stdio: 'pipe',
      shell: '/bin/sh',
    });
  } catch (err) {
    note(`apt-get install nginx failed: (b) skipped (${(err as Error).message.slice(0, 200)})`);
  }
  return which();
}

async function startNginx(bin: string, upstreamPort: number): Promise<Child & { port: number }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lk-bench-nginx-'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${dir}/${t};`)
    .join('\n');
  const conf = `
worker_processes 1;
${process.getuid?.() === 0 ? 'user root;' : ''}
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
${temp}
  upstream stub { server ${STUB_HOST}:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 1000000;
    location / {
      proxy_pass http://stub;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawnChild(
    bin,
    ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  await waitForHttp(`http://127.0.0.1:${port}/`, 20_000);
  return { ...child, port };
}

// ---------------------------------------------------------------- measuring

interface Measured extends LoadResult {
  id: string;
  label: string;
  cpu_s: number;
  cpu_us_per_req: number;
  processes: number;
  note?: string;
  parts?: LoadResult[];
}

async function measure(
  id: string,
  label: string,
  pids: () => number[],
  run: (seconds: number) => Promise<LoadResult & { parts?: LoadResult[] }>,
  counter?: () => Promise<number>,
): Promise<Measured & { counter_delta?: number }> {
  process.stdout.write(`(${id}) ${label}: warm-up ${WARMUP}s ... `);
  if (WARMUP > 0) await run(WARMUP);
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
    cpu_us_per_req: r.requests > 0 ? Math.round((cpu / r.requests) * 1e6) : 0,
    processes: tree.length,
    ...(counter ? { counter_delta: c1 - c0 } : {}),
  };
  console.log(
    `${out.rps} req/s, p50 ${out.p50_ms} ms, p99 ${out.p99_ms} ms, ${out.cpu_us_per_req} µs CPU/req` +
      (out.non2xx || out.errors ? `, non-2xx ${out.non2xx}, errors ${out.errors}` : ''),
  );
  return out;
}

async function bodyBytes(t: LoadTarget): Promise<{ status: number; bytes: number }> {
  const r = await fetch(t.url, { headers: t.headers ?? {} });
  const buf = Buffer.from(await r.arrayBuffer());
  return { status: r.status, bytes: buf.length };
}

async function evalshaCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  const m = /cmdstat_evalsha:calls=(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}

const ratio = (x: number | undefined, y: number | undefined): number | null =>
  x !== undefined && y !== undefined && y > 0 ? Math.round((x / y) * 1000) / 1000 : null;

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function writeResults(name: string, data: unknown): string {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${name}-${today()}.json`);
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  writeFileSync(join(RESULTS, `${name}-latest.json`), JSON.stringify(data, null, 2) + '\n');
  return file;
}

function markdown(
  m: Machine,
  rows: Measured[],
  open: OpenLoopResult[],
  ratios: Record<string, number | null>,
): string {
  const lines = [
    `Machine: ${m.nproc} × ${m.cpu_model}, Node ${m.node}, load average ${m.load_average.join(' / ')} (1/5/15 min) at the end.`,
    `Load: autocannon, keep-alive, ${CONNECTIONS} connections, ${DURATION} s after ${WARMUP} s warm-up, GET ${PATH} (upstream body ≈2 KB).`,
    '',
    '| target | req/s | p50 ms | p99 ms | CPU µs/req (server) | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| (${r.id}) ${r.label} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.cpu_us_per_req} | ${r.non2xx} / ${r.errors} |`,
    ),
    '',
    `Ratios (throughput): d/c = ${ratios['d/c'] ?? 'n/a'}, d/b = ${ratios['d/b'] ?? 'n/a'}, e/d = ${ratios['e/d'] ?? 'n/a'}.`,
  ];
  if (open.length === 2) {
    const [a, d] = open as [OpenLoopResult, OpenLoopResult];
    lines.push(
      '',
      `Open loop at ${a.target_rps} req/s (50% of (d)'s peak), ${OPEN_SECONDS} s, latency from scheduled start:`,
      '',
      '| target | achieved req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | non-2xx / errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| (a) upstream direct | ${a.achieved_rps} | ${a.p50_ms} | ${a.p90_ms} | ${a.p99_ms} | ${a.p999_ms} | ${a.non2xx} / ${a.errors} |`,
      `| (d) gateway | ${d.achieved_rps} | ${d.p50_ms} | ${d.p90_ms} | ${d.p99_ms} | ${d.p999_ms} | ${d.non2xx} / ${d.errors} |`,
      '',
      `p99 added by the gateway over (a): ${Math.round((d.p99_ms - a.p99_ms) * 100) / 100} ms (p50: ${Math.round((d.p50_ms - a.p50_ms) * 100) / 100} ms).`,
    );
  }
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = machine();
  console.log(`machine: ${started.nproc} × ${started.cpu_model}, load ${started.load_average.join(' ')}`);
  const distNote = build();
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
  try {
    const stub = spawnChild(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'bench', 'upstream-stub.ts'), STUB_HOST, '0'],
      {
        cwd: ROOT,
      },
    );
    cleanup.unshift(() => stub.stop());
    const stubPort = Number((await stub.firstJson).port);
    const stubUrl = `http://${STUB_HOST}:${stubPort}`;
    const secret = randomBytes(24).toString('hex');
    const env = {
      CONFIG_DIR: benchConfig(stubUrl),
      DATABASE_URL: `${DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`,
      REDIS_URL,
      ADMIN_JWT_SECRET: secret,
    };

    if (SOAK !== undefined) return await soak(env, secret, Number(SOAK || 300), distNote);

    const rows: Measured[] = [];
    const sizes: Record<string, { status: number; bytes: number }> = {};
    const direct: LoadTarget = { url: `${stubUrl}${PATH}` };
    if (ONLY.has('a')) {
      sizes.a = await bodyBytes(direct);
      rows.push(
        await measure(
          'a',
          'upstream direct',
          () => [stub.pid],
          (s) => closedLoop(direct, CONNECTIONS, s),
        ),
      );
    }
    if (ONLY.has('b')) {
      const bin = ensureNginx();
      if (bin) {
        const nginx = await startNginx(bin, stubPort);
        const t: LoadTarget = { url: `http://127.0.0.1:${nginx.port}${PATH}` };
        sizes.b = await bodyBytes(t);
        rows.push(
          await measure(
            'b',
            'nginx proxy_pass, 1 worker',
            () => [nginx.pid],
            (s) => closedLoop(t, CONNECTIONS, s),
          ),
        );
        await nginx.stop('SIGQUIT');
      }
    }
    if (ONLY.has('c')) {
      const bare = spawnChild(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'bench', 'bare-proxy.ts'), stubUrl, '0'],
        {
          cwd: ROOT,
        },
      );
      const port = Number((await bare.firstJson).port);
      const t: LoadTarget = { url: `http://127.0.0.1:${port}${PATH}` };
      sizes.c = await bodyBytes(t);
      rows.push(
        await measure(
          'c',
          'bare Node proxy + envelope',
          () => [bare.pid],
          (s) => closedLoop(t, CONNECTIONS, s),
        ),
      );
      await bare.stop();
    }
    let open: OpenLoopResult[] = [];
    let profile: { file: string; top: ProfileRow[] } | undefined;
    let evalshaPerReq: number | null = null;
    let gatewayRss: number | null = null;
    if (ONLY.has('d') || ONLY.has('e')) {
      const profDir = CPU_PROF ? mkdtempSync(join(tmpdir(), 'lk-bench-prof-')) : undefined;
      const gw1 = await startGateway(env, profDir);
      cleanup.unshift(() => gw1.stop());
      const key = await benchKey(gw1, secret);
      const headers = { 'x-api-key': key };
      const t1: LoadTarget = { url: `http://127.0.0.1:${gw1.port}${PATH}`, headers };
      sizes.d = await bodyBytes(t1);
      if (sizes.d.status !== 200) throw new Error(`gateway answered ${sizes.d.status}`);
      let d: Measured | undefined;
      if (ONLY.has('d')) {
        const measured = await measure(
          'd',
          `gateway, 1 process${CPU_PROF ? ' (--cpu-prof)' : ''}`,
          () => [gw1.pid],
          (s) => closedLoop(t1, CONNECTIONS, s),
          () => evalshaCalls(redis),
        );
        // Server-wide EVALSHA count (the Redis is shared, so other clients can only add to it).
        evalshaPerReq =
          Math.round(((measured.counter_delta ?? 0) / Math.max(1, measured.requests)) * 1000) / 1000;
        delete measured.counter_delta;
        d = measured;
        gatewayRss = rssBytes(gw1.pid);
        rows.push(d);
      }
      if (ONLY.has('e')) {
        const gw2 = await startGateway(env);
        cleanup.unshift(() => gw2.stop());
        const t2: LoadTarget = { url: `http://127.0.0.1:${gw2.port}${PATH}`, headers };
        const e = await measure(
          'e',
          'gateway, 2 processes (separate ports, connections split)',
          () => [gw1.pid, gw2.pid],
          (s) => closedLoopSplit([t1, t2], CONNECTIONS, s),
        );
        e.note =
          'two gateway processes on separate ports, autocannon instances in parallel with half the connections each (no cluster mode yet); p50/p99 are the worse of the two';
        rows.push(e);
        await gw2.stop();
      }
      if (d && OPEN_SECONDS > 0) {
        const rate = Math.max(1, Math.round(d.rps / 2));
        process.stdout.write(`open loop at ${rate} req/s: (a) ... `);
        await openLoop(direct, rate, Math.min(2, OPEN_SECONDS));
        const oa = await openLoop(direct, rate, OPEN_SECONDS);
        process.stdout.write(`p99 ${oa.p99_ms} ms; (d) ... `);
        await openLoop(t1, rate, Math.min(2, OPEN_SECONDS));
        const od = await openLoop(t1, rate, OPEN_SECONDS);
        console.log(`p99 ${od.p99_ms} ms`);
        open = [oa, od];
      }
      await gw1.stop();
      if (profDir) {
        const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
        if (file) {
          const top = summarizeProfile(join(profDir, file), 30);
          profile = { file: join(profDir, file), top };
          console.log(
            `\nprofile ${join(profDir, file)} (whole gateway run: d${ONLY.has('e') ? ', e' : ''} and the open loop)`,
          );
          for (const r of top) console.log(`${r.self_pct.toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
        } else note('--cpu-prof: no profile written');
      }
      rmSync(gw1.logFile, { force: true });
    }
    const by = (id: string): number | undefined => rows.find((r) => r.id === id)?.rps;
    const ratios = {
      'd/c': ratio(by('d'), by('c')),
      'd/b': ratio(by('d'), by('b')),
      'e/d': ratio(by('e'), by('d')),
    };
    const ended = machine();
    const [oa, od] = open;
    const result = {
      date: new Date().toISOString(),
      machine: { ...ended, load_average_at_start: started.load_average },
      build: distNote,
      method: {
        path: PATH,
        connections: CONNECTIONS,
        duration_s: DURATION,
        warmup_s: WARMUP,
        open_loop_s: OPEN_SECONDS,
        log_level: LOG_LEVEL,
        cpu: 'utime+stime from /proc/<pid>/stat of the server process tree during the measured run, divided by requests',
      },
      response_bytes: sizes,
      results: rows,
      ratios,
      open_loop:
        oa && od ? { a: oa, d: od, p99_added_ms: Math.round((od.p99_ms - oa.p99_ms) * 100) / 100 } : null,
      redis_evalsha_per_gateway_request: evalshaPerReq,
      gateway_rss_after_load_mb: gatewayRss === null ? null : Math.round(gatewayRss / 1048576),
      profile,
      notes,
    };
    const file = writeResults('gateway', result);
    console.log(`\n${markdown(ended, rows, open, ratios)}\n\nwritten: ${file}`);
  } finally {
    for (const c of cleanup) await c().catch((err: unknown) => console.error('cleanup:', err));
  }
}

/** One gateway under closed-loop load for `seconds`; RSS every 5 s, heap from /metrics every 10 s. */
async function soak(
  env: Record<string, string>,
  secret: string,
  seconds: number,
  distNote: string,
): Promise<void> {
  const gw = await startGateway(env);
  try {
    const key = await benchKey(gw, secret);
    const t: LoadTarget = { url: `http://127.0.0.1:${gw.port}${PATH}`, headers: { 'x-api-key': key } };
    const rssAtIdle = rssBytes(gw.pid);
    const samples: { t_s: number; rss_mb: number; heap_used_mb: number | null }[] = [];
    const t0 = Date.now();
    const heap = async (): Promise<number | null> => {
      try {
        const text = await (await fetch(`http://127.0.0.1:${gw.adminPort}/metrics`)).text();
        const m = /^lookup_nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
        return m ? Math.round((Number(m[1]) / 1048576) * 10) / 10 : null;
      } catch {
        return null;
      }
    };
    const timer = setInterval(() => {
      const rss = Math.round((rssBytes(gw.pid) / 1048576) * 10) / 10;
      void heap().then((h) =>
        samples.push({ t_s: Math.round((Date.now() - t0) / 1000), rss_mb: rss, heap_used_mb: h }),
      );
    }, 5_000);
    console.log(
      `soak: ${seconds} s closed loop, ${CONNECTIONS} connections, RSS idle ${Math.round(rssAtIdle / 1048576)} MB`,
    );
    const cpu0 = cpuSeconds([gw.pid]);
    const load = await closedLoop(t, CONNECTIONS, seconds);
    const cpu = cpuSeconds([gw.pid]) - cpu0;
    clearInterval(timer);
    await sleep(200);
    const steady = samples.filter((s) => s.t_s >= Math.min(30, seconds / 4));
    const half = samples.filter((s) => s.t_s >= seconds / 2);
    const slope = (pts: { x: number; y: number }[]): number => {
      if (pts.length < 2) return 0;
      const mx = pts.reduce((s, p) => s + p.x, 0) / pts.length;
      const my = pts.reduce((s, p) => s + p.y, 0) / pts.length;
      const num2 = pts.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
      const den = pts.reduce((s, p) => s + (p.x - mx) ** 2, 0);
      return den === 0 ? 0 : num2 / den;
    };
    const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const heapPts = half
      .filter((s) => s.heap_used_mb !== null)
      .map((s) => ({ x: s.t_s / 60, y: s.heap_used_mb ?? 0 }));
    const result = {
      date: new Date().toISOString(),
      machine: machine(),
      build: distNote,
      seconds,
      connections: CONNECTIONS,
      log_level: LOG_LEVEL,
      load,
      cpu_us_per_req: load.requests ? Math.round((cpu / load.requests) * 1e6) : 0,
      rss_idle_mb: Math.round(rssAtIdle / 1048576),
      rss_steady_median_mb: med(steady.map((s) => s.rss_mb)),
      rss_max_mb: Math.max(...samples.map((s) => s.rss_mb)),
      rss_first_steady_mb: steady[0]?.rss_mb ?? null,
      rss_last_mb: samples.at(-1)?.rss_mb ?? null,
      rss_slope_second_half_mb_per_min:
        Math.round(slope(half.map((s) => ({ x: s.t_s / 60, y: s.rss_mb }))) * 100) / 100,
      heap_slope_second_half_mb_per_min: Math.round(slope(heapPts) * 100) / 100,
      samples,
    };
    const file = writeResults('gateway-soak', result);
    console.log(
      `soak: ${load.rps} req/s, p99 ${load.p99_ms} ms, non-2xx ${load.non2xx}, RSS steady ${result.rss_steady_median_mb} MB ` +
        `(max ${result.rss_max_mb}), RSS slope ${result.rss_slope_second_half_mb_per_min} MB/min, ` +
        `heap slope ${result.heap_slope_second_half_mb_per_min} MB/min\nwritten: ${file}`,
    );
  } finally {
    await gw.stop();
    rmSync(gw.logFile, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
