// The p99 the gateway adds, measured in alternating open-loop rounds: (a), (c), (d), (a), (c), (d), ...
// One 10 s window on a shared 2-vCPU machine can hold a stall of the machine itself (the direct
// path's own p99 moves between 2 and 7 ms from one window to the next), so, as for d/c, each round
// pairs (a) with the (c) and (d) right after it and the median round is the figure; every round is
// kept. (c), the bare proxy, is what Node itself adds on the same path: the limit for the gateway.
//
// Every measured window follows a warm-up window on the same target: while the other targets are
// measured a server sits idle, and after a few idle seconds V8's memory reducer shrinks its heap,
// so that the first second of load brings a full collection and regrows the young generation
// (a 0.4-1.2 s stall with single requests waiting up to 660 ms, measured on the gateway). A round
// measures the server under steady load at the rate, not its resumption after the other's round.
import { cpuDuring, middleBy, percentOfCore, stealMsByCpu, usPerRequest } from './bench-lib';
import type { LoadTarget } from './bench-lib';
import type { OpenLoop, OpenLoopResult } from './open-loop-client';

/**
 * One measured window, with the steal during it when the kernel reports it: on the server's CPU, and
 * on the others (the load generator, the stub, Redis), whose stalls delay every target.
 */
export type OpenWindow = OpenLoopResult & {
  server_steal_ms?: number;
  load_steal_ms?: number;
  /**
   * CPU time of the server under test during the window, as a share of one core's wall time: how
   * busy it is at the rate, so how fast a queue left by a stall drains (at 100 % - this).
   */
  server_busy_pct?: number;
  /** The kernel's part of it (system calls, wake-ups), in the same unit. */
  server_sys_pct?: number;
  server_cpu_us_per_req?: number;
  /**
   * The server's full (mark-compact) collections during the window, when it reports them (the
   * gateway's /metrics): one inside a window is enough to put its p99 over the line (step 23).
   */
  server_full_gcs?: number;
};

export interface OpenRound {
  a: OpenWindow;
  c?: OpenWindow;
  d: OpenWindow;
  p99_added_ms: number;
  /** What the bare proxy adds over (a) in the same round. */
  c_p99_added_ms?: number;
  /** The same, each p99 timed from the request's actual send (see p99_from_send_ms). */
  from_send_p99_added_ms: number;
  c_from_send_p99_added_ms?: number;
}

export interface OpenLoopComparison {
  rate: number;
  seconds: number;
  warmup_s: number;
  /** Seconds each target ran at the rate, unmeasured, before the first round (0: none). */
  first_warmup_s?: number;
  rounds: OpenRound[];
  /** The round whose added p99 is the median (the lower middle of an even count). */
  median: OpenRound;
  /** The median of the bare proxy's added p99 over the rounds, when (c) was measured. */
  c_p99_added_ms?: number;
  /** The medians over the rounds of the added p99s timed from each request's actual send. */
  from_send_p99_added_ms: number;
  c_from_send_p99_added_ms?: number;
}

const ms = (x: number): number => Math.round(x * 100) / 100;

/**
 * Load at the rate before a measured window, on a pool of its own: the target's previous pool is
 * closed first, so no keep-alive of an earlier window's connections runs out inside the next one
 * (step 29 of the doc). Every warm-up of the bench and of its A/B goes through here.
 */
export const warmUp = (
  gen: OpenLoop,
  target: LoadTarget,
  rate: number,
  seconds: number,
): Promise<OpenLoopResult> => gen.run(target, rate, seconds, { freshPool: true });

/**
 * A target of the open loop, with the processes that serve it when their CPU is to be read, and its
 * count of full collections so far when it reports one.
 */
export type OpenTarget = LoadTarget & { pids?: () => number[]; fullGcs?: () => Promise<number | undefined> };

export interface OpenTargets {
  a: OpenTarget;
  c?: OpenTarget;
  d: OpenTarget;
}

export async function openLoopRounds(
  gen: OpenLoop,
  targets: OpenTargets,
  rate: number,
  seconds: number,
  count: number,
  warmup = 2,
  serverCpu?: number,
  firstWarmup = 0,
): Promise<OpenLoopComparison> {
  const rounds: OpenRound[] = [];
  // Each target at the rate, unmeasured, before the first round. A gateway that has only seen the
  // closed loop adapts to the open loop's single requests: 18 of node's HTTP functions deoptimised
  // at its first window's start (step 25). A replica does that once in its life; the rounds measure
  // the steady state. (Part of what made those first windows slow was the bench process's own idle
  // collection on the load CPU, since turned off; step 26.)
  if (firstWarmup > 0) {
    console.log(`open loop at ${rate} req/s: ${firstWarmup} s on each target first, not measured`);
    for (const t of [targets.a, targets.c, targets.d]) if (t) await warmUp(gen, t, rate, firstWarmup);
  }
  // A window's connections are opened in its warm-up, on a pool of its own, and kept for the
  // window: a round measures requests, not connection set-up, and no keep-alive of an earlier
  // window's connections runs out inside it.
  const measure = async (t: OpenTarget): Promise<OpenWindow> => {
    if (warmup > 0) await warmUp(gen, t, rate, warmup);
    const gcsBefore = await t.fullGcs?.();
    const before = serverCpu === undefined ? undefined : stealMsByCpu();
    const pids = t.pids?.();
    const used = await cpuDuring(pids ?? [], () => gen.run(t, rate, seconds));
    const r: OpenWindow = used.result;
    if (pids) {
      const cpu = used.user + used.system;
      r.server_busy_pct = percentOfCore(cpu, used.wall);
      r.server_sys_pct = percentOfCore(used.system, used.wall);
      r.server_cpu_us_per_req = usPerRequest(cpu, r.completed);
    }
    const after = serverCpu === undefined ? undefined : stealMsByCpu();
    if (before && after && serverCpu !== undefined) {
      const diff = after.map((x, cpu) => x - (before[cpu] ?? x));
      r.server_steal_ms = Math.round(diff[serverCpu] ?? 0);
      r.load_steal_ms = Math.round(diff.reduce((sum, x, cpu) => (cpu === serverCpu ? sum : sum + x), 0));
    }
    const gcsAfter = gcsBefore === undefined ? undefined : await t.fullGcs?.();
    if (gcsBefore !== undefined && gcsAfter !== undefined) r.server_full_gcs = gcsAfter - gcsBefore;
    return r;
  };
  const steal = (r: OpenWindow): string =>
    (r.server_steal_ms === undefined ? '' : ` (steal ${r.server_steal_ms} + ${r.load_steal_ms ?? 0} ms)`) +
    (r.server_busy_pct === undefined ? '' : `, busy ${r.server_busy_pct} % (${r.server_sys_pct} % system)`) +
    (r.server_full_gcs ? `, ${r.server_full_gcs} full GC` : '');
  for (let i = 0; i < count; i++) {
    process.stdout.write(`open loop at ${rate} req/s, round ${i + 1}/${count}: (a) ... `);
    const a = await measure(targets.a);
    process.stdout.write(`p99 ${a.p99_ms} ms${steal(a)}; `);
    let c: OpenWindow | undefined;
    if (targets.c) {
      process.stdout.write('(c) ... ');
      c = await measure(targets.c);
      process.stdout.write(`p99 ${c.p99_ms} ms${steal(c)}, added ${ms(c.p99_ms - a.p99_ms)} ms; `);
    }
    process.stdout.write('(d) ... ');
    const d = await measure(targets.d);
    const added = ms(d.p99_ms - a.p99_ms);
    console.log(`p99 ${d.p99_ms} ms${steal(d)}, added ${added} ms`);
    rounds.push({
      a,
      ...(c && {
        c,
        c_p99_added_ms: ms(c.p99_ms - a.p99_ms),
        c_from_send_p99_added_ms: ms(c.p99_from_send_ms - a.p99_from_send_ms),
      }),
      d,
      p99_added_ms: added,
      from_send_p99_added_ms: ms(d.p99_from_send_ms - a.p99_from_send_ms),
    });
  }
  const cAdded = rounds.filter((r) => r.c_p99_added_ms !== undefined);
  return {
    rate,
    seconds,
    warmup_s: warmup,
    first_warmup_s: firstWarmup,
    rounds,
    median: middleBy(rounds, (r) => r.p99_added_ms)!,
    ...(cAdded.length > 0 && { c_p99_added_ms: middleBy(cAdded, (r) => r.c_p99_added_ms!)!.c_p99_added_ms }),
    from_send_p99_added_ms: middleBy(rounds, (r) => r.from_send_p99_added_ms)!.from_send_p99_added_ms,
    ...(cAdded.length > 0 && {
      c_from_send_p99_added_ms: middleBy(cAdded, (r) => r.c_from_send_p99_added_ms!)!
        .c_from_send_p99_added_ms,
    }),
  };
}

function lateness(a: OpenLoopResult, c: OpenLoopResult | undefined, d: OpenLoopResult): string {
  const targets: [string, OpenLoopResult][] = [
    ['(a)', a],
    ...(c ? [['(c)', c] as [string, OpenLoopResult]] : []),
    ['(d)', d],
  ];
  return targets.map(([id, r]) => `${id} ${r.sent_late}, at most ${r.send_lag_max_ms} ms late`).join('; ');
}

/** How busy each server was at the rate: what a stall's queue drains at. */
function busyLine(rounds: readonly OpenRound[]): string[] {
  if (rounds.every((r) => r.d.server_busy_pct === undefined)) return [];
  const one = (r: OpenRound): string =>
    [r.a, ...(r.c ? [r.c] : []), r.d]
      .map(
        (w) =>
          `${w.server_busy_pct ?? '?'} % (${w.server_sys_pct ?? '?'} % system, ${w.server_cpu_us_per_req ?? '?'} µs)`,
      )
      .join(' / ');
  const order = rounds[0]?.c ? '(a) / (c) / (d)' : '(a) / (d)';
  return [
    `The server's CPU in each measured window, % of one core (the kernel's part) and µs per request, ${order} by round: ${rounds.map(one).join('; ')}.`,
  ];
}

/** The gateway's full collections per measured window, when it reported them. */
function fullGcLine(rounds: readonly OpenRound[]): string[] {
  if (rounds.every((r) => r.d.server_full_gcs === undefined)) return [];
  const counts = rounds.map((r) => r.d.server_full_gcs ?? '?');
  const within = (gc: boolean): string => {
    const added = rounds
      .filter((r) => r.d.server_full_gcs !== undefined && r.d.server_full_gcs > 0 === gc)
      .map((r) => r.p99_added_ms);
    return added.length === 0 ? 'none' : added.join(', ');
  };
  return [
    `Full GCs of the gateway in each measured window (its /metrics), by round: ${counts.join(', ')}; p99 added in the windows with one: ${within(true)}; without: ${within(false)}.`,
  ];
}

/** The host's share of the stalls: steal per window, when it was read. */
function stealLine(rounds: readonly OpenRound[]): string[] {
  if (rounds.every((r) => r.d.server_steal_ms === undefined)) return [];
  const one = (r: OpenRound): string =>
    [r.a, ...(r.c ? [r.c] : []), r.d]
      .map((w) => `${w.server_steal_ms ?? '?'} + ${w.load_steal_ms ?? '?'}`)
      .join(' / ');
  const order = rounds[0]?.c ? '(a) / (c) / (d)' : '(a) / (d)';
  return [
    `Steal in each measured window, ms, on the server's CPU + on the load's, ${order} by round: ${rounds.map(one).join('; ')}.`,
  ];
}

export function openLoopMarkdown(o: OpenLoopComparison): string[] {
  const { a, c, d } = o.median;
  const row = (id: string, r: OpenLoopResult): string =>
    `| ${id} | ${r.achieved_rps} | ${r.p50_ms} | ${r.p90_ms} | ${r.p99_ms} | ${r.p999_ms} | ${r.non2xx} / ${r.errors} |`;
  const order = c ? '(a), (c), (d)' : '(a), (d)';
  return [
    '',
    `Open loop at ${o.rate} req/s (50% of (d)'s peak), ${o.seconds} s per target after ${o.warmup_s} s at the same rate${o.first_warmup_s ? ` (and ${o.first_warmup_s} s on each before the first round)` : ''}, ${o.rounds.length} rounds of ${order}, latency from scheduled start; the round with the median p99 added by (d):`,
    '',
    '| target | achieved req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('(a) upstream direct', a),
    ...(c ? [row('(c) bare Node proxy', c)] : []),
    row('(d) gateway', d),
    '',
    `The generator's own lateness in those windows (requests sent more than 2 ms after their slot, still timed from it): ${lateness(a, c, d)}.`,
    ...stealLine(o.rounds),
    ...busyLine(o.rounds),
    ...fullGcLine(o.rounds),
    `p99 added by the gateway over (a): ${o.median.p99_added_ms} ms, median of the rounds ${o.rounds.map((r) => r.p99_added_ms).join(', ')} (p50 added in the median round: ${ms(d.p50_ms - a.p50_ms)} ms).`,
    ...(o.c_p99_added_ms !== undefined
      ? [
          `p99 added by the bare proxy (c) over (a): ${o.c_p99_added_ms} ms, median of the rounds ${o.rounds.map((r) => r.c_p99_added_ms).join(', ')}.`,
        ]
      : []),
    `Diagnosis, not the figure: timed from each request's actual send instead of its slot (the generator's lateness left out), p99 added by the gateway ${o.from_send_p99_added_ms} ms (rounds ${o.rounds.map((r) => r.from_send_p99_added_ms).join(', ')})${o.c_from_send_p99_added_ms !== undefined ? `, by the bare proxy ${o.c_from_send_p99_added_ms} ms (rounds ${o.rounds.map((r) => r.c_from_send_p99_added_ms).join(', ')})` : ''}.`,
  ];
}
