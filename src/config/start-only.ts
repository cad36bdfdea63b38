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

/** The environment variable that sets each port instead of gateway.yaml. */
export const PORT_VARIABLES = { port: 'PORT', admin_port: 'ADMIN_PORT' } as const;

/**
 * The ports gateway.yaml changes while the environment sets them (the image and the Deployments
 * do): the edit is never used, at this start or the next, so a reload names it instead of saying
 * nothing of it.
 */
export function unusedPortChanges(
  started: RuntimeConfig,
  next: RuntimeConfig,
  overridden: readonly string[],
): string[] {
  return (Object.keys(PORT_VARIABLES) as (keyof typeof PORT_VARIABLES)[])
    .filter((k) => overridden.includes(k) && started.raw.gateway[k] !== next.raw.gateway[k])
    .map((k) => `gateway.yaml ${k} (${PORT_VARIABLES[k]} sets it)`);
}

/**
 * The start-only settings in which `next` differs from the configuration the process started with.
 * `overridden` names those the environment sets instead (PORT, ADMIN_PORT): the file's value is
 * not used now and will not be at the next start either, so it is not named.
 */
export function startOnlyChanges(
  started: RuntimeConfig,
  next: RuntimeConfig,
  overridden: readonly string[] = [],
): string[] {
  return START_ONLY_SETTINGS.filter(
    (k) => !overridden.includes(k) && !isDeepStrictEqual(started.raw.gateway[k], next.raw.gateway[k]),
  );
}
