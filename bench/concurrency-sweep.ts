// npm run bench -- --sweep[=1,2,4,8,32]: the bare proxy (c) and the gateway (d), both up, in closed
// loop at each number of connections in turn: throughput and the server's user and system CPU per
// request. With one connection each request is handled alone, as in the open loop at half of (d)'s
// peak; with 32, many share each turn of the event loop. What a request costs at each tells how
// busy a server is at a given rate, so how fast it drains the queue a stall leaves. With --perf,
// each server's main thread is also sampled by perf(1) and its CPU split by kind of work.
import { closedLoop, cpuDuring, machine, percentOfCore, processTree, usPerRequest } from './bench-lib';
import type { LoadResult, LoadTarget } from './bench-lib';
import { ratio, treeRevision, writeResults } from './gateway-report';
import type { Gateway, Server } from './gateway-setup';
import { NATIVE_KINDS, PERF_HZ, isJsWork, nativeDuring, perRequest } from './native-profile';
import type { NativeKind } from './native-profile';

export interface SweepOptions {
  bare: Server & { target: LoadTarget };
  gateway: Gateway & { target: LoadTarget };
  connections: number[];
  seconds: number;
  warmup: number;
  /** Also sample each server's main thread with perf(1): its CPU per request by kind of work. */
  perf: boolean;
  distNote: string;
  notes: string[];
}

export interface SweepPoint {
  target: 'c' | 'd';
  connections: number;
  rps: number;
  p99_ms: number;
  user_us_per_req: number;
  system_us_per_req: number;
  /** CPU of the server as a share of one core over the window. */
  busy_pct: number;
  /** With --perf: the main thread's CPU µs per request by kind of work (native-profile.ts). */
  native_us_per_req?: Partial<Record<NativeKind, number>>;
}

async function point(
  id: 'c' | 'd',
  s: Server & { target: LoadTarget },
  connections: number,
  seconds: number,
  perf: boolean,
): Promise<SweepPoint> {
  const load = (): Promise<LoadResult> => closedLoop(s.target, connections, seconds);
  const sampled = (): Promise<{ result: LoadResult; counts?: Map<NativeKind, number> }> =>
    perf ? nativeDuring(s.pid, load, PERF_HZ) : load().then((result) => ({ result }));
  const { result, user, system, wall } = await cpuDuring(processTree(s.pid), sampled);
  const r = result.result;
  const native = result.counts && perRequest(result.counts, PERF_HZ, r.requests);
  return {
    target: id,
    connections,
    rps: r.rps,
    p99_ms: r.p99_ms,
    user_us_per_req: usPerRequest(user, r.requests),
    system_us_per_req: usPerRequest(system, r.requests),
    busy_pct: percentOfCore(user + system, wall),
    ...(native ? { native_us_per_req: native } : {}),
  };
}

/** The sum to a tenth of a µs, as the per-kind figures are. */
const sum = (xs: number[]): number => Math.round(xs.reduce((a, b) => a + b, 0) * 10) / 10;

/** (c) and (d) side by side by kind of work, the gateway's extra split into running JS and the rest. */
export function nativeTable(c: SweepPoint, d: SweepPoint): string {
  const cn = c.native_us_per_req ?? {};
  const dn = d.native_us_per_req ?? {};
  const lines = [
    `perf, main thread, µs a request at ${c.connections} connection(s): kind | (c) | (d) | (d) − (c)`,
  ];
  for (const kind of NATIVE_KINDS) {
    const a = cn[kind] ?? 0;
    const b = dn[kind] ?? 0;
    if (a || b) lines.push(`  ${kind} | ${a} | ${b} | ${sum([b, -a])}`);
  }
  const part = (n: typeof cn, js: boolean): number =>
    sum(NATIVE_KINDS.filter((k) => isJsWork(k) === js).map((k) => n[k] ?? 0));
  const [cJs, dJs, cRest, dRest] = [part(cn, true), part(dn, true), part(cn, false), part(dn, false)];
  lines.push(
    `  running JavaScript | ${cJs} | ${dJs} | ${sum([dJs, -cJs])}`,
    `  everything else (JSON, UTF-8, GC, node, libc, kernel) | ${cRest} | ${dRest} | ${sum([dRest, -cRest])}`,
  );
  // Both parse the same upstream body and write nearly the same envelope (0.83–1.3 at every point
  // of the first five sweeps but one), so a JSON ratio far from 1 says the host's speed moved
  // between the two windows.
  const json = dn.JSON ? ratio(dn.JSON, cn.JSON) : null;
  if (json !== null) {
    const moved =
      json < 0.75 || json > 1.35 ? ': the host moved between the windows, read this point with care' : '';
    lines.push(`  host check: JSON, the same work in both, (d) / (c) = ${json}${moved}`);
  }
  return lines.join('\n');
}

export async function sweep(o: SweepOptions): Promise<void> {
  const servers = { c: o.bare, d: o.gateway } as const;
  for (const s of Object.values(servers)) await closedLoop(s.target, 32, o.warmup);
  const points: SweepPoint[] = [];
  for (const connections of o.connections) {
    for (const id of ['c', 'd'] as const) {
      const p = await point(id, servers[id], connections, o.seconds, o.perf);
      points.push(p);
      console.log(
        `(${id}) ${connections} connection(s): ${p.rps} req/s, p99 ${p.p99_ms} ms, CPU ${p.user_us_per_req} µs user + ${p.system_us_per_req} µs system a request, ${p.busy_pct} % of a core`,
      );
    }
    const [c, d] = points.slice(-2);
    if (o.perf && c && d) console.log(nativeTable(c, d));
  }
  const file = writeResults('gateway-sweep', {
    date: new Date().toISOString(),
    machine: machine(),
    build: o.distNote,
    revision: treeRevision(),
    seconds: o.seconds,
    gateway_node_flags: o.gateway.nodeFlags,
    points,
    notes: o.notes,
  });
  console.log(`written: ${file}`);
}
