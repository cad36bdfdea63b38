/** What a RetryKeeper needs: how to name an item, run it, and tell a passing failure from a final one. */
export interface RetryKeeperOptions<T> {
  /** Items with the same key are one (a second keep replaces the first). */
  key: (item: T) => string;
  /** Applies the item; must be idempotent, since a run that failed may have taken effect. */
  run: (item: T) => Promise<unknown>;
  /** A failure worth retrying (the store unreachable), rather than one that will never pass. */
  transient: (err: unknown) => boolean;
  /** An item kept (it will be run again). */
  onKept?: (item: T, cause: unknown) => void;
  /** An item given up: the keeper is full, or its run failed for good. */
  onLost?: (item: T, cause: unknown) => void;
  /** At most this many kept; default 10,000. */
  max?: number;
  /** First wait before a retry, doubled while runs keep failing, up to maxDelayMs. Default 1 s, 30 s. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** An item kept longer than this is given up (its idempotence may not last longer); default none. */
  maxAgeMs?: number;
  /** The clock of maxAgeMs. */
  now?: () => number;
}

/** Items kept for a store that could not take them, run again later in the order they came. */
export interface RetryKeeper<T> {
  /** Keeps the item (onKept told); false when it cannot (full, closed): given up, onLost told. */
  keep(item: T, cause: unknown): boolean;
  /** Runs what is kept now (e.g. the store said it is back); a wait for the next try otherwise. */
  retry(): Promise<void>;
  size(): number;
  /** One last try, then every item still kept is given up (onLost); nothing is kept after. */
  close(): Promise<void>;
}

/** A bounded in-memory retry queue with exponential backoff, one run at a time. */
export function createRetryKeeper<T>(opts: RetryKeeperOptions<T>): RetryKeeper<T> {
  const max = opts.max ?? 10_000;
  const first = opts.firstDelayMs ?? 1_000;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const kept = new Map<string, { item: T; at: number }>();
  let timer: NodeJS.Timeout | undefined;
  let delay = first;
  let running = false;
  let closed = false;
  const giveUp = (k: string, item: T, cause: unknown): void => {
    kept.delete(k);
    opts.onLost?.(item, cause);
  };

  const schedule = (): void => {
    if (closed || timer !== undefined || kept.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void retry();
    }, delay);
    timer.unref();
  };

  const retry = async (): Promise<void> => {
    if (running || kept.size === 0) return;
    running = true;
    let reachable = true;
    try {
      for (const [k, { item, at }] of kept) {
        if (opts.maxAgeMs !== undefined && now() - at > opts.maxAgeMs) {
          giveUp(k, item, new Error(`kept longer than ${opts.maxAgeMs} ms`));
          continue;
        }
        try {
          await opts.run(item);
          kept.delete(k);
        } catch (err) {
          if (opts.transient(err)) {
            reachable = false;
            break;
          }
          giveUp(k, item, err);
        }
      }
    } finally {
      running = false;
    }
    delay = reachable ? first : Math.min(delay * 2, maxDelay);
    schedule();
  };

  return {
    keep(item, cause) {
      const k = opts.key(item);
      if (closed || (kept.size >= max && !kept.has(k))) {
        opts.onLost?.(item, cause);
        return false;
      }
      kept.set(k, { item, at: kept.get(k)?.at ?? now() });
      opts.onKept?.(item, cause);
      schedule();
      return true;
    },
    retry,
    size: () => kept.size,
    async close() {
      clearTimeout(timer);
      timer = undefined;
      await retry();
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      for (const [k, { item }] of kept) giveUp(k, item, new Error('the process stopped'));
    },
  };
}
