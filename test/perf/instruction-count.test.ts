/**
 * `npm run bench -- --instructions` reads callgrind's dumps, one file per thread: the main thread's
 * count apart from the helpers', and only the newest dump of the target asked for.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastDump } from '../../bench/instruction-count';

describe("the instruction count reads callgrind's newest dump of one target", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lk-callgrind-test-'));
    const dump = (file: string, total: number): void =>
      writeFileSync(join(dir, file), `version: 1\ncreator: callgrind-3.19.0\nevents: Ir\ntotals: ${total}\n`);
    dump('c.out.1-01', 100);
    dump('c.out.1-02', 50);
    dump('c.out.2-01', 300);
    dump('c.out.2-02', 7);
    dump('c.out.2-03', 3);
    dump('c.out.10-01', 4000);
    dump('c.out.10-04', 6);
    dump('d.out.11-01', 999);
    dump('c.out', 12345);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts thread 1 as the main thread and sums the others as helpers', in the highest-numbered dump", () => {
    expect(lastDump(dir, 'c')).toEqual({ main: 4000, helpers: 6 });
  });

  it("never mixes in another target's dumps", () => {
    expect(lastDump(dir, 'd')).toEqual({ main: 999, helpers: 0 });
  });

  it('fails clearly when the target has no dump', () => {
    expect(() => lastDump(dir, 'e')).toThrow(/no callgrind dump of \(e\)/);
  });

  it('fails clearly when a dump has no totals line', () => {
    writeFileSync(join(dir, 'd.out.12-01'), 'events: Ir\n');
    expect(() => lastDump(dir, 'd')).toThrow(/no totals in callgrind dump d\.out\.12-01/);
  });
});
