// Helpers of the gateway bench: child processes, /proc CPU and RSS readings, closed-loop load
// (autocannon); the open loop's generator is a process of its own (open-loop-generator.ts).
import { spawn } from 'node:child_process';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';

export const CLK_TCK = Number(execSync('getconf CLK_TCK').toString().trim()) || 100;

export interface Machine {
  nproc: number;
  cpu_model: string;
  /**
   * Vendor, family and model from /proc/cpuinfo ("AMD family 26 model 2"): the model name alone reads
   * "Intel(R) Xeon(R) Processor" on Intel models 167 and 207, where d/c ran 0.67–0.78 and 0.51–0.67.
   */
  cpu_kind?: string;
  load_average: [number, number, number];
  node: string;
}

/** Where a command is on PATH (`command -v`), or undefined when it is not installed. */
export function commandPath(name: string): string | undefined {
  try {
    return execSync(`command -v ${name}`, { stdio: 'pipe', shell: '/bin/sh' }).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

const VENDORS: Record<string, string> = { AuthenticAMD: 'AMD', GenuineIntel: 'Intel' };

/** The first processor's vendor, family and model in /proc/cpuinfo's text, or undefined without them. */
export function cpuKind(cpuinfo: string): string | undefined {
  const first = cpuinfo.split(/\n\s*\n/)[0] ?? '';
  const field = (name: string): string | undefined =>
    new RegExp(`^${name}\\s*:\\s*(.+)$`, 'm').exec(first)?.[1]?.trim();
  const vendor = field('vendor_id');
  const family = field('cpu family');
  const model = field('model');
  if (vendor === undefined || family === undefined || model === undefined) return undefined;
  return `${VENDORS[vendor] ?? vendor} family ${family} model ${model}`;
}

function readCpuKind(): string | undefined {
  try {
    return cpuKind(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return undefined;
  }
}

export function machine(): Machine {
  const [l1, l5, l15] = loadavg().map((v) => Math.round(v * 100) / 100);
  return {
    nproc: cpus().length,
    cpu_model: cpus()[0]?.model.trim() ?? 'unknown',
    cpu_kind: readCpuKind(),
    load_average: [l1 ?? 0, l5 ?? 0, l15 ?? 0],
    node: process.version,
  };
}

/** The element whose key is the median, the lower middle of an even count: a real one, not an average. */
export function middleBy<T>(xs: readonly T[], key: (x: T) => number): T | undefined {
  return [...xs].sort((a, b) => key(a) - key(b))[Math.floor((xs.length - 1) / 2)];
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Every live pid of the tree rooted at pid (nginx master + worker, a node process and its children). */
export function processTree(pid: number): number[] {
  const out = [pid];
  const taskDir = `/proc/${pid}/task`;
  if (!existsSync(taskDir)) return out;
  for (const tid of readdirSync(taskDir)) {
    let children = '';
    try {
      children = readFileSync(`${taskDir}/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const c of children.split(' ').filter(Boolean)) out.push(...processTree(Number(c)));
  }
  return out;
}

/** User and system CPU seconds of the given processes (their threads included). */
export function cpuSplit(pids: readonly number[]): { user: number; system: number } {
  let user = 0;
  let system = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is field 3 (state): utime is field 14, stime field 15.
      user += Number(fields[11]);
      system += Number(fields[12]);
    } catch {
      // exited
    }
  }
  return { user: user / CLK_TCK, system: system / CLK_TCK };
}

/** What the given processes used while `run` ran: user and system CPU seconds, and the wall time. */
export async function cpuDuring<T>(
  pids: readonly number[],
  run: () => Promise<T>,
): Promise<{ result: T; user: number; system: number; wall: number }> {
  const before = cpuSplit(pids);
  const t0 = performance.now();
  const result = await run();
  const wall = (performance.now() - t0) / 1000;
  const after = cpuSplit(pids);
  return { result, user: after.user - before.user, system: after.system - before.system, wall };
}

/** CPU seconds over a wall-clock window as a whole-number percentage of one core. */
export function percentOfCore(cpuS: number, wallS: number): number {
  return wallS > 0 ? Math.round((cpuS / wallS) * 100) : 0;
}

/** user + system CPU seconds of the given processes (their threads included). */
export function cpuSeconds(pids: readonly number[]): number {
  const { user, system } = cpuSplit(pids);
  return user + system;
}

/**
 * Milliseconds of steal so far on each CPU, by CPU number (/proc/stat: time the hypervisor ran
 * something else while this guest's CPU had work), or undefined where the kernel does not say. A
 * window's difference tells a stall of the host from one of the server.
 */
export function stealMsByCpu(): number[] | undefined {
  try {
    const out: number[] = [];
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      // cpuN user nice system idle iowait irq softirq steal ...
      const m = /^cpu(\d+)\s/.exec(line);
      if (m) out[Number(m[1])] = (Number(line.trim().split(/\s+/)[8]) * 1000) / CLK_TCK;
    }
    return out.length > 0 && out.every(Number.isFinite) ? out : undefined;
  } catch {
    return undefined;
  }
}

/** CPU microseconds per request, rounded; 0 when nothing was served. */
export function usPerRequest(cpuS: number, requests: number): number {
  return requests > 0 ? Math.round((cpuS / requests) * 1e6) : 0;
}

/** Resident set size in bytes, from /proc/<pid>/status. */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** A gateway's admin /metrics, read once: the value of one series, by its exact name and labels. */
export type MetricLookup = (series: string) => number | null;

/** Scrapes a gateway's admin /metrics (Prometheus text; prom-client writes no timestamps). */
export async function gatewayMetrics(adminPort: number): Promise<MetricLookup> {
  const lines = (await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text()).split('\n');
  return (series) => {
    const line = lines.find((l) => l.startsWith(`${series} `));
    return line === undefined ? null : Number(line.slice(series.length + 1));
  };
}

/** prom-client's count of the process's full (mark-compact) collections since its start. */
export const FULL_GC_SERIES = 'nodejs_gc_duration_seconds_count{kind="major"}';

/** A gateway's full collections so far, or undefined when its /metrics cannot be read. */
export async function fullGcCount(adminPort: number): Promise<number | undefined> {
  const value = await gatewayMetrics(adminPort).catch(() => undefined);
  return value?.(FULL_GC_SERIES) ?? undefined;
}

/** Bytes in MiB to one decimal: how every figure of the benches labelled MB is written. */
export function mib(bytes: number): number {
  return Math.round((bytes / 1048576) * 10) / 10;
}

export interface Child {
  child: ChildProcess;
  pid: number;
  /** Resolves with the first stdout line that parses as JSON (the servers print {"port":N}). */
  firstJson: Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
}

/** Spawns a server process; stdout is piped (read until the first JSON line) unless stdio says otherwise. */
export function spawnChild(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; stdio?: StdioOptions; cwd?: string } = {},
): Child {
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: opts.stdio ?? ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const firstJson = new Promise<Record<string, unknown>>((resolve, reject) => {
    if (!child.stdout) return;
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString();
      for (const line of buf.split('\n').slice(0, -1)) {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          child.stdout?.off('data', onData);
          child.stdout?.resume();
          return resolve(parsed);
        } catch {
          // not yet
        }
      }
    };
    child.stdout.on('data', onData);
    void exited.then(() => reject(new Error(`${cmd} ${args.join(' ')} exited early`)));
  });
  return {
    child,
    pid: child.pid ?? 0,
    firstJson,
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status < 500) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer in ${timeoutMs} ms`);
    await sleep(100);
  }
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
}

export interface LoadTarget {
  url: string;
  headers?: Record<string, string>;
}

/** Closed loop: autocannon, keep-alive, fixed connections, fixed duration. */
export function closedLoop(target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  return autocannonLoad(target, connections, { duration: seconds });
}

/** Closed loop for an exact number of requests instead of a duration. */
export function closedLoopCount(
  target: LoadTarget,
  connections: number,
  amount: number,
): Promise<LoadResult> {
  return autocannonLoad(target, connections, { amount });
}

async function autocannonLoad(
  target: LoadTarget,
  connections: number,
  length: { duration: number } | { amount: number },
): Promise<LoadResult> {
  const r = await autocannon({
    url: target.url,
    connections,
    ...length,
    headers: target.headers ?? {},
    timeout: 10,
  });
  return {
    requests: r.requests.total,
    rps: Math.round(r.requests.total / r.duration),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

/** Several autocannon instances at once, one per target (connections split evenly); totals summed. */
export async function closedLoopSplit(
  targets: LoadTarget[],
  connections: number,
  seconds: number,
): Promise<LoadResult & { parts: LoadResult[] }> {
  const per = Math.max(1, Math.floor(connections / targets.length));
  const parts = await Promise.all(targets.map((t) => closedLoop(t, per, seconds)));
  const requests = parts.reduce((s, p) => s + p.requests, 0);
  // Percentiles of the union are not the mean of the parts; the worse part is the honest summary.
  return {
    requests,
    rps: parts.reduce((s, p) => s + p.rps, 0),
    p50_ms: Math.max(...parts.map((p) => p.p50_ms)),
    p99_ms: Math.max(...parts.map((p) => p.p99_ms)),
    errors: parts.reduce((s, p) => s + p.errors, 0),
    non2xx: parts.reduce((s, p) => s + p.non2xx, 0),
    parts,
  };
}
