import type { Cluster } from 'node:cluster';
import type { Logger } from '../util/logger';
import type { WorkerRestarts } from './worker-restarts';
import { WORKER_PONG, isMessage } from './worker-liveness';
import type { LivenessWatch } from './worker-liveness';

/** What a worker sends the primary once its product has started. */
export const WORKER_READY = { type: 'lookup:worker-ready' } as const;

/** What a worker sends the primary once the shared counters (Redis) first answered it. */
export const COUNTERS_REACHED = { type: 'lookup:counters-reached' } as const;

export interface PrimaryDeps {
  cluster: Cluster;
  logger: Logger;
  restarts: WorkerRestarts;
  /** Which ready workers still answer; `tick` is called every `livenessTickMs`. */
  liveness: LivenessWatch;
  livenessTickMs: number;
  exit: (code: number) => void;
}

export interface Primary {
  /** Stops every worker (SIGTERM: each drains) and exits once all are gone. */
  stop(): void;
  /** Has every worker reload its config (SIGHUP). */
  reload(): void;
}

/**
 * The node:cluster primary of WORKERS=N: forks the workers and replaces those that die, as
 * `restarts` decides; when it decides to give up, stops the others and exits with 1.
 */
export function runPrimary(workers: number, deps: PrimaryDeps): Primary {
  const { cluster, logger, restarts, liveness } = deps;
  let stopping = false;
  let exitCode = 0;
  const pending = new Set<NodeJS.Timeout>();
  // Also while stopping: a worker stuck in its drain would otherwise hold the primary up until
  // the orchestrator's kill.
  const ticking = setInterval(() => liveness.tick(), deps.livenessTickMs);
  ticking.unref();
  const finish = (): void => {
    clearInterval(ticking);
    // The pod's own last line, after its workers' (a clean stop reads unlike a SIGKILL).
    if (exitCode === 0) logger.info({ workers }, 'stopped');
    deps.exit(exitCode);
  };
  // node lists a worker in cluster.workers until its IPC channel has closed too, which can come
  // after its 'exit' event: counted by that list, the last worker's exit still saw one alive, no
  // exit code was set, and the primary ended with 0 once the list emptied.
  const alive = (): number => Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead()).length;
  const signalAll = (signal: NodeJS.Signals): void => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
  };
  // A worker started after the pod's counters answered does not hold its readiness for them
  // again: with Redis gone meanwhile, /readyz would answer 503 or 200 by which worker took it.
  let countersReached = false;
  const fork = (): void => {
    const w = cluster.fork(countersReached ? { LOOKUP_COUNTERS_REACHED: '1' } : {});
    restarts.started(w.id);
  };
  const stopAll = (code: number): void => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const t of pending) clearTimeout(t);
    pending.clear();
    signalAll('SIGTERM');
    if (alive() === 0) finish();
  };
  // Ready when the worker says its start has finished, not at its first listening socket: the
  // embedded upstreams listen before the checks that can still stop the start.
  cluster.on('message', (worker, message: unknown) => {
    if (isMessage(message, WORKER_READY.type)) {
      restarts.ready(worker.id);
      liveness.watch(worker);
    }
    if (isMessage(message, WORKER_PONG.type)) liveness.answered(worker);
    if (isMessage(message, COUNTERS_REACHED.type)) countersReached = true;
  });
  cluster.on('exit', (worker, code, signal) => {
    liveness.forget(worker.id);
    if (stopping) {
      if (alive() === 0) finish();
      return;
    }
    const decision = restarts.exited(worker.id);
    const about = { pid: worker.process.pid, code, signal };
    if (decision.kind === 'give-up') {
      const why =
        decision.reason === 'never_started'
          ? 'a gateway worker failed to start; stopping'
          : 'gateway workers keep dying; stopping rather than restarting in a loop';
      logger.fatal({ ...about, reason: decision.reason }, why);
      return stopAll(1);
    }
    logger.error({ ...about, restart_in_ms: decision.delayMs }, 'gateway worker exited; starting another');
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (!stopping) fork();
    }, decision.delayMs);
    pending.add(timer);
  });
  for (let i = 0; i < workers; i++) fork();
  return {
    stop: () => stopAll(0),
    reload: () => signalAll('SIGHUP'),
  };
}
