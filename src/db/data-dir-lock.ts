import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError, unusableDataDir } from '../util/data-dir';

/** A lock file in DATA_DIR: what holds it, and how a second claimant is told. */
export interface DataDirLock {
  file: string;
  /** What the lock keeps to one process, for the messages ("the database", "the usage counters"). */
  what: string;
  /** The refusal of a second process while `pid` holds it. */
  inUse(dataDir: string, pid: number): string;
}

export const PGLITE_LOCK: DataDirLock = {
  file: '.pglite.lock',
  what: 'the database',
  inUse: (dataDir, pid) =>
    `the database in ${dataDir} is in use by process ${pid} (a running server?): PGlite allows one ` +
    'process at a time; stop it first, or use DATABASE_URL',
};

/** Another live process holds a lock of the directory (PGlite's, or the usage counters'). */
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

/** Throws when another live process holds `file`, the lock; a lock of this process's own pid is not another's. */
function refuseIfHeld(file: string, dataDir: string, lock: DataDirLock): void {
  const pid = holder(file);
  if (pid !== undefined && pid !== process.pid && alive(pid))
    throw new DataDirInUseError(lock.inUse(dataDir, pid));
}

/** Throws as lockDataDir would if another live process holds the directory; claims nothing. */
export function assertDataDirFree(dataDir: string, lock: DataDirLock = PGLITE_LOCK): void {
  refuseIfHeld(join(dataDir, lock.file), dataDir, lock);
}

/**
 * Claims `lock` in a directory for this process and returns its release: by default the PGlite
 * directory, one process's database, where a second process on the same files (the importer while
 * `npm start` runs) writes rows that the first never sees and that its next checkpoint may lose. A
 * lock whose process is gone is stale and taken over; so is one naming this process's own pid (pid
 * 1 of a restarted container).
 */
export function lockDataDir(dataDir: string, lock: DataDirLock = PGLITE_LOCK): () => void {
  const file = join(dataDir, lock.file);
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, mine, { flag: 'wx' });
      return () => {
        if (holder(file) === process.pid) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw unusableDataDir(dataDir, err);
      refuseIfHeld(file, dataDir, lock);
      rmSync(file, { force: true });
    }
  }
  throw new DataDirInUseError(`could not claim ${lock.what} in ${dataDir}: ${file} keeps coming back`);
}
