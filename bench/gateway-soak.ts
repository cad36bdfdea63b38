// npm run bench -- --soak[=300]: one gateway under closed-loop load; RSS every 5 s and V8 heap
// (from /metrics) over time, the slope of each over the second half.
import { rmSync } from 'node:fs';
import {
  closedLoop,
  cpuSeconds,
  gatewayMetrics,
  machine,
  mib,
  rssBytes,
  sleep,
  usPerRequest,
} from './bench-lib';
import type { LoadTarget, MetricLookup } from './bench-lib';
import { treeRevision, writeResults } from './gateway-report';
import { SERVER_NICE, benchKey, startGateway } from './gateway-setup';

export interface SoakOptions {
  env: Record<string, string>;
  secret: string;
  seconds: number;
  connections: number;
  logLevel: string;
  path: string;
  distNote: string;
  cpus?: string;
  /** The heap a production replica has (deployment-heap.ts). */
  heapFlags?: string[];
  /** More node flags for the gateway (a diagnosis, e.g. --trace-gc; with keepLog its log is kept). */
  extraFlags?: string[];
  keepLog?: boolean;
}

type HeapFigures = Record<'heap_used_mb' | 'heap_committed_mb' | 'external_mb', number | null>;
type Sample = { t_s: number; rss_mb: number } & HeapFigures;

/**
 * V8's heap in use and committed, and the memory outside it (Buffers), from the gateway's
 * /metrics: what of the RSS is the heap's and what is not.
 */
async function heapFigures(adminPort: number): Promise<HeapFigures> {
  const none: MetricLookup = () => null;
  const value = await gatewayMetrics(adminPort).catch(() => none);
  const get = (name: string): number | null => {
    const v = value(name);
    return v === null ? null : mib(v);
  };
  return {
    heap_used_mb: get('nodejs_heap_size_used_bytes'),
    heap_committed_mb: get('nodejs_heap_size_total_bytes'),
    external_mb: get('nodejs_external_memory_bytes'),
  };
}

/** One gateway under closed-loop load for `seconds`; RSS and the heap's figures every 5 s. */
export async function soak(o: SoakOptions): Promise<void> {
  const { seconds, connections } = o;
  const gw = await startGateway({
    env: o.env,
    logLevel: o.logLevel,
    cpus: o.cpus,
    nice: SERVER_NICE,
    heapFlags: o.heapFlags,
    extraFlags: o.extraFlags,
  });
  try {
    const key = await benchKey(gw, o.secret);
    const t: LoadTarget = { url: `http://127.0.0.1:${gw.port}${o.path}`, headers: { 'x-api-key': key } };
    const rssAtIdle = rssBytes(gw.pid);
    const samples: Sample[] = [];
    const t0 = Date.now();
    const timer = setInterval(() => {
      const rss = mib(rssBytes(gw.pid));
      void heapFigures(gw.adminPort).then((h) =>
        samples.push({ t_s: Math.round((Date.now() - t0) / 1000), rss_mb: rss, ...h }),
      );
    }, 5_000);
    console.log(
      `soak: ${seconds} s closed loop, ${connections} connections, RSS idle ${Math.round(rssAtIdle / 1048576)} MB`,
    );
    const cpu0 = cpuSeconds([gw.pid]);
    const load = await closedLoop(t, connections, seconds);
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
      build: o.distNote,
      revision: treeRevision(),
      seconds,
      connections: connections,
      log_level: o.logLevel,
      /** Node flags beyond npm start's (a diagnosis run's), so its figures are not taken for the product's. */
      extra_node_flags: o.extraFlags ?? [],
      /** Every flag node ran the gateway with: npm start's, the replica heap's, the extra ones. */
      node_flags: gw.nodeFlags,
      pinned_cpus: o.cpus ?? null,
      load,
      cpu_us_per_req: usPerRequest(cpu, load.requests),
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
    if (o.keepLog) console.log(`gateway log: ${gw.logFile}`);
    else rmSync(gw.logFile, { force: true });
  }
}
