/**
 * `npm run bench -- --sweep --perf` splits each server's CPU per request by kind of work from
 * perf(1)'s samples (bench/native-profile.ts): each sample is sorted by its symbol and object, and
 * the counts become µs per request.
 */
import { classifySample, countKinds, isJsWork, perRequest } from '../../bench/native-profile';
import { nativeTable } from '../../bench/concurrency-sweep';
import type { SweepPoint } from '../../bench/concurrency-sweep';

describe('sorting perf samples into kinds of work', () => {
  it.each([
    ['_raw_spin_lock', '[kernel.kallsyms]', 'kernel'],
    ['__vdso_clock_gettime', '[vdso]', 'kernel'],
    ['[unknown]', '[unknown]', 'JavaScript (JIT code)'],
    ['[unknown]', '//anon', 'JavaScript (JIT code)'],
    ['[unknown]', '[JIT] tid 8213', 'JavaScript (JIT code)'],
    ['LazyCompile:*handle /srv/dist/gateway/handler.js:26', '/tmp/perf-8225.map', 'JavaScript (JIT code)'],
    ['__memmove_avx512_unaligned_erms', '/usr/lib/x86_64-linux-gnu/libc.so.6', 'libc'],
    ['Builtins_KeyedLoadIC_Megamorphic', '/usr/local/bin/node', 'V8 inline caches'],
    ['Builtins_LoadIC', '/usr/local/bin/node', 'V8 inline caches'],
    ['Builtins_LoadICTrampoline_Megamorphic', '/usr/local/bin/node', 'V8 inline caches'],
    ['Builtins_StoreIC', '/usr/local/bin/node', 'V8 inline caches'],
    ['Builtins_FulfillPromise', '/usr/local/bin/node', 'V8 promises and async'],
    ['Builtins_AsyncFunctionAwaitCaught', '/usr/local/bin/node', 'V8 promises and async'],
    ['Builtins_RunMicrotasks', '/usr/local/bin/node', 'V8 promises and async'],
    ['Builtins_StringAdd_CheckNone', '/usr/local/bin/node', 'V8 other builtins'],
    ['Builtins_CallFunction_ReceiverIsAny', '/usr/local/bin/node', 'V8 other builtins'],
    ['v8::internal::JsonStringifier::SerializeString<unsigned char>', '/usr/local/bin/node', 'JSON'],
    ['v8::internal::JsonParser<unsigned short>::ScanJsonString', '/usr/local/bin/node', 'JSON'],
    ['v8::internal::Scavenger::ScavengeObject', '/usr/local/bin/node', 'GC'],
    ['v8::internal::String::WriteToFlat<unsigned char>', '/usr/local/bin/node', 'strings and UTF-8'],
    ['v8::String::WriteUtf8', '/usr/local/bin/node', 'strings and UTF-8'],
    ['v8::internal::LookupIterator::Start<true>', '/usr/local/bin/node', 'V8 runtime, other'],
    ['uv__io_poll', '/usr/local/bin/node', 'node C++, libuv'],
    ['node::StreamBase::Writev', '/usr/local/bin/node', 'node C++, libuv'],
    ['llhttp_execute', '/usr/local/bin/node', 'node C++, libuv'],
    ['OPENSSL_cleanse', '/usr/local/bin/node', 'other'],
  ])('puts %s in %s among %s', (sym, dso, kind) => {
    expect(classifySample(sym, dso)).toBe(kind);
  });

  it('counts the lines of perf script and skips what is not a sample', () => {
    const script = [
      '     ffffffff822016f7 _raw_spin_lock ([kernel.kallsyms])',
      '         7f01c2a3b4c5 __memmove_avx512_unaligned_erms (/usr/lib/x86_64-linux-gnu/libc.so.6)',
      '         3a1f00bd2e10 [unknown] ([unknown])',
      '         3a1f00bd2e20 [unknown] ([unknown])',
      '',
      'a line that is not a sample',
    ].join('\n');
    expect(Object.fromEntries(countKinds(script))).toEqual({
      kernel: 1,
      libc: 1,
      'JavaScript (JIT code)': 2,
    });
  });

  it('turns sample counts into µs per request at the sampling rate', () => {
    // 2,000 samples at 1,000 Hz are 2 s of CPU; over 10,000 requests, 200 µs each.
    const counts = new Map([
      ['JSON', 1_500],
      ['kernel', 500],
    ] as const);
    expect(perRequest(counts, 1000, 10_000)).toEqual({ JSON: 150, kernel: 50 });
    expect(perRequest(counts, 1000, 0)).toEqual({});
  });

  it('tells the work of running JavaScript from bulk native work', () => {
    expect(isJsWork('V8 inline caches')).toBe(true);
    expect(isJsWork('JavaScript (JIT code)')).toBe(true);
    expect(isJsWork('JSON')).toBe(false);
    expect(isJsWork('kernel')).toBe(false);
  });
});

describe('the sweep table of (c) against (d) by kind of work', () => {
  const point = (target: 'c' | 'd', native: SweepPoint['native_us_per_req']): SweepPoint => ({
    target,
    connections: 32,
    rps: 1,
    p99_ms: 1,
    user_us_per_req: 1,
    system_us_per_req: 1,
    busy_pct: 1,
    native_us_per_req: native,
  });

  it('shows each kind either server spent time in and sums the two halves', () => {
    const table = nativeTable(
      point('c', { JSON: 20, 'JavaScript (JIT code)': 13.2, kernel: 15 }),
      point('d', { JSON: 21, 'JavaScript (JIT code)': 24, 'V8 inline caches': 11.1, kernel: 18 }),
    );
    expect(table).toContain('JavaScript (JIT code) | 13.2 | 24 | 10.8');
    expect(table).toContain('V8 inline caches | 0 | 11.1 | 11.1');
    expect(table).not.toContain('GC |');
    expect(table).toContain('running JavaScript | 13.2 | 35.1 | 21.9');
    expect(table).toContain('everything else (JSON, UTF-8, GC, node, libc, kernel) | 35 | 39 | 4');
    expect(table).toMatch(/^ {2}host check: JSON, the same work in both, \(d\) \/ \(c\) = 1\.05$/m);
    expect(table).not.toContain('host moved');
  });

  it('flags a point where the same JSON work cost far more in one window than in the other', () => {
    const table = nativeTable(
      point('c', { JSON: 12.5, kernel: 72.9 }),
      point('d', { JSON: 28.4, kernel: 263.9 }),
    );
    expect(table).toContain('(d) / (c) = 2.272: the host moved between the windows');
  });
});
