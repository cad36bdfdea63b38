import { createHash } from 'node:crypto';
import { readFileSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { compileConfig } from '../config/compile-config';
import type { RuntimeConfig } from '../config/compile-config';
import { CONFIG_FILES, loadRawConfig } from '../config/load-config';

/** Reads, validates and compiles CONFIG_DIR; throws ConfigError naming file, path and reason. */
export function loadConfig(dir: string): RuntimeConfig {
  return compileConfig(loadRawConfig(dir));
}

/** A digest of the four files' bytes (or of why one cannot be read): equal digests, equal files. */
export function configFingerprint(dir: string): string {
  const hash = createHash('sha256');
  for (const file of CONFIG_FILES) {
    try {
      hash.update(readFileSync(join(dir, file)));
    } catch (err) {
      hash.update(`unreadable: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

export interface ConfigWatchOptions {
  /** Whether the files differ from the ones last read (ConfigReloader.changed). */
  changed: () => boolean;
  /** File events within this time make one reload. */
  debounceMs?: number;
  /**
   * How often the files are compared besides: an edit made while the process was starting, before
   * the watch began, and a CONFIG_DIR replaced as a whole (the watch follows the directory it was
   * opened on) are seen within this time.
   */
  pollMs?: number;
}

/**
 * Calls onChange when the files of CONFIG_DIR change: at once for an edit made while the process
 * started, on file events (a Kubernetes ConfigMap update swaps a symlink inside it), debounced,
 * and on a periodic comparison of the files. Nothing is called for events that left them as they were.
 */
export function watchConfigDir(dir: string, onChange: () => void, opts: ConfigWatchOptions): () => void {
  const check = (): void => {
    if (opts.changed()) onChange();
  };
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { persistent: false }, () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(check, opts.debounceMs ?? 300);
    });
    // The comparison below still runs: a watch that failed (its directory gone) is not the only way.
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined;
  }
  const poll = setInterval(check, opts.pollMs ?? 10_000);
  poll.unref();
  check();
  return () => {
    if (timer) clearTimeout(timer);
    clearInterval(poll);
    watcher?.close();
  };
}
