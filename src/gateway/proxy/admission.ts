/** A request waiting for a connection (an object, so no closure per request). */
export interface Startable {
  /** Sends the request now; false when its caller already gave up, so nothing was sent. */
  start(): boolean;
  /** Its caller gave up (its deadline passed): it will not be sent, and no longer counts as waiting. */
  readonly gaveUp: boolean;
}

/** What an upstream's connections are doing, read at a scrape (never on a request's path). */
export interface UpstreamLoad {
  /** Requests sent and not yet over: at most pool_size. */
  inUse: number;
  /** Requests waiting for one of those connections, callers that gave up left out. */
  queued: number;
}

export interface Admission {
  /** Starts the request at once while a connection is free, else when one frees up (in order). */
  admit(request: Startable): void;
  /** A started request is over: answered, failed or abandoned at its deadline. */
  release(): void;
  load(): UpstreamLoad;
}

/**
 * Why the gateway queues requests itself instead of leaving it to the pool: a request that waits
 * in undici's queue past its deadline can only be aborted once it reaches a connection, and that
 * abort destroys the connection. After a burst against a slow upstream, every abandoned request
 * would open a connection (a TLS handshake on https) only to close it, and the live ones would
 * wait behind them. Here an abandoned request is dropped from the queue without being sent. The
 * queue is drained after the current timers and I/O callbacks (setImmediate), so that requests
 * whose deadlines fall in the same tick are already marked abandoned when it is.
 */
export function createAdmission(slots: number): Admission {
  let inFlight = 0;
  // Started or dropped entries are cleared so they can go; the array is cut back now and then.
  let waiting: (Startable | undefined)[] = [];
  let head = 0;
  let scheduled = false;
  const drain = (): void => {
    scheduled = false;
    while (inFlight < slots && head < waiting.length) {
      const request = waiting[head];
      waiting[head++] = undefined;
      if (request?.start()) inFlight++;
    }
    if (head === waiting.length) {
      waiting = [];
      head = 0;
    } else if (head > 1024 && head * 2 > waiting.length) {
      waiting = waiting.slice(head);
      head = 0;
    }
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };
  return {
    admit(request) {
      if (inFlight < slots && head === waiting.length) {
        if (request.start()) inFlight++;
        return;
      }
      waiting.push(request);
      if (inFlight < slots) schedule();
    },
    release() {
      inFlight--;
      if (head < waiting.length) schedule();
    },
    load() {
      let queued = 0;
      for (let i = head; i < waiting.length; i++) if (waiting[i] && !waiting[i]!.gaveUp) queued++;
      return { inUse: inFlight, queued };
    },
  };
}
