import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { DataDirInUseError, assertDataDirFree, lockDataDir } from '../db/data-dir-lock';
import type { DataDirLock } from '../db/data-dir-lock';
import type { MemoryMeterStore } from '../metering/memory-meter-store';
import type { Logger } from '../util/logger';

/**
 * Without REDIS_URL the gateway counts in memory, on PGlite or PostgreSQL. Its counters are written
 * to DATA_DIR (made if missing: PostgreSQL alone does not use it) when the process stops and every
 * minute, and read back at start, so a restart does not hand every account a fresh month, day and
 * full-text allowance. A crash loses at most the last minute.
 */
export interface CounterSnapshots {
  /** Stops the periodic write, writes a last time and lets the file go. */
  close(): void;
}

/**
 * One process keeps a counters file: a second one's writes would replace the first's counts (the
 * last writer wins), and both restore the one file. PGlite's own lock covers the embedded default;
 * this one covers a gateway on PostgreSQL without Redis too.
 */
const countersLock = (file: string): DataDirLock => ({
  file: `${basename(file)}.lock`,
  what: 'the usage counters',
  inUse: (dataDir, pid) =>
    `the usage counters in ${dataDir} are kept by process ${pid} (another gateway without REDIS_URL?): ` +
    'one process at a time; give each its own DATA_DIR, or set REDIS_URL',
});

/**
 * Refuses at once when another live process keeps `file`: called before the start migrates and
 * seeds, so a second gateway stops naming the first instead of after all that. Claims nothing.
 */
export function assertCountersFree(file: string): void {
  assertDataDirFree(dirname(file), countersLock(file));
}

export function keepCounters(
  store: MemoryMeterStore,
  file: string,
  logger: Logger,
  intervalMs = 60_000,
): CounterSnapshots {
  const dir = dirname(file);
  let release: () => void;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    release = lockDataDir(dir, countersLock(file));
  } catch (err) {
    if (err instanceof DataDirInUseError) throw err;
    // A read-only DATA_DIR: the gateway serves, as it did before counters were kept there.
    logger.warn(
      { file, err: (err as Error).message },
      'usage counters not kept: DATA_DIR cannot be written, so a restart starts every count again',
    );
    return { close: () => undefined };
  }
  if (existsSync(file)) {
    try {
      const restored = store.restore(JSON.parse(readFileSync(file, 'utf8')) as unknown);
      logger.info({ file, entries: restored }, 'usage counters restored');
    } catch (err) {
      logger.warn({ file, err: (err as Error).message }, 'usage counters not restored: unreadable file');
    }
  }
  // Said once when writing starts failing, and once when it works again: a read-only DATA_DIR
  // would otherwise log a line a minute for as long as the process runs.
  let failing = false;
  // Atomically: a temporary file, then a rename.
  const save = (): void => {
    try {
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, JSON.stringify(store.snapshot()), { mode: 0o600 });
      renameSync(tmp, file);
      if (failing) logger.info({ file }, 'usage counters saved again');
      failing = false;
    } catch (err) {
      if (!failing)
        logger.warn(
          { file, err: (err as Error).message },
          'usage counters not saved: a restart will lose what was counted since the last save',
        );
      failing = true;
    }
  };
  const timer = setInterval(save, intervalMs);
  timer.unref();
  return {
    close() {
      clearInterval(timer);
      save();
      release();
    },
  };
}
