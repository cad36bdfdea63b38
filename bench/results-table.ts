// Every recorded run of the gateway bench as one markdown table, read from bench/results/, and a
// summary of them by kind of host or by Node major: the record's tables come from here, not copied by hand.
//   npx tsx bench/results-table.ts [--since=2026-11-25T09] [--by-host | --by-node]
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './gateway-setup';

/** The fields of a run's JSON this table reads (gateway-bench.ts writes them). */
export interface RecordedRun {
  date: string;
  machine: { cpu_model: string; cpu_kind?: string; node?: string };
  revision?: string;
  notes?: string[];
  results: { id: string; rps: number }[];
  rounds?: { dc?: number[] };
  ratios: Record<string, number | null>;
  open_loop: {
    rate: number;
    first_warmup_s?: number;
    p99_added_ms: number;
    c_p99_added_ms?: number;
    rounds?: { p99_added_ms: number }[];
  } | null;
}

export interface RunRow {
  file: string;
  date: string;
  cpu: string;
  /** The host's vendor, family and model: the run's own record, else host-kinds.json's, else its CPU's name. */
  kind: string;
  revision: string;
  /** "Node 20", from the run's record; "Node not recorded" for runs before the bench wrote it. */
  node: string;
  /**
   * The heap the gateway had (the host's, or a replica's from step 19 on), any diagnostic flags, and
   * the open loop's first warm-up when it had one (step 25).
   */
  ranWith: string;
  directRps: number | null;
  dc: number | null;
  dcRange: string;
  rate: number | null;
  p99Added: number | null;
  roundsUnder: string;
  bareP99Added: number | null;
  bothMet: boolean;
}

export const TARGET_DC = 0.7;
export const TARGET_P99_ADDED_MS = 5;

const NOT_RECORDED = 'not recorded';
/** Names a run's host by its CPU's name alone when neither its record nor host-kinds.json has more. */
const UNRECORDED_SUFFIX = `, family and model ${NOT_RECORDED}`;

const nodeMajor = (version: string | undefined): string | undefined => /^v?(\d+)\./.exec(version ?? '')?.[1];

/**
 * What the run's notes say (d) ran with beyond the product's own flags, its Node when that is not
 * the major most runs used (`otherNode`), and the open loop's first warm-up when the run had one.
 */
function ranWith(run: RecordedRun, otherNode: boolean): string {
  const notes = run.notes ?? [];
  const firstWarmupS = run.open_loop?.first_warmup_s;
  const heap = notes.some((n) => n.includes('--max-old-space-size=')) ? 'replica heap' : 'host heap';
  const node = run.machine.node;
  const nodeNamed = node !== undefined && otherNode ? [`Node ${node.replace(/^v/, '')}`] : [];
  const extra = notes.flatMap((n) => {
    const m = /flags as well: (.+)$/.exec(n) ?? /ran with (\S+) as well/.exec(n);
    return m ? [m[1]!] : [];
  });
  const warmup = firstWarmupS ? [`open loop after ${firstWarmupS} s first`] : [];
  return [heap, ...nodeNamed, ...extra, ...warmup].join(', ');
}

/**
 * One run's figures against the two ratio targets; null where the run did not measure it.
 * `usualNodeMajor` is the Node major most runs were made on: a run on another is marked.
 */
export function runRow(
  file: string,
  run: RecordedRun,
  usualNodeMajor?: string,
  kinds: Readonly<Record<string, string>> = {},
): RunRow {
  const dcRounds = run.rounds?.dc ?? [];
  const open = run.open_loop;
  const added = open?.rounds?.map((r) => r.p99_added_ms) ?? [];
  const dc = run.ratios['d/c'] ?? null;
  const p99Added = open?.p99_added_ms ?? null;
  const cpu = run.machine.cpu_model.replace(/\(R\)/g, '').replace(/ Processor.*$/, '');
  const major = nodeMajor(run.machine.node);
  return {
    file,
    date: run.date.slice(0, 16).replace('T', ' '),
    cpu,
    kind: run.machine.cpu_kind ?? kinds[file] ?? `${cpu}${UNRECORDED_SUFFIX}`,
    revision: run.revision ?? '—',
    node: `Node ${major ?? 'not recorded'}`,
    ranWith: ranWith(run, major !== (usualNodeMajor ?? major)),
    directRps: run.results.find((r) => r.id === 'a')?.rps ?? null,
    dc,
    dcRange: dcRounds.length > 1 ? `${Math.min(...dcRounds)}–${Math.max(...dcRounds)}` : '—',
    rate: open?.rate ?? null,
    p99Added,
    roundsUnder:
      added.length > 0 ? `${added.filter((x) => x <= TARGET_P99_ADDED_MS).length}/${added.length}` : '—',
    bareP99Added: open?.c_p99_added_ms ?? null,
    bothMet: dc !== null && p99Added !== null && dc >= TARGET_DC && p99Added <= TARGET_P99_ADDED_MS,
  };
}

const cell = (x: number | null): string => (x === null ? '—' : String(x));

export function runsMarkdown(rows: readonly RunRow[]): string {
  const met = rows.filter((r) => r.bothMet).length;
  return [
    '| run ended (UTC) | host | build | gateway ran with | (a) req/s | d/c (rounds) | open-loop req/s | p99 added ms (rounds ≤ 5 ms) | bare proxy adds ms | both targets | file |',
    '|---|---|---|---|---:|---|---:|---|---:|:-:|---|',
    ...rows.map(
      (r) =>
        `| ${r.date} | ${r.kind.endsWith(UNRECORDED_SUFFIX) ? r.cpu : r.kind} | ${r.revision} | ${r.ranWith} | ${cell(r.directRps)} | ${cell(r.dc)} (${r.dcRange}) | ${cell(r.rate)} | ${cell(r.p99Added)} (${r.roundsUnder}) | ${cell(r.bareP99Added)} | ${r.bothMet ? 'yes' : 'no'} | \`${r.file}\` |`,
    ),
    '',
    `Both targets (d/c ≥ ${TARGET_DC}, p99 added ≤ ${TARGET_P99_ADDED_MS} ms) in ${met} of ${rows.length} runs.`,
  ].join('\n');
}

/** The value most of `xs` have (the first of equals); undefined ones are not counted. */
function mostCommon(xs: readonly (string | undefined)[]): string | undefined {
  const counts = new Map<string, number>();
  for (const x of xs) if (x !== undefined) counts.set(x, (counts.get(x) ?? 0) + 1);
  let best: string | undefined;
  for (const [x, n] of counts) if (best === undefined || n > counts.get(best)!) best = x;
  return best;
}

/** The kinds of host that runs recorded before the bench wrote its own (file → kind), if listed. */
function hostKinds(dir: string): Record<string, string> {
  const path = join(dir, 'host-kinds.json');
  if (!existsSync(path)) return {};
  return (JSON.parse(readFileSync(path, 'utf8')) as { kinds: Record<string, string> }).kinds;
}

/** The full runs of the bench (not its A/B, soak, partial or latest files), oldest first. */
export function recordedRuns(dir: string, since = ''): RunRow[] {
  const runs = readdirSync(dir)
    .filter((f) => /^gateway-\d{4}-\d{2}-\d{2}[-T\w]*\.json$/.test(f))
    .map((f) => ({ f, run: JSON.parse(readFileSync(join(dir, f), 'utf8')) as RecordedRun }));
  const usual = mostCommon(runs.map(({ run }) => nodeMajor(run.machine.node)));
  const kinds = hostKinds(dir);
  return runs
    .map(({ f, run }) => runRow(f, run, usual, kinds))
    .filter((r) => r.rate !== null && r.date.replace(' ', 'T') >= since)
    .sort((a, b) => a.date.localeCompare(b.date));
}

const figure = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

const span = (xs: readonly number[]): string => {
  if (xs.length === 0) return '—';
  const [lo, hi] = [Math.min(...xs), Math.max(...xs)].map((x) => figure.format(x));
  return lo === hi ? lo! : `${lo}–${hi}`;
};

const share = (n: number, of: number): string => `${n} (${Math.round((100 * n) / of)} %)`;

function summaryLine(kind: string, rows: readonly RunRow[]): string {
  const dcs = rows.flatMap((r) => (r.dc === null ? [] : [r.dc]));
  const direct = rows.flatMap((r) => (r.directRps === null ? [] : [r.directRps]));
  const dcMet = rows.filter((r) => r.dc !== null && r.dc >= TARGET_DC).length;
  const tailMet = rows.filter((r) => r.p99Added !== null && r.p99Added <= TARGET_P99_ADDED_MS).length;
  const both = rows.filter((r) => r.bothMet).length;
  return `| ${kind} | ${rows.length} | ${span(direct)} | ${span(dcs)} | ${share(dcMet, rows.length)} | ${share(tailMet, rows.length)} | ${share(both, rows.length)} |`;
}

/**
 * The runs summed by `keyOf`, with how often each target held: `before` orders the groups where it
 * tells them apart, most runs first otherwise.
 */
function summaryTable(
  title: string,
  rows: readonly RunRow[],
  keyOf: (r: RunRow) => string,
  before: (a: string, b: string) => number = () => 0,
): string {
  const groups = new Map<string, RunRow[]>();
  for (const r of rows) {
    const key = keyOf(r);
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const order = [...groups.keys()].sort(
    (a, b) => before(a, b) || groups.get(b)!.length - groups.get(a)!.length,
  );
  return [
    `| ${title} | runs | (a) req/s | d/c | d/c ≥ ${TARGET_DC} | p99 added ≤ ${TARGET_P99_ADDED_MS} ms | both |`,
    '|---|---:|---|---|---:|---:|---:|',
    ...order.map((k) => summaryLine(k, groups.get(k)!)),
    summaryLine('**all**', rows),
  ].join('\n');
}

/** The runs by kind of host, most runs first (hosts not recorded last), with how often each target held. */
export function hostsMarkdown(rows: readonly RunRow[]): string {
  // Any kind missing its model or more sorts last; only one missing both is shown by CPU name instead.
  const unrecorded = (k: string): number => Number(k.includes(NOT_RECORDED));
  return summaryTable(
    'host (vendor, family, model)',
    rows,
    (r) => r.kind,
    (a, b) => unrecorded(a) - unrecorded(b),
  );
}

/** The runs by the Node major (d) ran on, most runs first, with how often each target held. */
export function nodesMarkdown(rows: readonly RunRow[]): string {
  return summaryTable('Node', rows, (r) => r.node);
}

if (require.main === module) {
  const since = process.argv.find((a) => a.startsWith('--since='))?.slice('--since='.length) ?? '';
  const rows = recordedRuns(join(ROOT, 'bench', 'results'), since);
  const summary = process.argv.includes('--by-host')
    ? hostsMarkdown
    : process.argv.includes('--by-node')
      ? nodesMarkdown
      : runsMarkdown;
  console.log(summary(rows));
}
