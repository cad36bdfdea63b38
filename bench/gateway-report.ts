// Results of the gateway bench: the JSON under bench/results/ and the markdown table printed at the end.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { middleBy } from './bench-lib';
import type { LoadResult, Machine } from './bench-lib';
import { openLoopMarkdown } from './open-loop-rounds';
import type { OpenLoopComparison } from './open-loop-rounds';
import { ROOT } from './gateway-setup';

const RESULTS = join(ROOT, 'bench', 'results');

export interface Measured extends LoadResult {
  id: string;
  label: string;
  cpu_s: number;
  cpu_us_per_req: number;
  processes: number;
  note?: string;
  parts?: LoadResult[];
}

export interface Method {
  path: string;
  connections: number;
  duration_s: number;
  warmup_s: number;
  rounds: number;
  open_loop_s: number;
  log_level: string;
  pinning: string;
}

export const ratio = (x: number | undefined, y: number | undefined): number | null =>
  x !== undefined && y !== undefined && y > 0 ? Math.round((x / y) * 1000) / 1000 : null;

/** The middle value (the lower middle of an even count). */
export function median(xs: readonly number[]): number {
  return middleBy(xs, (x) => x) ?? 0;
}

/** The measured run whose throughput is the median of its rounds: a real run, not an average. */
export function medianRun(runs: readonly Measured[]): Measured | undefined {
  return middleBy(runs, (r) => r.rps);
}

/**
 * The commit the tree is at, with `+changes` when it holds edits outside bench/results/: which code a
 * run measured (`unknown` outside a git checkout).
 */
export function treeRevision(dir = ROOT): string {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, stdio: 'pipe' }).toString().trim();
  try {
    const head = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', '.', ':!bench/results') ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

/**
 * Writes the run's JSON as `<name>-<date>.json` and `<name>-latest.json`. A second run on the same
 * day gets `<name>-<date>T<hhmmss>.json` rather than replacing the first one's file.
 */
export function writeResults(name: string, data: unknown, now = new Date()): string {
  mkdirSync(RESULTS, { recursive: true });
  const iso = now.toISOString();
  const dated = join(RESULTS, `${name}-${iso.slice(0, 10)}.json`);
  const file = existsSync(dated)
    ? join(RESULTS, `${name}-${iso.slice(0, 10)}T${iso.slice(11, 19).replaceAll(':', '')}.json`)
    : dated;
  const text = JSON.stringify(data, null, 2) + '\n';
  writeFileSync(file, text);
  writeFileSync(join(RESULTS, `${name}-latest.json`), text);
  return file;
}

export function markdown(
  m: Machine,
  method: Method,
  rows: Measured[],
  rounds: { c: Measured[]; d: Measured[]; dc: number[] },
  open: OpenLoopComparison | undefined,
  ratios: Record<string, number | null>,
  notes: string[],
): string {
  const lines = [
    `Machine: ${m.nproc} × ${m.cpu_model}, Node ${m.node}, load average ${m.load_average.join(' / ')} (1/5/15 min) at the end.`,
    `Load: autocannon, keep-alive, ${method.connections} connections, ${method.duration_s} s after ${method.warmup_s} s warm-up, GET ${method.path} (upstream body ≈2 KB). ${method.pinning}`,
    '',
    '| target | req/s | p50 ms | p99 ms | CPU µs/req (server) | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| (${r.id}) ${r.label} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.cpu_us_per_req} | ${r.non2xx} / ${r.errors} |`,
    ),
  ];
  if (rounds.c.length > 1 || rounds.d.length > 1) {
    const list = (xs: Measured[]): string => xs.map((r) => `${r.rps} (${r.cpu_us_per_req} µs)`).join(', ');
    lines.push(
      '',
      `Rounds, (c) and (d) alternating, req/s (CPU µs/req): (c) ${list(rounds.c)}; (d) ${list(rounds.d)}; d/c per round ${rounds.dc.join(', ')}.`,
    );
  }
  lines.push(
    '',
    `Ratios (throughput): d/c = ${ratios['d/c'] ?? 'n/a'}, d/b = ${ratios['d/b'] ?? 'n/a'}, e/d = ${ratios['e/d'] ?? 'n/a'}; d/c-http = ${ratios['d/c-http'] ?? 'n/a'}.`,
  );
  if (open) lines.push(...openLoopMarkdown(open));
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n');
}
