// npm run bench -- --ab=<git revision>: the gateway built from that revision (A) and from the
// working tree (B), both running on the server CPU, measured in alternating closed-loop rounds
// A, B, B, A, A, B, ...: throughput and CPU per request of each round, and B/A per round. For changes
// worth a few microseconds per request, which the drift of a shared machine between two runs hides.
// With --fixed-rate=N the rounds are open-loop at N req/s instead (one keep-alive pool per gateway),
// and each round also gives both gateways' p99 and p99.9 from the scheduled start. With --idle=S as
// well, each round measures a resumption: both gateways under the load for 8 s, then idle for S s,
// then each one's first window (--duration) at the rate, in alternating order; full GCs are counted.
// With --gc-growth both run with --trace-gc-nvp, and each round gives what their old generations
// gained per request (bench/gc-growth.ts): a change in how long objects live shows there in every
// round, where a full GC falls in a round or not.
import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { closedLoop, cpuSplit, machine, mib, middleBy, rssBytes, sleep, usPerRequest } from './bench-lib';
import type { LoadTarget } from './bench-lib';
import type { OpenLoop } from './open-loop-client';
import { warmUp } from './open-loop-rounds';
import { GcGrowth } from './gc-growth';
import { gcOfRound, gcTotals, growthOfRound } from './round-collections';
import type { RoundCollections } from './round-collections';
import { writeResults } from './gateway-report';
import { startNodeFlags } from '../test/support/start-node-flags';
import { ROOT, SERVER_NICE, benchKey, build, startGateway } from './gateway-setup';
import type { Gateway } from './gateway-setup';

export interface AbOptions {
  env: Record<string, string>;
  secret: string;
  /** The revision A is built from (anything `git worktree add` takes). */
  base: string;
  rounds: number;
  seconds: number;
  warmup: number;
  connections: number;
  logLevel: string;
  path: string;
  cpus?: string;
  /** B only: flags for node, and another log level (to measure a runtime setting, A = B's revision). */
  bNodeArgs?: string[];
  bLogLevel?: string;
  /** B only: another node binary (to measure a runtime against the bench's own, A = B's revision). */
  bNode?: string;
  /**
   * B only: environment variables set for it, an empty value leaving one out (`REDIS_URL=` runs B
   * on in-process counters: what the round trip to Redis costs on this host).
   */
  bEnv?: Record<string, string>;
  /** Both: the heap a production replica has (deployment-heap.ts), before B's flags (which may override it). */
  heapFlags?: string[];
  /** Keep both gateways' logs (stdout and stderr: access lines, and --trace-gc lines) and print their paths. */
  keepLog?: boolean;
  /** Open-loop rounds at this many requests per second; 0: closed-loop rounds. */
  rate: number;
  /** The open loop's generator (one keep-alive pool per gateway, kept across the rounds). */
  gen: OpenLoop;
  /** With rate: seconds both sit idle before each round, which then measures their resumption. */
  idle: number;
  /** Both with --trace-gc-nvp: the old generation's growth and the promoted bytes per request. */
  gcGrowth?: boolean;
  /**
   * A's CONFIG_DIR made from its revision's tree (--a-config), for a base whose config schema this
   * tree's files no longer fit; without it A reads B's.
   */
  aConfig?: (root: string) => string;
  note: (s: string) => void;
}

interface AbRound extends RoundCollections {
  rps: number;
  cpu_us_per_req: number;
  /** The kernel's part of cpu_us_per_req (system time): where a wake-up or a socket call shows. */
  system_us_per_req: number;
  p99_ms?: number;
  p999_ms?: number;
  max_ms?: number;
}

/**
 * The base revision's dist build, from a temporary worktree (node_modules shared with this one),
 * and the node flags its `npm start` runs it with. Only the code and those flags are the base's
 * (and its config, given aConfig): the build finds the project root, and so the config, migrations
 * and data, in this working tree.
 */
function buildBase(
  base: string,
  note: (s: string) => void,
  aConfig?: (root: string) => string,
): { dist: string; startFlags: string[]; configDir?: string } {
  const dir = join(ROOT, 'var', 'bench-ab');
  const src = join(dir, 'src');
  const out = join(dir, 'dist');
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: ROOT, stdio: 'pipe' });
  // An interrupted run leaves its worktree registered; prune forgets it once the folder is gone.
  rmSync(dir, { recursive: true, force: true });
  git('worktree', 'prune');
  git('worktree', 'add', '--detach', src, base);
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'));
    build(true, note, src, out);
    return { dist: out, startFlags: startNodeFlags(src), configDir: aConfig?.(src) };
  } finally {
    rmSync(src, { recursive: true, force: true });
    git('worktree', 'prune');
  }
}

function served(r: { non2xx: number; errors: number }): void {
  if (r.non2xx || r.errors) throw new Error(`non-2xx ${r.non2xx}, errors ${r.errors}`);
}

async function round(gw: Gateway, t: LoadTarget, o: AbOptions, growth?: GcGrowth): Promise<AbRound> {
  // After the other gateway's round this one was idle: warm it at the rate first (open-loop-rounds.ts),
  // unless the round is there to measure just that (--idle).
  if (o.rate > 0 && o.idle === 0) await warmUp(o.gen, t, o.rate, 2);
  growth?.read();
  const gcs = await gcTotals(gw);
  const before = cpuSplit([gw.pid]);
  const cpuUs = (requests: number): { cpu_us_per_req: number; system_us_per_req: number } => {
    const now = cpuSplit([gw.pid]);
    const user = now.user - before.user;
    const system = now.system - before.system;
    return {
      cpu_us_per_req: usPerRequest(user + system, requests),
      system_us_per_req: usPerRequest(system, requests),
    };
  };
  if (o.rate > 0) {
    const r = await o.gen.run(t, o.rate, o.seconds);
    const cpu = cpuUs(r.completed);
    served(r);
    return {
      rps: r.achieved_rps,
      ...cpu,
      p99_ms: r.p99_ms,
      p999_ms: r.p999_ms,
      max_ms: r.max_ms,
      ...(await gcOfRound(gw, gcs, r.completed)),
      ...growthOfRound(growth, r.completed),
    };
  }
  const r = await closedLoop(t, o.connections, o.seconds);
  const cpu = cpuUs(r.requests);
  served(r);
  return {
    rps: r.rps,
    ...cpu,
    ...(await gcOfRound(gw, gcs, r.requests)),
    ...growthOfRound(growth, r.requests),
  };
}

/** --b-env's `NAME=value,NAME2=` as changes for withEnv; a malformed entry stops the run. */
export function envChanges(arg: string | undefined): Record<string, string> | undefined {
  if (arg === undefined || arg === '') return undefined;
  const out: Record<string, string> = {};
  for (const entry of arg.split(',')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new Error(`--b-env: "${entry}" is not NAME=value (NAME= leaves NAME out)`);
    out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

/** `env` with `changes` applied: an empty value removes the variable. */
export function withEnv(
  env: Record<string, string>,
  changes: Record<string, string> = {},
): Record<string, string> {
  const out = { ...env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === '') delete out[name];
    else out[name] = value;
  }
  return out;
}

/** For the results file: what B's environment changed, without the value of an address or a secret. */
function describeEnv(changes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(changes).map(([name, value]) => [
      name,
      value === '' ? '(left out)' : /URL|SECRET|PASSWORD|TOKEN/i.test(name) ? '(set)' : value,
    ]),
  );
}

const signed = (n: number): string => (n < 0 ? `−${-n}` : `+${n}`);

const tail = (r: AbRound): string =>
  (r.p99_ms === undefined ? '' : ` p99 ${r.p99_ms} ms p99.9 ${r.p999_ms} ms max ${r.max_ms} ms;`) +
  ` scavenges ${r.scavenge_ms_per_1k} ms/1k;` +
  (r.old_growth_b_per_req === undefined
    ? ''
    : ` old generation ${signed(r.old_growth_b_per_req)} B/req (promoted ${r.promoted_b_per_req});`) +
  (r.major_gcs > 0 ? ` ${r.major_gcs} full GC;` : '');

/** What `node -v` says of a binary (fails the run before a gateway starts if it is not one). */
function nodeVersion(node: string): string {
  return execFileSync(node, ['-v']).toString().trim();
}

export async function ab(o: AbOptions): Promise<void> {
  const rev = execFileSync('git', ['rev-parse', '--short', o.base], { cwd: ROOT }).toString().trim();
  console.log(`A: ${o.base} (${rev}); B: the working tree`);
  const nodes = { a: process.version, b: o.bNode ? nodeVersion(o.bNode) : process.version };
  const base = buildBase(o.base, o.note, o.aConfig);
  if (base.configDir) console.log(`A reads its revision's config (${o.base}:config)`);
  let a: Gateway | undefined;
  let b: Gateway | undefined;
  const traced = o.gcGrowth ? ['--trace-gc-nvp'] : [];
  try {
    // One after the other: both run the migrations on the same schema.
    a = await startGateway({
      env: base.configDir ? { ...o.env, CONFIG_DIR: base.configDir } : o.env,
      logLevel: o.logLevel,
      cpus: o.cpus,
      nice: SERVER_NICE,
      dist: base.dist,
      startFlags: base.startFlags,
      heapFlags: o.heapFlags,
      extraFlags: traced,
    });
    b = await startGateway({
      env: withEnv(o.env, o.bEnv),
      logLevel: o.bLogLevel ?? o.logLevel,
      cpus: o.cpus,
      nice: SERVER_NICE,
      heapFlags: o.heapFlags,
      extraFlags: [...(o.bNodeArgs ?? []), ...traced],
      node: o.bNode,
    });
    const growth = o.gcGrowth ? { a: new GcGrowth(a.logFile), b: new GcGrowth(b.logFile) } : undefined;
    console.log(`node: A ${nodes.a}, B ${nodes.b}`);
    console.log(`node flags: A ${a.nodeFlags.join(' ') || '(none)'}; B ${b.nodeFlags.join(' ') || '(none)'}`);
    const headers = { 'x-api-key': await benchKey(b, o.secret) };
    const ta: LoadTarget = { url: `http://127.0.0.1:${a.port}${o.path}`, headers };
    const tb: LoadTarget = { url: `http://127.0.0.1:${b.port}${o.path}`, headers };
    await closedLoop(ta, o.connections, o.warmup);
    await closedLoop(tb, o.connections, o.warmup);
    const rounds: { a: AbRound; b: AbRound; rps: number; cpu: number }[] = [];
    for (let i = 0; i < o.rounds; i++) {
      // A, B then B, A: a machine that slows down or speeds up over a pair hits both sides alike.
      if (o.rate > 0 && o.idle > 0) {
        await warmUp(o.gen, ta, o.rate, 8);
        await warmUp(o.gen, tb, o.rate, 8);
        await sleep(o.idle * 1000);
      }
      let ra: AbRound;
      let rb: AbRound;
      if (i % 2 === 0) {
        ra = await round(a, ta, o, growth?.a);
        rb = await round(b, tb, o, growth?.b);
      } else {
        rb = await round(b, tb, o, growth?.b);
        ra = await round(a, ta, o, growth?.a);
      }
      const r3 = (x: number): number => Math.round(x * 1000) / 1000;
      rounds.push({ a: ra, b: rb, rps: r3(rb.rps / ra.rps), cpu: r3(rb.cpu_us_per_req / ra.cpu_us_per_req) });
      console.log(
        `round ${i + 1}/${o.rounds}: A ${ra.rps} req/s ${ra.cpu_us_per_req} µs/req (system ${ra.system_us_per_req});${tail(ra)} ` +
          `B ${rb.rps} req/s ${rb.cpu_us_per_req} µs/req (system ${rb.system_us_per_req});${tail(rb)} B/A throughput ${rounds[i]!.rps}, CPU ${rounds[i]!.cpu}`,
      );
    }
    // One side's figure in the round where that figure is the median.
    const mid = (side: 'a' | 'b', key: keyof AbRound): number | undefined =>
      middleBy(rounds, (r) => r[side][key]!)![side][key];
    const med = {
      rps: middleBy(rounds, (r) => r.rps)!.rps,
      cpu: middleBy(rounds, (r) => r.cpu)!.cpu,
      a_cpu_us: mid('a', 'cpu_us_per_req'),
      b_cpu_us: mid('b', 'cpu_us_per_req'),
      a_system_us: mid('a', 'system_us_per_req'),
      b_system_us: mid('b', 'system_us_per_req'),
      ...(o.rate > 0 && {
        a_p99_ms: mid('a', 'p99_ms'),
        b_p99_ms: mid('b', 'p99_ms'),
        b_p99_lower_in: rounds.filter((r) => r.b.p99_ms! < r.a.p99_ms!).length,
      }),
      a_major_gcs: rounds.reduce((n, r) => n + r.a.major_gcs, 0),
      b_major_gcs: rounds.reduce((n, r) => n + r.b.major_gcs, 0),
      a_scavenge_ms_per_1k: mid('a', 'scavenge_ms_per_1k'),
      b_scavenge_ms_per_1k: mid('b', 'scavenge_ms_per_1k'),
      b_scavenge_lower_in: rounds.filter((r) => r.b.scavenge_ms_per_1k < r.a.scavenge_ms_per_1k).length,
      ...(growth && {
        a_old_growth_b_per_req: mid('a', 'old_growth_b_per_req'),
        b_old_growth_b_per_req: mid('b', 'old_growth_b_per_req'),
        a_promoted_b_per_req: mid('a', 'promoted_b_per_req'),
        b_promoted_b_per_req: mid('b', 'promoted_b_per_req'),
      }),
    };
    console.log(
      `\nmedians: A ${med.a_cpu_us} µs/req (system ${med.a_system_us}), B ${med.b_cpu_us} µs/req (system ${med.b_system_us}); B/A throughput ${med.rps}, CPU per request ${med.cpu}`,
    );
    const rssMb = { a: mib(rssBytes(a.pid)), b: mib(rssBytes(b.pid)) };
    console.log(`RSS after the rounds: A ${rssMb.a} MB, B ${rssMb.b} MB`);
    if (o.rate > 0) {
      console.log(
        `p99: A ${med.a_p99_ms} ms, B ${med.b_p99_ms} ms (B lower in ${med.b_p99_lower_in} of ${o.rounds} rounds)`,
      );
    }
    console.log(
      `collections: full GCs in the rounds A ${med.a_major_gcs}, B ${med.b_major_gcs}; scavenges per 1,000 requests ` +
        `A ${med.a_scavenge_ms_per_1k} ms, B ${med.b_scavenge_ms_per_1k} ms (B lower in ${med.b_scavenge_lower_in} of ${o.rounds} rounds)`,
    );
    if (growth) {
      console.log(
        `old generation per request (median round): A ${signed(med.a_old_growth_b_per_req!)} B (promoted ${med.a_promoted_b_per_req}), ` +
          `B ${signed(med.b_old_growth_b_per_req!)} B (promoted ${med.b_promoted_b_per_req})`,
      );
    }
    const kind = o.rate === 0 ? 'gateway-ab' : o.idle > 0 ? 'gateway-ab-resume' : 'gateway-ab-open';
    const file = writeResults(kind, {
      date: new Date().toISOString(),
      machine: machine(),
      a: { revision: o.base, commit: rev, node: nodes.a, node_flags: a.nodeFlags },
      b: {
        tree: 'working tree',
        node: nodes.b,
        node_flags: b.nodeFlags,
        log_level: o.bLogLevel,
        env: o.bEnv && describeEnv(o.bEnv),
      },
      method: {
        path: o.path,
        connections: o.connections,
        seconds: o.seconds,
        warmup_s: o.warmup,
        cpus: o.cpus,
        open_loop_rps: o.rate || undefined,
        idle_s: o.idle || undefined,
      },
      rounds,
      medians: med,
      rss_mb_after: rssMb,
    });
    console.log(`written: ${file}`);
  } finally {
    await b?.stop();
    await a?.stop();
    rmSync(join(ROOT, 'var', 'bench-ab'), { recursive: true, force: true });
    for (const [name, g] of [['A', a] as const, ['B', b] as const]) {
      if (g && o.keepLog) console.log(`log ${name}: ${g.logFile}`);
      else if (g) rmSync(g.logFile, { force: true });
    }
  }
}
