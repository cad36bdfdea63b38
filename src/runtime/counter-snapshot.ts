import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MemoryMeterStore } from '../metering/memory-meter-store';
import type { Logger } from '../util/logger';

/**
 * Without REDIS_URL the gateway counts in memory, on PGlite or PostgreSQL. Its counters are written
 * to DATA_DIR (made if missing: PostgreSQL alone does not use it) when the process stops and every
 * minute, and read back at start, so a restart does not hand every
 * account a fresh month, day and full-text allowance. A crash loses at most the last minute.
 */
export interface CounterSnapshots {
  /** Stops the periodic write and writes a last time. */
  close(): void;
}

export function keepCounters(
  store: MemoryMeterStore,
  file: string,
  logger: Logger,
  intervalMs = 60_000,
): CounterSnapshots {
  if (existsSync(file)) {
    try {
      const restored = store.restore(JSON.parse(readFileSync(file, 'utf8')) as unknown);
      logger.info({ file, entries: restored }, 'usage counters restored');
    } catch (err) {
      logger.warn({ file, err: (err as Error).message }, 'usage counters not restored: unreadable file');
    }
  }
  // Atomically: a temporary file, then a rename.
  const save = (): void => {
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, JSON.stringify(store.snapshot()), { mode: 0o600 });
      renameSync(tmp, file);
    } catch (err) {
      logger.warn({ file, err: (err as Error).message }, 'usage counters not saved');
    }
  };
  const timer = setInterval(save, intervalMs);
  timer.unref();
  return {
    close() {
      clearInterval(timer);
      save();
    },
  };
}
