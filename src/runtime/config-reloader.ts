import type { RuntimeConfig } from '../config/compile-config';
import { configFingerprint, loadConfig } from './config-source';
import { startOnlyChanges, unusedPortChanges } from '../config/start-only';
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

/**
 * What asked for a reload: an operator (SIGHUP, the default) or the watch. The watch's reread of
 * files refused for a reason that may pass, refused again for the same reason, is logged at debug
 * and not counted: the refusal was logged and counted once, and `lookup_config_reload_failing`
 * stays 1 while it lasts. An operator's SIGHUP is always answered with a log line.
 */
export type ReloadTrigger = 'operator' | 'watch';

export interface ConfigReloader {
  /**
   * Reads CONFIG_DIR again and swaps the configuration when the whole of it is valid; otherwise the
   * previous one keeps serving and the reason is logged. Resolves true when the new one was taken.
   * Reloads run one at a time, in the order asked.
   */
  reload(how?: ReloadTrigger): Promise<boolean>;
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
  /** Why they were refused, while they are read again. */
  let refusedFor: string | undefined;
  const once = async (how: ReloadTrigger): Promise<boolean> => {
    const rereading = retry && how === 'watch';
    const before = lastRead;
    retry = false;
    try {
      // Taken before the read: files changed during it differ from it, and are read again.
      lastRead = configFingerprint(opts.configDir);
      const next = loadConfig(opts.configDir);
      const waiting = (await opts.pending?.(next)) ?? [];
      const broken = [...(await opts.refusals(next)), ...waiting];
      retry = waiting.length > 0;
      if (broken.length > 0) throw new Error(broken.join('; '));
      refusedFor = undefined;
      opts.apply(next);
      metrics.configReloads.inc({ result: 'success' });
      metrics.configReloadFailing.set(0);
      const atStart = startOnlyChanges(opts.started, next, opts.overridden);
      const unused = unusedPortChanges(opts.started, next, opts.overridden ?? []);
      if (atStart.length > 0)
        logger.warn(
          { start_only: atStart.map((k) => `gateway.yaml ${k}`) },
          'configuration reloaded; these settings keep their values until the next start',
        );
      if (unused.length > 0)
        logger.warn({ not_used: unused }, 'configuration reloaded; the environment sets these ports instead');
      if (atStart.length === 0 && unused.length === 0) logger.info('configuration reloaded');
      return true;
    } catch (err) {
      const reason = (err as Error).message;
      const again = rereading && lastRead === before && reason === refusedFor;
      refusedFor = retry ? reason : undefined;
      if (again) {
        logger.debug({ err: reason }, 'configuration reload still refused; keeping the previous one');
        return false;
      }
      metrics.configReloads.inc({ result: 'failure' });
      metrics.configReloadFailing.set(1);
      logger.error({ err: reason }, 'configuration reload refused; keeping the previous one');
      return false;
    }
  };
  let queue: Promise<boolean> = Promise.resolve(true);
  return {
    reload: (how = 'operator') => (queue = queue.then(() => once(how))),
    changed: () => retry || configFingerprint(opts.configDir) !== lastRead,
  };
}
