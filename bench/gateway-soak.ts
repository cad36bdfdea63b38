// npm run bench -- --soak[=300]: one gateway under closed-loop load; RSS every 5 s and V8 heap
// (from /metrics) over time, the slope of each over the second half.
import { rmSync } from 'node:fs';
import { closedLoop, cpuSeconds, machine, mib, rssBytes, sleep, usPerRequest } from './bench-lib';
import type { LoadTarget } from './bench-lib';
import { writeResults } from './gateway-report';
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
}

/** One gateway under closed-loop load for `seconds`; RSS every 5 s, heap from /metrics every 10 s. */
export async function soak(o: SoakOptions): Promise<void> {
  const { seconds, connections } = o;
  const gw = await startGateway({ env: o.env, logLevel: o.logLevel, cpus: o.cpus, nice: SERVER_NICE });
  try {
    const key = await benchKey(gw, o.secret);
    const t: LoadTarget = { url: `http://127.0.0.1:${gw.port}${o.path}`, headers: { 'x-api-key': key } };
    const rssAtIdle = rssBytes(gw.pid);
    const samples: { t_s: number; rss_mb: number; heap_used_mb: number | null }[] = [];
    const t0 = Date.now();
    const heap = async (): Promise<number | null> => {
      try {
        const text = await (await fetch(`http://127.0.0.1:${gw.adminPort}/metrics`)).text();
        const m = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
        return m ? mib(Number(m[1])) : null;
      } catch {
        return null;
      }
    };
    const timer = setInterval(() => {
      const rss = mib(rssBytes(gw.pid));
      void heap().then((h) =>
        samples.push({ t_s: Math.round((Date.now() - t0) / 1000), rss_mb: rss, heap_used_mb: h }),
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
      seconds,
      connections: connections,
      log_level: o.logLevel,
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
    rmSync(gw.logFile, { force: true });
  }
}
