import type { Clock } from '../util/clock';

export interface RestartOptions {
  /** Delay before the first restart after a worker dies. */
  baseDelayMs: number;
  /** The delay doubles with each quick death in a row, up to this. */
  maxDelayMs: number;
  /** A worker that served this long before dying is a one-off crash: the count starts again. */
  stableAfterMs: number;
  /** Quick deaths in a row after which the primary stops restarting and exits, if none serves. */
  maxQuickDeaths: number;
}

export const DEFAULT_RESTARTS: RestartOptions = {
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  stableAfterMs: 30_000,
  maxQuickDeaths: 5,
};

export type ExitDecision =
  { kind: 'restart'; delayMs: number } | { kind: 'give-up'; reason: 'never_started' | 'crash_loop' };

export interface WorkerRestarts {
  started(id: number): void;
  /** The worker is listening: it got through its startup. */
  ready(id: number): void;
  exited(id: number): ExitDecision;
}

/**
 * What the cluster primary does when a gateway worker dies. A worker that fails its startup before
 * any worker ever served (a bad config, an unreachable database) would fail the same way again: the
 * primary exits, as a single process does, so the orchestrator sees the failure. A worker that dies
 * later is replaced after a delay that doubles with each quick death in a row; after
 * `maxQuickDeaths` of them the primary exits too, rather than restarting in a loop, unless another
 * worker is still serving: then it goes on trying at the ceiling. A replacement that cannot start
 * (a config edit refused by the running workers, read afresh from the disk by the new one) must
 * not take down the workers that kept the last good config.
 */
export function createWorkerRestarts(clock: Clock, opts: RestartOptions = DEFAULT_RESTARTS): WorkerRestarts {
  const startedAt = new Map<number, number>();
  const readyIds = new Set<number>();
  let anyReady = false;
  let quickDeaths = 0;
  return {
    started(id) {
      startedAt.set(id, clock.now());
    },
    ready(id) {
      readyIds.add(id);
      anyReady = true;
    },
    exited(id) {
      const since = startedAt.get(id) ?? clock.now();
      const wasReady = readyIds.has(id);
      startedAt.delete(id);
      readyIds.delete(id);
      if (!wasReady && !anyReady) return { kind: 'give-up', reason: 'never_started' };
      if (wasReady && clock.now() - since >= opts.stableAfterMs) quickDeaths = 0;
      quickDeaths += 1;
      if (quickDeaths >= opts.maxQuickDeaths && readyIds.size === 0)
        return { kind: 'give-up', reason: 'crash_loop' };
      return {
        kind: 'restart',
        delayMs: Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (quickDeaths - 1)),
      };
    },
  };
}
