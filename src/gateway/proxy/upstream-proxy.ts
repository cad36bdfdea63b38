// node's globals `performance` and `Buffer` are getters run on every read: imported instead.
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import { Pool } from './undici-pool';
import type { Dispatcher } from 'undici';
import { upstreamBasePath } from '../../config/upstreams-schema';
import type { UpstreamConfig } from '../../config/upstreams-schema';
import { MAX_UPSTREAM_RESPONSE_BYTES } from '../../upstream-kit/response-limit';
import { runNow } from '../../util/end-of-turn';
import type { Defer } from '../../util/end-of-turn';
import { createDeadlineQueue } from '../../util/deadline-queue';
import type { Deadline, DeadlineQueue, Expiring } from '../../util/deadline-queue';
import { createAdmission } from './admission';
import { createBodyBudget } from './body-budget';
import type { BodyBudget } from './body-budget';
import type { Admission, Startable, UpstreamLoad } from './admission';
import { UpstreamFailure } from './upstream-failure';

export interface UpstreamReply {
  status: number;
  body: Buffer;
  /**
   * Gives the body's bytes back to the process's bound on answers held in memory: once the
   * answer has been parsed and reshaped, which take several times its size while they run.
   */
  release(): void;
  /** Milliseconds the call waited in the gateway before it was sent (for a pool connection, mostly). */
  waitedMs: number;
}

export interface ForwardRequest {
  /** Path and query on the upstream, e.g. /legal-documents?q=luat&page=1&per_page=20. */
  path: string;
  requestId: string;
  /** `Bearer <identity assertion>` (see identity-signer.ts). */
  authorization: string;
  clientIp: string;
}

export interface UpstreamProxy {
  name: string;
  forward(fr: ForwardRequest): Promise<UpstreamReply>;
  /** Its connections in use and the calls waiting for one, now. */
  load(): UpstreamLoad;
  close(): void;
}

const EMPTY = Buffer.alloc(0);

/** Bodies larger than this are a broken upstream, not a dataset answer. */
const MAX_BODY = MAX_UPSTREAM_RESPONSE_BYTES;

/** What every call to one upstream shares: its pool, its queue for connections and its deadlines. */
interface Upstream {
  pool(): Pool;
  basePath: string;
  admission: Admission;
  deadlines: DeadlineQueue;
  timeoutMs: number;
  /** A queued request is sent only with this much of its deadline still ahead of it. */
  minBudgetMs: number;
  /** Shared by every upstream of the process. */
  memory: BodyBudget;
}

/**
 * One forwarded request, from the call to its answer: the promise's settlement, its place in the
 * connection queue, its deadline and undici's handler, in one object (no closures per request).
 */
class UpstreamCall implements Dispatcher.DispatchHandler, Startable, Expiring, UpstreamReply {
  status = 502;
  body: Buffer = EMPTY;
  waitedMs = 0;
  private size = 0;
  private readonly chunks: Buffer[] = [];
  private controller: Dispatcher.DispatchController | undefined = undefined;
  private started = false;
  private done = false;
  private readonly deadline: Deadline;

  constructor(
    private readonly up: Upstream,
    private readonly fr: ForwardRequest,
    private readonly resolve: (reply: UpstreamReply) => void,
    private readonly reject: (err: Error) => void,
  ) {
    this.deadline = up.deadlines.start(this);
  }

  /** Failed before it was sent: its caller has its answer, and the queue skips it. */
  get gaveUp(): boolean {
    return this.done && !this.started;
  }

  /** Its turn for a connection (see admission.ts). */
  start(): boolean {
    if (this.done) return false;
    const waited = this.sinceCall();
    // Too little of the deadline left to be answered: fail now rather than send and abort.
    if (this.up.timeoutMs - waited < this.up.minBudgetMs) {
      this.fail(this.timedOut('no_connection'));
      return false;
    }
    this.waitedMs = waited;
    this.started = true;
    const fr = this.fr;
    try {
      this.up.pool().dispatch(
        {
          method: 'GET',
          path: this.up.basePath + fr.path,
          // A flat name/value list goes straight to the request head.
          headers: [
            'accept',
            'application/json',
            'x-request-id',
            fr.requestId,
            'authorization',
            fr.authorization,
            'x-forwarded-for',
            fr.clientIp,
          ],
          // The deadline covers the whole answer; undici's own phase timers would be extra timers.
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        this,
      );
    } catch (err) {
      this.fail(err as Error);
    }
    return true;
  }

  expire(): void {
    // Not sent, or sent with less than half its time left: the pool, not the upstream, ran it out.
    const late = !this.started || this.waitedMs * 2 > this.up.timeoutMs;
    this.fail(this.timedOut(late ? 'no_connection' : 'timeout'));
  }

  private timedOut(reason: 'timeout' | 'no_connection'): UpstreamFailure {
    const waited = reason === 'no_connection' ? ' (waited for a connection)' : '';
    return new UpstreamFailure(`upstream timeout after ${this.up.timeoutMs} ms${waited}`, reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Its caller gave up while it waited to be sent.
    if (this.done) controller.abort(new Error('upstream request abandoned'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    if (this.size + chunk.length > MAX_BODY)
      return this.fail(new UpstreamFailure('upstream body too large', 'too_large'));
    if (!this.up.memory.take(chunk.length))
      return this.fail(
        new UpstreamFailure(
          'upstream answers held in memory at their bound (upstream_memory_mb)',
          'memory_bound',
        ),
      );
    this.size += chunk.length;
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.over(false);
    const chunks = this.chunks;
    this.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.size);
    chunks.length = 0;
    // The call is its own reply: no other object per request.
    this.resolve(this);
  }

  /** Gives the body's bytes back to the bound, once (see UpstreamReply.release). */
  release(): void {
    this.up.memory.give(this.size);
    this.size = 0;
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.fail(err);
  }

  private fail(err: Error): void {
    if (this.done) return;
    this.over(true);
    if (this.controller && !this.controller.aborted) this.controller.abort(err);
    // What undici throws (refused, reset, a header it will not send) is the network's.
    const failure = err instanceof UpstreamFailure ? err : new UpstreamFailure(err.message, 'network', err);
    // Never sent: all of its time was the wait.
    failure.waitedMs = this.started ? this.waitedMs : this.sinceCall();
    this.reject(failure);
  }

  /** Milliseconds since the call was made (its deadline is timeout_ms after that). */
  private sinceCall(): number {
    return this.up.timeoutMs - (this.deadline.at - performance.now());
  }

  private over(failed: boolean): void {
    this.done = true;
    if (failed) this.release();
    this.deadline.cancel();
    if (this.started) this.up.admission.release();
  }
}

/**
 * One upstream: a keep-alive pool of its own (undici: a quarter less CPU per call than node's
 * http.request and Agent, see docs/gateway-performance.md) and a deadline per request, from the call.
 * The gateway reads and reshapes every answer, so nothing is piped, and only the headers an upstream
 * needs go out (the id, the identity assertion, the caller's address), never the caller's key or
 * cookies. Requests go out through `defer` (the gateway's end-of-turn queue): those of one turn
 * leave back to back.
 */
export function createUpstreamProxy(
  name: string,
  cfg: UpstreamConfig,
  defer: Defer = runNow,
  // On its own (tests, tools): no bound but the one per answer.
  memory: BodyBudget = createBodyBudget(Number.POSITIVE_INFINITY),
): UpstreamProxy {
  const target = new URL(cfg.url);
  // One request per connection at a time (no pipelining): a slow answer never holds up another.
  const newPool = (): Pool => new Pool(target.origin, { connections: cfg.pool_size, pipelining: 1 });
  let pool = newPool();
  const up: Upstream = {
    // A request that reaches the proxy after close() (a reload closes the old pools after a grace
    // period) gets a fresh pool, as node's Agent would have served it; its idle sockets close on
    // their own after undici's keep-alive timeout.
    pool: () => (pool.closed || pool.destroyed ? (pool = newPool()) : pool),
    basePath: upstreamBasePath(target),
    admission: createAdmission(cfg.pool_size),
    deadlines: createDeadlineQueue(cfg.timeout_ms),
    timeoutMs: cfg.timeout_ms,
    // A tenth of the deadline, at least 5 ms.
    minBudgetMs: Math.max(5, cfg.timeout_ms / 10),
    memory,
  };
  return {
    name,
    forward(fr) {
      return new Promise<UpstreamReply>((resolve, reject) => {
        const call = new UpstreamCall(up, fr, resolve, reject);
        defer(() => up.admission.admit(call));
      });
    },
    load: () => up.admission.load(),
    close() {
      // Gracefully: a request forwarded late before a reload may still be on the old pool, and its
      // own deadline (timeout_ms) bounds how long it can keep the pool open.
      pool.close().catch(() => undefined);
    },
  };
}
