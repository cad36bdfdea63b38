import type { Writable } from 'node:stream';

/**
 * Why writes wait for the end of the turn: a busy gateway answers many requests in one pass of the
 * event loop over its ready sockets. Written as each one is ready, every write to a peer process
 * (the caller, an upstream, Redis) that has just gone back to sleep wakes it again, and on a
 * virtual machine that wake-up is the dearest part of a small write. Written back to back when the
 * pass is over (setImmediate), the first write of a turn wakes each peer and the rest find it
 * awake. The wait is the rest of the current pass: nothing is held across turns or timers.
 */
export type Defer = (task: () => void) => void;

/** Runs a task at once: for callers and tests that want no batching. */
export const runNow: Defer = (task) => task();

/**
 * A queue of tasks run together, in the order queued, once the I/O callbacks of the current turn
 * are done. A task that throws is reported and does not stop the others.
 */
export function createEndOfTurn(onError: (err: unknown) => void): Defer {
  let queue: (() => void)[] = [];
  const flush = (): void => {
    const tasks = queue;
    queue = [];
    for (const task of tasks) {
      try {
        task();
      } catch (err) {
        onError(err);
      }
    }
  };
  return (task) => {
    queue.push(task);
    if (queue.length === 1) setImmediate(flush);
  };
}

const held = new WeakSet<Writable>();

/**
 * Corks a stream until the end of the current turn, so that everything written to it in this turn
 * leaves in one write (one wake-up of the peer). Idempotent within a turn.
 */
export function holdWritesThisTurn(stream: Writable): void {
  if (held.has(stream)) return;
  held.add(stream);
  stream.cork();
  setImmediate(() => {
    held.delete(stream);
    stream.uncork();
  });
}
