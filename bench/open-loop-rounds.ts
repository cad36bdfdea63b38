// The p99 the gateway adds, measured in alternating open-loop rounds: (a), (d), (a), (d), ...
// One 10 s window on a shared 2-vCPU machine can hold a stall of the machine itself (the direct
// path's own p99 moves between 2 and 7 ms from one window to the next), so, as for d/c, each round
// pairs (a) with the (d) right after it and the median round is the figure; every round is kept.
import { middleBy, openLoop, openLoopPool } from './bench-lib';
import type { LoadTarget, OpenLoopResult } from './bench-lib';

export interface OpenRound {
  a: OpenLoopResult;
  d: OpenLoopResult;
  p99_added_ms: number;
}

export interface OpenLoopComparison {
  rate: number;
  seconds: number;
  rounds: OpenRound[];
  /** The round whose added p99 is the median (the lower middle of an even count). */
  median: OpenRound;
}

const ms = (x: number): number => Math.round(x * 100) / 100;

export async function openLoopRounds(
  direct: LoadTarget,
  gateway: LoadTarget,
  rate: number,
  seconds: number,
  count: number,
): Promise<OpenLoopComparison> {
  const rounds: OpenRound[] = [];
  // One pool per target for all rounds, its connections opened in the warm-up, as a client's pool
  // would be: a round measures requests, not connection set-up at its start.
  const pools = { a: openLoopPool(), d: openLoopPool() };
  try {
    for (let i = 0; i < count; i++) {
      process.stdout.write(`open loop at ${rate} req/s, round ${i + 1}/${count}: (a) ... `);
      if (i === 0) await openLoop(direct, rate, Math.min(2, seconds), pools.a);
      const a = await openLoop(direct, rate, seconds, pools.a);
      process.stdout.write(`p99 ${a.p99_ms} ms; (d) ... `);
      if (i === 0) await openLoop(gateway, rate, Math.min(2, seconds), pools.d);
      const d = await openLoop(gateway, rate, seconds, pools.d);
      const added = ms(d.p99_ms - a.p99_ms);
      console.log(`p99 ${d.p99_ms} ms, added ${added} ms`);
      rounds.push({ a, d, p99_added_ms: added });
    }
  } finally {
    pools.a.destroy();
    pools.d.destroy();
  }
  return { rate, seconds, rounds, median: middleBy(rounds, (r) => r.p99_added_ms)! };
}

export function openLoopMarkdown(o: OpenLoopComparison): string[] {
  const { a, d } = o.median;
  const row = (id: string, r: OpenLoopResult): string =>
    `| ${id} | ${r.achieved_rps} | ${r.p50_ms} | ${r.p90_ms} | ${r.p99_ms} | ${r.p999_ms} | ${r.non2xx} / ${r.errors} |`;
  return [
    '',
    `Open loop at ${o.rate} req/s (50% of (d)'s peak), ${o.seconds} s per target, ${o.rounds.length} alternating rounds (a, d, a, d, ...), latency from scheduled start; the median round:`,
    '',
    '| target | achieved req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('(a) upstream direct', a),
    row('(d) gateway', d),
    '',
    `p99 added by the gateway over (a): ${o.median.p99_added_ms} ms, median of the rounds ${o.rounds.map((r) => r.p99_added_ms).join(', ')} (p50 added in the median round: ${ms(d.p50_ms - a.p50_ms)} ms).`,
  ];
}
