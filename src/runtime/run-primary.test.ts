import { EventEmitter } from 'node:events';
import type { Cluster, Worker } from 'node:cluster';
import { silentLogger } from '../util/logger';
import { ManualClock } from '../util/clock';
import { WORKER_READY, runPrimary } from './run-primary';
import { WORKER_PING, WORKER_PONG, createLivenessWatch } from './worker-liveness';
import { createWorkerRestarts } from './worker-restarts';

/** node:cluster's primary side, as much of it as runPrimary uses; workers die when told. */
function fakeCluster() {
  const emitter = new EventEmitter();
  const workers: Record<number, Worker> = {};
  let next = 1;
  const dead = new Set<number>();
  const signals: Record<number, string[]> = {};
  const pings: Record<number, number> = {};
  const cluster = Object.assign(emitter, {
    workers,
    fork(): Worker {
      const id = next++;
      signals[id] = [];
      pings[id] = 0;
      const w = {
        id,
        isDead: () => dead.has(id),
        isConnected: () => !dead.has(id),
        send: (m: unknown) => {
          if (m === WORKER_PING) pings[id]!++;
          return true;
        },
        process: { pid: 1000 + id, kill: (signal: string) => signals[id]!.push(signal) > 0 },
      } as unknown as Worker;
      workers[id] = w;
      return w;
    },
  }) as unknown as Cluster;
  /** The worker's process ends; node may still list it until its IPC channel closes. */
  const exit = (id: number, code: number, stillListed: boolean): void => {
    dead.add(id);
    const w = workers[id]!;
    if (!stillListed) delete workers[id];
    emitter.emit('exit', w, code, null);
  };
  const channelClosed = (id: number): void => {
    delete workers[id];
  };
  return { cluster, exit, channelClosed, signals, pings };
}

/** A primary of two workers on the fake cluster; the exit codes it asked for. */
function twoWorkerPrimary() {
  const fake = fakeCluster();
  const exits: number[] = [];
  const clock = new ManualClock(0);
  const liveness = createLivenessWatch(20_000, { clock, logger: silentLogger() });
  runPrimary(2, {
    cluster: fake.cluster,
    logger: silentLogger(),
    restarts: createWorkerRestarts(clock),
    // The test ticks by hand.
    liveness,
    livenessTickMs: 2 ** 30,
    exit: (code) => exits.push(code),
  });
  return { ...fake, exits, clock, liveness };
}

describe('the cluster primary', () => {
  it('exits with 1 when no worker starts, even while node still lists the exited workers', () => {
    const { exit, channelClosed, exits } = twoWorkerPrimary();
    exit(1, 1, true);
    exit(2, 1, true);
    channelClosed(1);
    channelClosed(2);
    expect(exits).toEqual([1]);
  });

  it('counts a worker that listened but never said its start went through as never started', () => {
    const { cluster, exit, exits } = twoWorkerPrimary();
    cluster.emit('listening', cluster.workers![1], { port: 8101 });
    cluster.emit('listening', cluster.workers![2], { port: 8101 });
    exit(1, 1, false);
    exit(2, 1, false);
    expect(exits).toEqual([1]);
  });

  it('replaces a worker that said it was ready and then died, and does not exit', () => {
    const { cluster, exit, exits } = twoWorkerPrimary();
    cluster.emit('message', cluster.workers![1], WORKER_READY);
    cluster.emit('message', cluster.workers![2], WORKER_READY);
    exit(1, 1, false);
    expect(exits).toEqual([]);
    expect(Object.keys(cluster.workers!)).toHaveLength(1);
  });

  it('exits with 1 when no worker starts and node drops each worker before its exit event', () => {
    const { exit, exits } = twoWorkerPrimary();
    exit(1, 1, false);
    exit(2, 1, false);
    expect(exits).toEqual([1]);
  });

  it('pings the workers that said they started, at each tick', () => {
    const { cluster, liveness, pings } = twoWorkerPrimary();
    cluster.emit('message', cluster.workers![1], WORKER_READY);
    liveness.tick();
    liveness.tick();
    expect(pings).toEqual({ 1: 2, 2: 0 });
  });

  it('kills a worker silent for longer than the timeout with SIGKILL and starts another once it is gone', () => {
    const { cluster, exit, liveness, clock, signals, exits } = twoWorkerPrimary();
    cluster.emit('message', cluster.workers![1], WORKER_READY);
    cluster.emit('message', cluster.workers![2], WORKER_READY);
    clock.advance(15_000);
    cluster.emit('message', cluster.workers![2], WORKER_PONG);
    clock.advance(6_000);
    liveness.tick();
    expect(signals).toEqual({ 1: ['SIGKILL'], 2: [] });
    // Killed once: the next ticks until its exit do not kill it again.
    liveness.tick();
    expect(signals[1]).toEqual(['SIGKILL']);
    jest.useFakeTimers();
    try {
      exit(1, 1, false);
      jest.advanceTimersByTime(250);
    } finally {
      jest.useRealTimers();
    }
    expect(Object.keys(cluster.workers!)).toEqual(['2', '3']);
    expect(exits).toEqual([]);
  });

  it('kills nobody on a tick that comes late because the primary itself was held, and goes on from there', () => {
    const { cluster, liveness, clock, signals } = twoWorkerPrimary();
    cluster.emit('message', cluster.workers![1], WORKER_READY);
    liveness.tick();
    // The primary held for a minute: its workers' answers are still queued behind this tick.
    clock.advance(60_000);
    liveness.tick();
    expect(signals[1]).toEqual([]);
    // Ticking again on time, the worker still silent past the timeout from then: killed.
    for (let i = 0; i < 5; i++) {
      clock.advance(5_000);
      liveness.tick();
    }
    expect(signals[1]).toEqual(['SIGKILL']);
  });

  it('does not hold a worker to the timeout before it said its start went through', () => {
    const { liveness, clock, signals } = twoWorkerPrimary();
    clock.advance(3_600_000);
    liveness.tick();
    expect(signals).toEqual({ 1: [], 2: [] });
  });
});
