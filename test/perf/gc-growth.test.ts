/**
 * The A/B's old-generation growth (bench/gc-growth.ts) is read from the gateway's --trace-gc-nvp
 * lines in its log, between access lines, as the log grows.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GcGrowth, perRequest } from '../../bench/gc-growth';

/** A line of V8's --trace-gc-nvp: `after` is the heap outside the young generation once it is done. */
const nvp = (ms: number, gc: string, after: number, promoted = 0, copied = 0): string =>
  `[1:0x1]    ${ms} ms: pause=0.9 mutator=155.1 gc=${gc} reduce_memory=0 total_size_before=${after + 9e6} ` +
  `total_size_after=${after + copied} holes_size_before=1 allocated=27138440 promoted=${promoted} ` +
  `new_space_survived=${promoted + copied}\n`;
/** The same in the JSON form newer V8 (Node 26) writes, with its own size names. */
const nvpJson = (ms: number, gc: string, after: number, promoted = 0, copied = 0): string =>
  `[1:0x1:0]    ${ms} ms: GC: ${JSON.stringify({
    pause: 0.9,
    gc,
    start_object_size: after + 9e6,
    end_object_size: after + copied,
    allocated: 27138440,
    promoted,
    new_space_survived: promoted + copied,
  })}\n`;
const access = '{"level":30,"time":1,"msg":"request","path":"/v1/x gc=s total_size_after=1"}\n';

function log(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gc-growth-')), 'gateway.log');
  writeFileSync(file, '');
  return file;
}

describe('old-generation growth from --trace-gc-nvp lines', () => {
  it('sums what scavenges promoted and how the heap after each grew from the one before', () => {
    const file = log();
    appendFileSync(
      file,
      nvp(1, 's', 30e6, 100) + access + nvp(2, 's', 30.5e6, 200) + nvp(3, 's', 30.75e6, 50),
    );
    expect(new GcGrowth(file).read()).toEqual({ scavenges: 3, promoted: 350, grown: 0.75e6 });
  });

  it('reads only what was written since the last reading, carrying the last scavenge across', () => {
    const file = log();
    const growth = new GcGrowth(file);
    appendFileSync(file, nvp(1, 's', 30e6, 10));
    expect(growth.read()).toEqual({ scavenges: 1, promoted: 10, grown: 0 });
    appendFileSync(file, access + nvp(2, 's', 31e6, 20));
    expect(growth.read()).toEqual({ scavenges: 1, promoted: 20, grown: 1e6 });
    expect(growth.read()).toEqual({ scavenges: 0, promoted: 0, grown: 0 });
  });

  it('leaves out what stays in the young generation after a scavenge', () => {
    const file = log();
    appendFileSync(
      file,
      nvp(1, 's', 30e6, 0, 2e6) + nvp(2, 's', 30.5e6, 100, 0.5e6) + nvp(3, 's', 31e6, 100, 3e6),
    );
    expect(new GcGrowth(file).read()).toEqual({ scavenges: 3, promoted: 200, grown: 1e6 });
  });

  it('counts no growth across a full GC', () => {
    const file = log();
    appendFileSync(file, nvp(1, 's', 50e6) + nvp(2, 'mc', 26e6) + nvp(3, 's', 27e6) + nvp(4, 's', 28e6));
    expect(new GcGrowth(file).read()).toEqual({ scavenges: 3, promoted: 0, grown: 1e6 });
  });

  it('leaves a line not yet ended for the next reading', () => {
    const file = log();
    const growth = new GcGrowth(file);
    const line = nvp(1, 's', 30e6, 7);
    appendFileSync(file, nvp(0, 's', 29e6) + line.slice(0, 40));
    expect(growth.read()).toEqual({ scavenges: 1, promoted: 0, grown: 0 });
    appendFileSync(file, line.slice(40));
    expect(growth.read()).toEqual({ scavenges: 1, promoted: 7, grown: 1e6 });
  });

  it('reads the JSON lines of newer V8 as it reads the older ones, full GCs included', () => {
    const file = log();
    appendFileSync(
      file,
      nvpJson(1, 's', 30e6, 100, 2e6) +
        access +
        nvpJson(2, 's', 30.5e6, 200) +
        nvpJson(3, 'mc', 26e6) +
        nvpJson(4, 's', 27e6, 50) +
        nvpJson(5, 's', 27.25e6, 25),
    );
    expect(new GcGrowth(file).read()).toEqual({ scavenges: 4, promoted: 375, grown: 0.75e6 });
  });

  it('skips an access line that quotes a GC line', () => {
    const file = log();
    const quoted = JSON.stringify({ level: 30, msg: 'request', path: nvpJson(1, 's', 1e6, 5).trim() });
    appendFileSync(file, `${quoted}\n` + nvpJson(2, 's', 30e6, 10));
    expect(new GcGrowth(file).read()).toEqual({ scavenges: 1, promoted: 10, grown: 0 });
  });

  it('gives bytes per request, rounded, and no division by zero', () => {
    expect(perRequest(1_200_000, 10_000)).toBe(120);
    expect(perRequest(5, 0)).toBe(5);
  });
});
