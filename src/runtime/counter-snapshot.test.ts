import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError } from '../db/data-dir-lock';
import { MemoryMeterStore } from '../metering/memory-meter-store';
import { capturedLog } from '../../test/support/captured-log';
import { keepCounters } from './counter-snapshot';

let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'lk-counters-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const said = (lines: Record<string, unknown>[]): string[] =>
  lines.map((l) => `${String(l.level)} ${String(l.msg)}`);

describe('usage counters kept in DATA_DIR', () => {
  it('refuses to keep a file another live process keeps, takes over one whose process is gone, and lets it go when it stops', () => {
    const dir = join(root, 'data');
    mkdirSync(dir);
    const file = join(dir, 'usage-counters.json');
    // This test's parent process is alive, as a running gateway would be.
    writeFileSync(`${file}.lock`, String(process.ppid));
    expect(() => keepCounters(new MemoryMeterStore(), file, capturedLog().logger)).toThrow(
      new DataDirInUseError(
        `the usage counters in ${dir} are kept by process ${process.ppid} (another gateway without REDIS_URL?): one process at a time; give each its own DATA_DIR, or set REDIS_URL`,
      ),
    );
    writeFileSync(`${file}.lock`, '999999999');
    const kept = keepCounters(new MemoryMeterStore(), file, capturedLog().logger);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(String(process.pid));
    kept.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('serves without keeping them when DATA_DIR cannot be made, and says so once', () => {
    writeFileSync(join(root, 'a-file'), '');
    const { logger, lines } = capturedLog();
    const kept = keepCounters(new MemoryMeterStore(), join(root, 'a-file', 'usage-counters.json'), logger);
    kept.close();
    expect(said(lines)).toEqual([
      '40 usage counters not kept: DATA_DIR cannot be written, so a restart starts every count again',
    ]);
  });

  it('says once that saving fails, however many saves fail, and once that it works again', async () => {
    const dir = join(root, 'data');
    const { logger, lines } = capturedLog();
    const kept = keepCounters(new MemoryMeterStore(), join(dir, 'usage-counters.json'), logger, 10);
    // The directory turns into a file: every write fails.
    rmSync(dir, { recursive: true });
    writeFileSync(dir, '');
    await new Promise((r) => setTimeout(r, 80));
    rmSync(dir);
    mkdirSync(dir);
    await new Promise((r) => setTimeout(r, 40));
    kept.close();
    expect(said(lines)).toEqual([
      '40 usage counters not saved: a restart will lose what was counted since the last save',
      '30 usage counters saved again',
    ]);
  });
});
