// node's global `performance` is a getter run on every read: imported instead.
import { performance } from 'node:perf_hooks';
/**
 * Deadlines that all have the same length, kept in one first-in-first-out queue under one timer.
 *
 * Why not a timer per request: setTimeout and clearTimeout cost a Timeout object, a closure and
 * two list operations per call; a gateway arming two per request (the Redis command, the upstream
 * call) spends as much on them as on a small policy. With one length, a later start always means
 * a later deadline, so the queue is ordered by construction: the timer only ever waits for the
 * oldest live entry, and an entry that ends is dropped from the front once it gets there.
 */
export interface Deadline {
  /** When it expires, on the queue's clock (milliseconds). */
  readonly at: number;
  /** It ended in time: it will not expire. Idempotent. */
  cancel(): void;
}

/** What a deadline calls when it expires: an object of the caller's, so no closure per deadline. */
export interface Expiring {
  expire(): void;
}

export interface DeadlineQueue {
  /** Calls target.expire() once, timeoutMs from now, unless the deadline is cancelled first. */
  start(target: Expiring): Deadline;
  /** Live (not yet expired or cancelled) deadlines. */
  size(): number;
}

class Entry implements Deadline {
  constructor(
    readonly at: number,
    public target: Expiring | undefined,
    private readonly queue: Queue,
  ) {}

  cancel(): void {
    if (this.target === undefined) return;
    this.target = undefined;
    this.queue.ended();
  }
}

class Queue implements DeadlineQueue {
  private entries: Entry[] = [];
  private head = 0;
  private live = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number,
  ) {}

  start(target: Expiring): Deadline {
    const entry = new Entry(this.now() + this.timeoutMs, target, this);
    this.entries.push(entry);
    this.live++;
    if (this.timer === undefined) this.arm(entry.at);
    return entry;
  }

  size(): number {
    return this.live;
  }

  ended(): void {
    this.live--;
    this.dropEnded();
  }

  private dropEnded(): void {
    const entries = this.entries;
    while (this.head < entries.length && entries[this.head]!.target === undefined) this.head++;
    if (this.head === entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > entries.length) {
      this.entries = entries.slice(this.head);
      this.head = 0;
    }
  }

  private arm(at: number): void {
    // Unref'd: an open deadline alone must not keep a process alive (its socket does that).
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - this.now()));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.now();
    const due: Expiring[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.at > now) break;
      if (entry.target === undefined) continue;
      due.push(entry.target);
      entry.target = undefined;
      this.live--;
    }
    this.dropEnded();
    const next = this.entries[this.head];
    if (next !== undefined) this.arm(next.at);
    // After the queue is consistent: a callback may start or cancel deadlines of its own.
    for (const target of due) target.expire();
  }
}

export function createDeadlineQueue(
  timeoutMs: number,
  now: () => number = () => performance.now(),
): DeadlineQueue {
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new Error('timeoutMs must be a positive number');
  return new Queue(timeoutMs, now);
}

/**
 * `work`, or an error with `message` if it has not settled by a deadline of `queue`: for
 * operations that have no deadline of their own.
 */
export function withDeadline<T>(queue: DeadlineQueue, work: Promise<T>, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const deadline = queue.start({ expire: () => reject(new Error(message)) });
    work.then(
      (value) => {
        deadline.cancel();
        resolve(value);
      },
      (err: Error) => {
        deadline.cancel();
        reject(err);
      },
    );
  });
}
