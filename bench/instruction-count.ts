// npm run bench -- --instructions[=5000]: the bare proxy (c) and the gateway (d) under valgrind's
// callgrind, counting the instructions each executes per request (all its threads, user space only).
// Unlike CPU time, the count does not move with the host's speed, its steal or its other tenants, so
// it compares builds and targets on a noisy machine. It leaves out the kernel's time (socket
// calls, a quarter to a third of either proxy's CPU), caches and branch prediction: a figure to
// find and check user-space work, not a substitute for d/c.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedLoopCount, commandPath, machine } from './bench-lib';
import type { LoadResult, LoadTarget } from './bench-lib';
import { median, ratio, treeRevision, writeResults } from './gateway-report';
import { benchKey, buildBare, startBare, startGateway } from './gateway-setup';
import type { Server } from './gateway-setup';

export interface InstructionOptions {
  env: Record<string, string>;
  secret: string;
  stubUrl: string;
  path: string;
  /** Requests per measured round. */
  requests: number;
  rounds: number;
  /** Requests each target serves before the first round, so that V8 has compiled its hot code. */
  warmRequests: number;
  connections: number;
  logLevel: string;
  distNote: string;
  heapFlags?: string[];
  /** More node flags for the gateway (--perf-basic-prof names its compiled code for callgrind_annotate). */
  extraFlags?: string[];
  /** Keep callgrind's dumps (for callgrind_annotate) and print where. */
  keepDumps: boolean;
}

// V8's memory reducer goes by the allocation rate over wall-clock time: under callgrind,
// ≈ 15× slower, the bare proxy looks idle to it, and its collections dropped compiled code
// that then had to be compiled again, round after round. The gateway runs without it anyway.
const BARE_NODE_FLAGS = ['--no-memory-reducer'];

interface Counted {
  requests: number;
  /** Instructions of the main thread (the event loop: everything a request runs). */
  main: number;
  /** Instructions of every other thread. */
  helpers: number;
}

function requireValgrind(): void {
  if (!commandPath('valgrind') || !commandPath('callgrind_control'))
    throw new Error('--instructions needs valgrind (apt-get install -y valgrind)');
}

/** Exactly `amount` requests, all of them answered 2xx: a count over failed requests means nothing. */
async function load(id: string, t: LoadTarget, connections: number, amount: number): Promise<LoadResult> {
  const r = await closedLoopCount(t, connections, amount);
  if (r.non2xx + r.errors > 0) throw new Error(`(${id}) answered ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r;
}

function callgrind(dir: string, name: string): string[] {
  // Off until a round starts: start-up and the warm-up are not counted.
  return [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${join(dir, name)}.out`,
  ];
}

function control(pid: number, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'pipe' });
}

/**
 * The newest dump of `name` in `dir`, one file per thread (`<name>.out.<dump>-<thread>`): the main
 * thread's total, and the rest's (V8's compiler and GC helpers, libuv's pool). The main thread's is
 * steady from round to round; the helpers' comes in bursts (a concurrent marking, a compile).
 */
export function lastDump(dir: string, name: string): { main: number; helpers: number } {
  const files = readdirSync(dir)
    .map((f) => ({ f, m: new RegExp(`^${name}\\.out\\.(\\d+)-(\\d+)$`).exec(f) }))
    .filter((x): x is { f: string; m: RegExpExecArray } => x.m !== null);
  if (files.length === 0) throw new Error(`no callgrind dump of (${name}) in ${dir}`);
  const last = Math.max(...files.map((x) => Number(x.m[1])));
  let main = 0;
  let helpers = 0;
  for (const { f, m } of files) {
    if (Number(m[1]) !== last) continue;
    const total = /^totals:\s*(\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
    if (!total) throw new Error(`no totals in callgrind dump ${f}`);
    if (Number(m[2]) === 1) main = Number(total[1]);
    else helpers += Number(total[1]);
  }
  return { main, helpers };
}

/** One round: counters zeroed, counting on for exactly `requests` requests, off, dumped. */
async function countRound(
  server: Server,
  dir: string,
  name: string,
  t: LoadTarget,
  o: InstructionOptions,
): Promise<Counted> {
  control(server.pid, '--zero');
  control(server.pid, '--instr=on');
  const r = await load(name, t, o.connections, o.requests);
  control(server.pid, '--instr=off');
  control(server.pid, '--dump');
  return { requests: r.requests, ...lastDump(dir, name) };
}

export async function instructionCount(o: InstructionOptions): Promise<void> {
  requireValgrind();
  const dir = mkdtempSync(join(tmpdir(), 'lk-bench-callgrind-'));
  const servers: Server[] = [];
  try {
    const bare = await startBare(o.stubUrl, undefined, 'undici', {
      wrapper: callgrind(dir, 'c'),
      built: buildBare(),
      nodeFlags: BARE_NODE_FLAGS,
    });
    servers.push(bare);
    const gw = await startGateway({
      env: o.env,
      logLevel: o.logLevel,
      heapFlags: o.heapFlags,
      extraFlags: o.extraFlags,
      wrapper: callgrind(dir, 'd'),
      startTimeoutMs: 600_000,
    });
    servers.push(gw);
    const key = await benchKey(gw, o.secret);
    const targets = {
      c: { server: bare, t: { url: `http://127.0.0.1:${bare.port}${o.path}` } },
      d: { server: gw, t: { url: `http://127.0.0.1:${gw.port}${o.path}`, headers: { 'x-api-key': key } } },
    };
    for (const id of ['c', 'd'] as const) {
      const w = await load(id, targets[id].t, o.connections, o.warmRequests);
      console.log(`(${id}) warmed up: ${w.requests} requests at ${w.rps} req/s under callgrind`);
    }
    const rounds: Record<'c' | 'd', Counted[]> = { c: [], d: [] };
    for (let i = 1; i <= o.rounds; i++) {
      for (const id of ['c', 'd'] as const) {
        const r = await countRound(targets[id].server, dir, id, targets[id].t, o);
        rounds[id].push(r);
        const p = perRequest(r);
        console.log(
          `(${id}) round ${i}/${o.rounds}: ${r.requests} requests; instructions per request: ${fmt(p.main)} on the main thread, ${fmt(p.helpers)} on the others`,
        );
      }
    }
    report(rounds, o, gw.nodeFlags);
  } finally {
    for (const s of servers.reverse()) await s.stop();
    if (o.keepDumps) console.log(`callgrind dumps kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (x: number): string => x.toLocaleString('en-US');

function perRequest(r: Counted): { main: number; helpers: number; total: number } {
  const n = Math.max(1, r.requests);
  return {
    main: Math.round(r.main / n),
    helpers: Math.round(r.helpers / n),
    total: Math.round((r.main + r.helpers) / n),
  };
}

/** `gatewayFlags` are recorded: a run with --d-node-args counts another gateway than npm start's. */
function report(rounds: Record<'c' | 'd', Counted[]>, o: InstructionOptions, gatewayFlags: string[]): void {
  const per = { c: rounds.c.map(perRequest), d: rounds.d.map(perRequest) };
  const ratios = (k: 'main' | 'total'): number[] => per.d.map((d, i) => ratio(d[k], per.c[i]?.[k]) ?? 0);
  const summary = {
    c_main_per_request: median(per.c.map((p) => p.main)),
    d_main_per_request: median(per.d.map((p) => p.main)),
    c_total_per_request: median(per.c.map((p) => p.total)),
    d_total_per_request: median(per.d.map((p) => p.total)),
    d_over_c_main: median(ratios('main')),
    d_over_c_total: median(ratios('total')),
  };
  console.log(`\nInstructions per request (callgrind, user space), ${o.requests} requests a round:`);
  for (const id of ['c', 'd'] as const) {
    const label = id === 'c' ? '(c) bare Node proxy' : '(d) gateway';
    console.log(
      `${label}: main thread ${per[id].map((p) => fmt(p.main)).join(', ')}; all threads ${per[id].map((p) => fmt(p.total)).join(', ')}`,
    );
  }
  console.log(
    `(d)/(c), main thread: ${ratios('main').join(', ')} (median ${summary.d_over_c_main}); all threads: ${ratios('total').join(', ')} (median ${summary.d_over_c_total})`,
  );
  const file = writeResults('gateway-instructions', {
    date: new Date().toISOString(),
    revision: treeRevision(),
    machine: machine(),
    method: {
      tool: 'valgrind --tool=callgrind --separate-threads=yes, counting only inside rounds (callgrind_control)',
      path: o.path,
      connections: o.connections,
      requests_per_round: o.requests,
      warm_requests: o.warmRequests,
      rounds: o.rounds,
      build: o.distNote,
      bare_proxy: `tsc build (var/bench-bare), node ${BARE_NODE_FLAGS.join(' ')}`,
      gateway: `node ${gatewayFlags.join(' ')}`,
      log_level: o.logLevel,
    },
    rounds,
    ...summary,
  });
  console.log(`written: ${file}`);
}
