import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError, unusableDataDir } from '../util/data-dir';

const LOCK_FILE = '.pglite.lock';

/** Another live process holds the PGlite directory. */
export class DataDirInUseError extends DataDirError {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function inUse(dataDir: string, pid: number): DataDirInUseError {
  return new DataDirInUseError(
    `the database in ${dataDir} is in use by process ${pid} (a running server?): PGlite allows one ` +
      'process at a time; stop it first, or use DATABASE_URL',
  );
}

/** Throws as lockDataDir would if another live process holds the directory; claims nothing. */
export function assertDataDirFree(dataDir: string): void {
  const pid = holder(join(dataDir, LOCK_FILE));
  if (pid !== undefined && pid !== process.pid && alive(pid)) throw inUse(dataDir, pid);
}

/**
 * Claims a PGlite directory for this process and returns its release. PGlite is one process's
 * database: a second process on the same files (the importer while `npm start` runs) writes rows
 * that the first never sees and that its next checkpoint may lose. A lock whose process is gone is
 * stale and taken over; so is one naming this process's own pid (pid 1 of a restarted container).
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, mine, { flag: 'wx' });
      return () => {
        if (holder(file) === process.pid) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw unusableDataDir(dataDir, err);
      const pid = holder(file);
      if (pid !== undefined && pid !== process.pid && alive(pid)) throw inUse(dataDir, pid);
      rmSync(file, { force: true });
    }
  }
  throw new DataDirInUseError(`could not claim the database in ${dataDir}: ${file} keeps coming back`);
}
