// Self time by function from a V8 .cpuprofile (node --cpu-prof): which code the gateway's CPU goes to.
//   npx tsx bench/profile-summary.ts <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  fn: string;
  where: string;
  self_ms: number;
  /** Share of the non-idle samples. */
  self_pct: number;
}

function where(cf: CallFrame): string {
  if (!cf.url) return '';
  const url = cf.url.replace(/^file:\/\//, '');
  const nm = url.lastIndexOf('node_modules/');
  const short =
    nm >= 0
      ? url.slice(nm + 'node_modules/'.length)
      : url.replace(/^.*\/(src|dist|var\/bench-dist)\//, '$1/');
  return `${short}:${cf.lineNumber + 1}`;
}

/** Package (node_modules), node internals, gateway source file, or a V8 pseudo-frame. */
export function area(cf: CallFrame): string {
  const url = cf.url.replace(/^file:\/\//, '');
  if (!url) return cf.functionName.startsWith('(') ? cf.functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const m = /\/(?:src|var\/bench-dist|dist)\/(.*)$/.exec(url);
  return m ? `gateway:${m[1]}` : url;
}

function selfTimes(file: string): {
  byNode: Map<number, number>;
  nodes: Map<number, ProfileNode>;
  busy: number;
} {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
  const byNode = new Map<number, number>();
  let busy = 0;
  prof.samples.forEach((id, i) => {
    const dt = (prof.timeDeltas[i] ?? 0) / 1000;
    byNode.set(id, (byNode.get(id) ?? 0) + dt);
    if (nodes.get(id)?.callFrame.functionName !== '(idle)') busy += dt;
  });
  return { byNode, nodes, busy };
}

export function summarizeProfile(file: string, top = 30): ProfileRow[] {
  const { byNode, nodes, busy } = selfTimes(file);
  const agg = new Map<string, ProfileRow>();
  for (const [id, ms] of byNode) {
    const cf = nodes.get(id)?.callFrame;
    if (!cf || cf.functionName === '(idle)') continue;
    const fn = cf.functionName || '(anonymous)';
    const w = where(cf);
    const k = `${fn}@${w}`;
    const row = agg.get(k) ?? { fn, where: w, self_ms: 0, self_pct: 0 };
    row.self_ms += ms;
    agg.set(k, row);
  }
  return [...agg.values()]
    .map((r) => ({ ...r, self_ms: Math.round(r.self_ms), self_pct: busy ? (100 * r.self_ms) / busy : 0 }))
    .sort((a, b) => b.self_ms - a.self_ms)
    .slice(0, top);
}

export function summarizeAreas(file: string): { area: string; self_pct: number }[] {
  const { byNode, nodes, busy } = selfTimes(file);
  const agg = new Map<string, number>();
  for (const [id, ms] of byNode) {
    const cf = nodes.get(id)?.callFrame;
    if (!cf || cf.functionName === '(idle)') continue;
    const a = area(cf);
    agg.set(a, (agg.get(a) ?? 0) + ms);
  }
  return [...agg.entries()]
    .map(([a, ms]) => ({ area: a, self_pct: busy ? (100 * ms) / busy : 0 }))
    .sort((x, y) => y.self_pct - x.self_pct);
}

/**
 * Inclusive (self + callees) time by function: each sample counts once for every distinct function
 * on its stack. Says where native time (writev, string writes) comes from.
 */
export function summarizeInclusive(
  file: string,
  top = 40,
  filter: (r: ProfileRow) => boolean = () => true,
): ProfileRow[] {
  const { byNode, nodes, busy } = selfTimes(file);
  const parent = new Map<number, number>();
  for (const n of nodes.values()) for (const c of n.children ?? []) parent.set(c, n.id);
  const agg = new Map<string, ProfileRow>();
  for (const [id, ms] of byNode) {
    if (nodes.get(id)?.callFrame.functionName === '(idle)') continue;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = nodes.get(cur)?.callFrame;
      if (!cf || cf.functionName === '(root)') continue;
      const fn = cf.functionName || '(anonymous)';
      const w = where(cf);
      const k = `${fn}@${w}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const row = agg.get(k) ?? { fn, where: w, self_ms: 0, self_pct: 0 };
      row.self_ms += ms;
      agg.set(k, row);
    }
  }
  return [...agg.values()]
    .map((r) => ({ ...r, self_ms: Math.round(r.self_ms), self_pct: busy ? (100 * r.self_ms) / busy : 0 }))
    .filter(filter)
    .sort((a, b) => b.self_ms - a.self_ms)
    .slice(0, top);
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
  const top = Number(process.argv[3] ?? 40);
  console.log('self time by function (% of non-idle samples):');
  for (const r of summarizeProfile(file, top))
    console.log(`${r.self_pct.toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
  console.log(
    '\ninclusive time by function (% of non-idle samples; a sample counts once per function on its stack):',
  );
  for (const r of summarizeInclusive(file, top))
    console.log(`${r.self_pct.toFixed(1).padStart(5)}%  ${r.fn}  ${r.where}`);
  console.log('\nself time by package / file:');
  for (const r of summarizeAreas(file).slice(0, 30))
    console.log(`${r.self_pct.toFixed(1).padStart(5)}%  ${r.area}`);
}
