import type { Worker } from 'node:cluster';
import type { Clock } from '../util/clock';
import type { Logger } from '../util/logger';

/** The primary's question to a worker, and the worker's answer, over node:cluster's IPC channel. */
export const WORKER_PING = { type: 'lookup:ping' } as const;
export const WORKER_PONG = { type: 'lookup:pong' } as const;

export const isMessage = (m: unknown, type: string): boolean =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type;

/**
 * In a worker: answers the primary's pings. The answer is sent from the event loop, so a worker
 * whose loop is stuck (a synchronous loop, a deadlock in native code, a stopped process) stays
 * silent, while its sockets, still open, keep taking the connections the primary hands it.
 */
export function answerPings(proc: Pick<NodeJS.Process, 'on' | 'send'>): void {
  proc.on('message', (m: unknown) => {
    if (isMessage(m, WORKER_PING.type)) proc.send?.(WORKER_PONG);
  });
}

export interface LivenessWatch {
  /** The worker said its start went through: from now on it must answer. */
  watch(worker: Worker): void;
  answered(worker: Worker): void;
  /** The worker has exited. */
  forget(workerId: number): void;
  /**
   * Pings every watched worker, and kills each one silent for longer than the timeout. Called
   * every quarter of the timeout, on a monotonic clock.
   */
  tick(): void;
}

/**
 * The primary's side. A worker silent for `timeoutMs` is killed with SIGKILL (a stuck loop would
 * never run a SIGTERM handler), and its exit then goes the way of any worker's death: replaced.
 */
export function createLivenessWatch(
  timeoutMs: number,
  deps: { clock: Clock; logger: Logger },
): LivenessWatch {
  const heard = new Map<number, { worker: Worker; at: number }>();
  let lastTick: number | undefined;
  return {
    watch: (worker) => void heard.set(worker.id, { worker, at: deps.clock.now() }),
    answered(worker) {
      const entry = heard.get(worker.id);
      if (entry) entry.at = deps.clock.now();
    },
    forget: (workerId) => void heard.delete(workerId),
    tick() {
      const now = deps.clock.now();
      // Ticks come every quarter of the timeout: one this late means the primary itself was held
      // (its answers are still queued behind this timer), not that every worker went silent.
      if (lastTick !== undefined && now - lastTick > timeoutMs / 2)
        for (const e of heard.values()) e.at = now;
      lastTick = now;
      for (const [id, { worker, at }] of heard) {
        if (now - at > timeoutMs) {
          heard.delete(id);
          deps.logger.error(
            { pid: worker.process.pid, silent_ms: Math.round(now - at), timeout_ms: timeoutMs },
            'gateway worker stopped answering; killing it so that another starts',
          );
          worker.process.kill('SIGKILL');
        } else if (worker.isConnected()) {
          // A channel closing under us (the worker exiting) is the exit handler's business.
          worker.send(WORKER_PING, undefined, () => undefined);
        }
      }
    },
  };
}
