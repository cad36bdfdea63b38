import { isDeepStrictEqual } from 'node:util';
import type { RuntimeConfig } from './compile-config';

/**
 * gateway.yaml settings the process built its servers, stores and signer from at start: a reload
 * cannot change them, so it names them instead of letting "reloaded" suggest it did.
 */
export const START_ONLY_SETTINGS = [
  'port',
  'admin_port',
  'store_failure',
  'store_timeout_ms',
  'database_timeout_ms',
  'identity',
  'key_cache',
  'upstream_memory_mb',
] as const;

/** The start-only settings in which `next` differs from the configuration the process started with. */
export function startOnlyChanges(started: RuntimeConfig, next: RuntimeConfig): string[] {
  return START_ONLY_SETTINGS.filter((k) => !isDeepStrictEqual(started.raw.gateway[k], next.raw.gateway[k]));
}
