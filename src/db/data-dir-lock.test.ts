import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, lockDataDir } from './data-dir-lock';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pglite-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lockFile = () => join(dir, '.pglite.lock');
/** The pid of a process that has ended. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid;

describe('claiming a PGlite directory', () => {
  it('claims a free directory and frees it again', () => {
    const release = lockDataDir(dir);
    expect(readFileSync(lockFile(), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(lockFile())).toBe(false);
  });

  it('refuses a directory another live process holds, naming the process', () => {
    writeFileSync(lockFile(), String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dir)).toThrow(`in use by process ${process.ppid}`);
    expect(readFileSync(lockFile(), 'utf8')).toBe(String(process.ppid));
  });

  it('takes over a lock whose process has ended, or that names this very process', () => {
    writeFileSync(lockFile(), String(deadPid()));
    lockDataDir(dir)();
    writeFileSync(lockFile(), String(process.pid));
    expect(() => lockDataDir(dir)).not.toThrow();
    writeFileSync(lockFile(), 'garbage');
    expect(() => lockDataDir(dir)).not.toThrow();
  });

  it('leaves a lock that another process has taken since alone on release', () => {
    const release = lockDataDir(dir);
    writeFileSync(lockFile(), String(process.ppid));
    release();
    expect(readFileSync(lockFile(), 'utf8')).toBe(String(process.ppid));
  });
});
