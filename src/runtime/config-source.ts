import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { compileConfig } from '../config/compile-config';
import type { RuntimeConfig } from '../config/compile-config';
import { loadRawConfig } from '../config/load-config';

/** Reads, validates and compiles CONFIG_DIR; throws ConfigError naming file, path and reason. */
export function loadConfig(dir: string): RuntimeConfig {
  return compileConfig(loadRawConfig(dir));
}

/**
 * Watches CONFIG_DIR (a Kubernetes ConfigMap update swaps a symlink inside it) and calls onChange,
 * debounced, so several file events become one reload.
 */
export function watchConfigDir(dir: string, onChange: () => void, debounceMs = 300): () => void {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { persistent: false }, () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(onChange, debounceMs);
    });
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined; // a directory that cannot be watched still reloads on SIGHUP
  }
  return () => {
    if (timer) clearTimeout(timer);
    watcher?.close();
  };
}
