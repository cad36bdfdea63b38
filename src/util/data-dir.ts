import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { errorText } from './error-text';

/**
 * DATA_DIR, made only its owner may enter when this makes it: PGlite writes some of its files
 * (the catalogue, pg_control) world-writable, whatever the umask. A directory that exists keeps
 * its mode (an operator's volume, owned as the platform decides).
 */
export function ensureDataDir(dir: string): void {
  try {
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) throw new Error('not a directory');
      return;
    }
    // Only the directory itself: parents made on the way keep the usual mode (./var of ./var/pglite).
    mkdirSync(dirname(resolve(dir)), { recursive: true });
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    throw unusableDataDir(dir, err);
  }
}

/** DATA_DIR cannot be used (not a directory, not writable, held by another process): the operator's to fix. */
export class DataDirError extends Error {}

/** The error of a DATA_DIR the file system refused, naming the variable and the directory. */
export function unusableDataDir(dir: string, cause: unknown): DataDirError {
  return new DataDirError(`DATA_DIR ${dir} cannot be used: ${errorText(cause)}`, { cause });
}

/**
 * A DATA_DIR this process owns that others may enter (made by a version before ensureDataDir, or
 * by hand) is closed to them: PGlite's world-writable files in it hold the accounts and credits.
 * One owned by another user (a volume the platform mounts) is left as it is. Says whether it closed it.
 */
export function closeDataDir(dir: string): boolean {
  if (!existsSync(dir) || process.getuid === undefined) return false;
  const st = statSync(dir);
  if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o077) === 0) return false;
  chmodSync(dir, (st.mode & 0o7000) | 0o700);
  return true;
}
