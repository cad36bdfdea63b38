import type { RuntimeConfig } from '../config/compile-config';
import { configFingerprint, loadConfig } from './config-source';
import { startOnlyChanges } from '../config/start-only';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import type { Logger } from '../util/logger';

export interface ConfigReloaderOptions {
  configDir: string;
  /** The configuration the process started with: start-only settings are compared with it. */
  started: RuntimeConfig;
  /** Start-only settings the environment overrides (PORT, ADMIN_PORT): never named as changed. */
  overridden?: readonly string[];
  /** configFingerprint of the files `started` was read from, taken before reading them. */
  startedFingerprint: string;
  /** Why `next` cannot be taken on this process, one reason each (e.g. a built-in upstream moved). */
  refusals: (next: RuntimeConfig) => Promise<string[]>;
  /**
   * Why `next` cannot be taken yet, for a reason that may pass with no edit of the files (accounts
   * still on a plan it removes, or the database unable to say): the same files are read again at
   * the next check, and taken once the reason has passed.
   */
  pending?: (next: RuntimeConfig) => Promise<string[]>;
  /** Puts `next` in place everywhere it is read. */
  apply: (next: RuntimeConfig) => void;
  metrics: GatewayMetrics;
  logger: Logger;
}

export interface ConfigReloader {
  /**
   * Reads CONFIG_DIR again and swaps the configuration when the whole of it is valid; otherwise the
   * previous one keeps serving and the reason is logged. Resolves true when the new one was taken.
   * Reloads run one at a time, in the order asked.
   */
  reload(): Promise<boolean>;
  /**
   * Whether to read the files again: they differ from the ones last read (by a start or a reload,
   * taken or refused), or those were refused for a reason that may have passed.
   */
  changed(): boolean;
}

export function createConfigReloader(opts: ConfigReloaderOptions): ConfigReloader {
  const { metrics, logger } = opts;
  let lastRead = opts.startedFingerprint;
  /** The files last read were refused for a reason that may pass: read them again. */
  let retry = false;
  const once = async (): Promise<boolean> => {
    retry = false;
    try {
      // Taken before the read: files changed during it differ from it, and are read again.
      lastRead = configFingerprint(opts.configDir);
      const next = loadConfig(opts.configDir);
      const waiting = (await opts.pending?.(next)) ?? [];
      const broken = [...(await opts.refusals(next)), ...waiting];
      retry = waiting.length > 0;
      if (broken.length > 0) throw new Error(broken.join('; '));
      opts.apply(next);
      metrics.configReloads.inc({ result: 'success' });
      metrics.configReloadFailing.set(0);
      const atStart = startOnlyChanges(opts.started, next, opts.overridden);
      if (atStart.length === 0) logger.info('configuration reloaded');
      else
        logger.warn(
          { start_only: atStart.map((k) => `gateway.yaml ${k}`) },
          'configuration reloaded; these settings keep their values until the next start',
        );
      return true;
    } catch (err) {
      metrics.configReloads.inc({ result: 'failure' });
      metrics.configReloadFailing.set(1);
      logger.error({ err: (err as Error).message }, 'configuration reload refused; keeping the previous one');
      return false;
    }
  };
  let queue: Promise<boolean> = Promise.resolve(true);
  return {
    reload: () => (queue = queue.then(once)),
    changed: () => retry || configFingerprint(opts.configDir) !== lastRead,
  };
}
