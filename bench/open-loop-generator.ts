// The open loop's load generator, in a process of its own (started by startOpenLoop in
// open-loop-client.ts, pinned with all its threads to the load CPU). Requests start on a fixed
// schedule whatever the server does, and latency runs from each request's scheduled start, so
// queueing is not hidden (no coordinated omission).
//
// Why a process of its own, on undici's dispatch API: the generator is the instrument. Run inside
// the bench on node's http.request, with a promise kept per request, it allocated enough to pause
// for its own garbage collection every few hundred milliseconds (scavenges of up to 8.5 ms, full
// collections of 7.5 ms at 6,700 req/s), and every pause delayed the sends and the clock readings
// of the server it was measuring; V8's helper threads, started before the bench pinned itself,
// also ran on the server's CPU. Here a request is one small handler object, latencies go into a
// preallocated array, and the process runs with a young generation large enough to scavenge about
// once a second.
//
// Protocol (node IPC): the parent sends {url, headers, rate, seconds}; the child answers with an
// OpenLoopResult. One keep-alive pool per origin for the life of the process (up to 256
// connections, opened as requests need them), so later windows reuse the connections of earlier
// ones, as a client's pool would.
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';

export interface OpenLoopRequest {
  url: string;
  headers: Record<string, string>;
  rate: number;
  seconds: number;
  /** Also list the requests slower than this (a diagnosis: when in the window they were due). */
  slowMs?: number;
  /**
   * Close this origin's pool and open a new one first (for a warm-up: see freshPool). The old
   * pool's connections close now, between windows, instead of all at once when their keep-alive
   * runs out, which may fall inside a measured window.
   */
  freshPool?: boolean;
}

export interface OpenLoopResult {
  target_rps: number;
  achieved_rps: number;
  sent: number;
  completed: number;
  errors: number;
  non2xx: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
  /** With slowMs: [ms after the window's start that each slow request was due, its latency ms]. */
  slow?: [number, number][];
  /** With slowMs: the window's start on CLOCK_MONOTONIC in seconds (the clock perf and the kernel use). */
  start_monotonic_s?: number;
  /**
   * The generator's own lateness: the most a request went out after its slot, and how many went
   * out more than 2 ms late (the generator's timer fires every ≈ 1 ms). A request sent late is
   * still timed from its slot, so this part of its latency is the instrument's, not the target's.
   */
  send_lag_max_ms: number;
  sent_late: number;
  /**
   * The p99 timed from when each request actually went out (the tick that sent it) instead of
   * its slot: the generator's own lateness left out. A diagnosis beside p99_ms, not a substitute:
   * a send delayed by the target's own load on the shared CPU is left out too.
   */
  p99_from_send_ms: number;
}

/** Most connections the generator opens to one origin. */
export const OPEN_LOOP_CONNECTIONS = 256;
const TIMEOUT_MS = 10_000;

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[i] ?? 0) * 1000) / 1000;
}

/** The counters of one window, shared by its requests' handlers. */
class Window {
  readonly latency: Float64Array;
  readonly scheduled: Float64Array;
  readonly sentAt: Float64Array;
  readonly fromSend: Float64Array;
  completed = 0;
  errors = 0;
  non2xx = 0;
  private settled = 0;
  constructor(
    readonly total: number,
    private readonly onDone: () => void,
    private readonly slowAbove = Infinity,
  ) {
    if (slowAbove !== Infinity) this.slow = [];
    this.latency = new Float64Array(total);
    this.scheduled = new Float64Array(total);
    this.sentAt = new Float64Array(total);
    this.fromSend = new Float64Array(total);
  }
  slow: [number, number][] | undefined;
  finish(i: number, ok: boolean): void {
    if (ok) {
      const now = performance.now();
      const ms = now - this.scheduled[i]!;
      this.fromSend[this.completed] = now - this.sentAt[i]!;
      this.latency[this.completed++] = ms;
      if (this.slow && ms > this.slowAbove && this.slow.length < 100_000) this.slow.push([i, ms]);
    } else this.errors++;
    if (++this.settled === this.total) this.onDone();
  }
}

/** One request's handler: a small object with the methods on its prototype. */
class Exchange implements Dispatcher.DispatchHandler {
  constructor(
    private readonly w: Window,
    private readonly i: number,
  ) {}
  onRequestStart(): void {}
  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number): void {
    if (statusCode !== 200) this.w.non2xx++;
  }
  onResponseData(): void {}
  onResponseEnd(): void {
    this.w.finish(this.i, true);
  }
  onResponseError(): void {
    this.w.finish(this.i, false);
  }
}

const pools = new Map<string, Pool>();

/**
 * A pool's connections are opened as requests need them: at a window's start, and again whenever
 * a stall lets requests queue, many at once. Most then sit idle, and undici closes each 63 s after
 * its last use (the bare proxy's and the gateway's 65 s keep-alive less its 2 s margin), so a
 * burst opened in one window is closed in one go 63 s later, on the load CPU. Round 1's window of
 * (a) fell at that moment in most runs, with one stall of up to ≈ 45 ms in it; since this, it was
 * slow in two runs of six (step 29; the proxies' own pools to the stub did the same, step 30).
 * A warm-up asks for a fresh pool instead: the old one is closed before it, a target's pool lives
 * for one warm-up and one window (≈ 12 s, its target idle ≈ 25 s before the next), and no
 * keep-alive runs out in a measured window.
 */
async function freshPool(origin: string): Promise<void> {
  const old = pools.get(origin);
  if (!old) return;
  pools.delete(origin);
  await old.close();
}

function poolFor(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) {
    pool = new Pool(origin, {
      connections: OPEN_LOOP_CONNECTIONS,
      pipelining: 1,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    pools.set(origin, pool);
  }
  return pool;
}

export async function openLoopWindow(req: OpenLoopRequest): Promise<OpenLoopResult> {
  const url = new URL(req.url);
  if (req.freshPool) await freshPool(url.origin);
  const pool = poolFor(url.origin);
  const headers = Object.entries(req.headers).flat();
  const opts: Dispatcher.DispatchOptions = { method: 'GET', path: url.pathname + url.search, headers };
  const total = Math.floor(req.rate * req.seconds);
  let done = (): void => undefined;
  const allDone = new Promise<void>((resolve) => (done = resolve));
  const w = new Window(total, () => done(), req.slowMs);
  if (total === 0) done();
  let sent = 0;
  let lagMax = 0;
  let late = 0;
  const t0 = performance.now();
  const startMono = Number(process.hrtime.bigint()) / 1e9;
  const tick = (): void => {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - t0) / 1000) * req.rate));
    while (sent < due) {
      const slot = t0 + (sent * 1000) / req.rate;
      w.scheduled[sent] = slot;
      w.sentAt[sent] = now;
      if (now - slot > 2) late++;
      if (now - slot > lagMax) lagMax = now - slot;
      pool.dispatch(opts, new Exchange(w, sent));
      sent++;
    }
    // ~1 ms timer granularity: requests due in between go out together, each timed from its own slot.
    if (sent < total) setTimeout(tick, 1);
  };
  tick();
  await allDone;
  const elapsed = (performance.now() - t0) / 1000;
  const sorted = w.latency.subarray(0, w.completed).sort();
  return {
    target_rps: req.rate,
    achieved_rps: Math.round(w.completed / elapsed),
    sent,
    completed: w.completed,
    errors: w.errors,
    non2xx: w.non2xx,
    p50_ms: percentile(sorted, 50),
    p90_ms: percentile(sorted, 90),
    p99_ms: percentile(sorted, 99),
    p999_ms: percentile(sorted, 99.9),
    max_ms: percentile(sorted, 100),
    send_lag_max_ms: Math.round(lagMax * 1000) / 1000,
    sent_late: late,
    p99_from_send_ms: percentile(w.fromSend.subarray(0, w.completed).sort(), 99),
    ...(w.slow && {
      slow: w.slow.map(([i, ms]): [number, number] => [(i * 1000) / req.rate, ms]),
      start_monotonic_s: startMono,
    }),
  };
}

if (require.main === module && process.send) {
  process.on('message', (msg: OpenLoopRequest) => {
    void openLoopWindow(msg).then(
      (r) => process.send?.({ ok: r }),
      (err: unknown) => process.send?.({ error: (err as Error).message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}
