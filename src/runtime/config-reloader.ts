import type { RuntimeConfig } from '../config/compile-config';
import { loadConfig } from './config-source';
import { startOnlyChanges } from '../config/start-only';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import type { Logger } from '../util/logger';

export interface ConfigReloaderOptions {
  configDir: string;
  /** The configuration the process started with: start-only settings are compared with it. */
  started: RuntimeConfig;
  /** Why `next` cannot be taken on this process, one reason each (e.g. a built-in upstream moved). */
  refusals: (next: RuntimeConfig) => string[];
  /** Puts `next` in place everywhere it is read. */
  apply: (next: RuntimeConfig) => void;
  metrics: GatewayMetrics;
  logger: Logger;
}

/**
 * Reads CONFIG_DIR again and swaps the configuration when the whole of it is valid; otherwise the
 * previous one keeps serving and the reason is logged. True when the new one was taken.
 */
export function createConfigReloader(opts: ConfigReloaderOptions): () => boolean {
  const { metrics, logger } = opts;
  return () => {
    try {
      const next = loadConfig(opts.configDir);
      const broken = opts.refusals(next);
      if (broken.length > 0) throw new Error(broken.join('; '));
      opts.apply(next);
      metrics.configReloads.inc({ result: 'success' });
      metrics.configReloadFailing.set(0);
      const atStart = startOnlyChanges(opts.started, next);
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
}
