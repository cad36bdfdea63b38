// What a server's main thread spends its CPU on, below JavaScript as well: perf(1) samples of
// that one thread over a window (software clock, so it works in VMs without hardware counters),
// each sorted into a kind of work. `--cpu-prof` sees only JS and calls the native work between the
// event loop's phases idle (step 21 of docs/gateway-performance.md); perf sees all of it. Used by
// `npm run bench -- --sweep --perf`: (c) and (d) side by side, so the gateway's extra CPU per
// request can be told apart into bulk native work (JSON, UTF-8, copies, the kernel) and the work
// of running JavaScript (JIT code, inline caches, builtins).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './bench-lib';

export const NATIVE_KINDS = [
  'JavaScript (JIT code)',
  'V8 inline caches',
  'V8 promises and async',
  'V8 other builtins',
  'JSON',
  'strings and UTF-8',
  'GC',
  'V8 runtime, other',
  'node C++, libuv',
  'libc',
  'kernel',
  'other',
] as const;
export type NativeKind = (typeof NATIVE_KINDS)[number];

/** Samples per CPU second; odd, so it does not beat with timers at round periods. */
export const PERF_HZ = 1999;

const JS_WORK: readonly NativeKind[] = [
  'JavaScript (JIT code)',
  'V8 inline caches',
  'V8 promises and async',
  'V8 other builtins',
  'V8 runtime, other',
];

/** Whether a kind is the work of running JavaScript rather than bulk native work on bytes. */
export function isJsWork(kind: NativeKind): boolean {
  return JS_WORK.includes(kind);
}

/** The kind of work one sample is, from its symbol and the object it is in (`perf script -F sym,dso`). */
export function classifySample(sym: string, dso: string): NativeKind {
  if (dso.includes('kernel')) return 'kernel';
  // Code V8 generated at run time: no file behind it, or named by a --perf-basic-prof map.
  if (dso === '[unknown]' || dso === '//anon' || dso.startsWith('[JIT]') || /perf-\d+\.map$/.test(dso)) {
    return 'JavaScript (JIT code)';
  }
  if (/\/?lib[^/]*\.so/.test(dso)) return 'libc';
  if (dso.includes('vdso')) return 'kernel';
  if (sym.startsWith('Builtins_')) {
    if (/IC(_|Trampoline|$)|IC[A-Z]/.test(sym.slice('Builtins_'.length))) return 'V8 inline caches';
    if (/Promise|Async|Microtask|Generator|Await/.test(sym)) return 'V8 promises and async';
    return 'V8 other builtins';
  }
  if (/^v8::internal::Json/.test(sym)) return 'JSON';
  if (/Scaveng|MarkCompact|Sweeper|Evacuat|Marking|Heap::|NewSpace|PagedSpace|MemoryChunk/.test(sym)) {
    return 'GC';
  }
  if (/^v8::(internal::)?\S*(String|Utf8|Latin1|CopyChars)|^node::StringBytes|^simdutf/.test(sym)) {
    return 'strings and UTF-8';
  }
  if (/^v8::/.test(sym)) return 'V8 runtime, other';
  if (/^node::|^uv_|^uv__|^llhttp/.test(sym)) return 'node C++, libuv';
  return 'other';
}

/** Samples by kind from `perf script -F ip,sym,dso` output: "<ip> <symbol> (<dso>)" per line. */
export function countKinds(script: string): Map<NativeKind, number> {
  const counts = new Map<NativeKind, number>();
  for (const line of script.split('\n')) {
    const m = /^\s*[0-9a-f]+\s+(.*?)\s*\(([^()]*)\)\s*$/.exec(line);
    if (!m) continue;
    const kind = classifySample(m[1] ?? '', m[2] ?? '');
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

/** µs of one thread's CPU per request by kind, from sample counts at hz samples per CPU second. */
export function perRequest(
  counts: ReadonlyMap<NativeKind, number>,
  hz: number,
  requests: number,
): Partial<Record<NativeKind, number>> {
  const out: Partial<Record<NativeKind, number>> = {};
  if (requests <= 0) return out;
  for (const kind of NATIVE_KINDS) {
    const n = counts.get(kind);
    if (n) out[kind] = Math.round((n / hz / requests) * 1e7) / 10;
  }
  return out;
}

/** Whether perf can sample a process here (installed, and allowed to). */
export function perfAvailable(): boolean {
  const r = spawnSync('perf', ['record', '-e', 'cpu-clock', '-o', '/dev/null', '-q', '--', 'true'], {
    stdio: 'ignore',
  });
  return r.status === 0;
}

/** Samples the thread `tid` (a process's main thread has its pid) while `run` runs. */
export async function nativeDuring<T>(
  tid: number,
  run: () => Promise<T>,
  hz = PERF_HZ,
): Promise<{ result: T; counts: Map<NativeKind, number> }> {
  const dir = mkdtempSync(join(tmpdir(), 'lk-bench-perf-'));
  const file = join(dir, 'perf.data');
  const perf = spawn(
    'perf',
    ['record', '-e', 'cpu-clock', '-F', String(hz), '-t', String(tid), '-o', file, '-q'],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()));
  try {
    await sleep(300); // perf attaches before the window starts
    const result = await run();
    perf.kill('SIGINT');
    await exited;
    const script = spawnSync('perf', ['script', '-i', file, '-F', 'ip,sym,dso'], {
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    });
    return { result, counts: countKinds(script.stdout ?? '') };
  } finally {
    if (perf.exitCode === null) perf.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
