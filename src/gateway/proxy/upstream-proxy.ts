import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../../config/upstreams-schema';
import { runNow } from '../../util/end-of-turn';
import type { Defer } from '../../util/end-of-turn';
import { createAdmission } from './admission';

export interface UpstreamReply {
  status: number;
  body: Buffer;
}

export interface ForwardRequest {
  /** Path and query on the upstream, e.g. /legal-documents?q=luat&page=1&per_page=20. */
  path: string;
  requestId: string;
  assertion: string;
  clientIp: string;
}

export interface UpstreamProxy {
  name: string;
  forward(fr: ForwardRequest): Promise<UpstreamReply>;
  close(): void;
}

/** Bodies larger than this are a broken upstream, not a dataset answer. */
const MAX_BODY = 32 * 1024 * 1024;

type Settle = { resolve(reply: UpstreamReply): void; fail(err: Error): void; isDone(): boolean };

/** Collects one answer; a request the caller already gave up on is aborted as soon as it starts. */
function replyHandler(
  settle: Settle,
  onStart: (c: Dispatcher.DispatchController) => void,
): Dispatcher.DispatchHandler {
  let status = 502;
  let size = 0;
  const chunks: Buffer[] = [];
  return {
    onRequestStart(controller) {
      onStart(controller);
      if (settle.isDone()) controller.abort(new Error('upstream request abandoned'));
    },
    onResponseStart(_controller, statusCode) {
      status = statusCode;
    },
    onResponseData(_controller, chunk) {
      size += chunk.length;
      if (size > MAX_BODY) settle.fail(new Error('upstream body too large'));
      else chunks.push(chunk);
    },
    onResponseEnd() {
      settle.resolve({ status, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    },
    onResponseError(_controller, err) {
      settle.fail(err);
    },
  };
}

/**
 * One upstream: a keep-alive pool of its own (undici: a quarter less CPU per call than node's
 * http.request and Agent, see docs/gateway-performance.md) and a deadline per request, from the call.
 * The gateway reads and reshapes every answer, so nothing is piped, and only the headers an upstream
 * needs go out (the id, the identity assertion, the caller's address), never the caller's key or
 * cookies. Requests go out through `defer` (the gateway's end-of-turn queue): those of one turn
 * leave back to back.
 */
export function createUpstreamProxy(name: string, cfg: UpstreamConfig, defer: Defer = runNow): UpstreamProxy {
  const target = new URL(cfg.url);
  // One request per connection at a time (no pipelining): a slow answer never holds up another.
  const newPool = (): Pool => new Pool(target.origin, { connections: cfg.pool_size, pipelining: 1 });
  let pool = newPool();
  // A request that reaches the proxy after close() (a reload closes the old pools after a grace
  // period) gets a fresh pool, as node's Agent would have served it; its idle sockets close on
  // their own after undici's keep-alive timeout.
  const openPool = (): Pool => (pool.closed || pool.destroyed ? (pool = newPool()) : pool);
  const basePath = target.pathname.replace(/\/+$/, '');
  const admission = createAdmission(cfg.pool_size);
  // A queued request is sent only with a tenth of its deadline (at least 5 ms) still ahead of it.
  const minBudgetMs = Math.max(5, cfg.timeout_ms / 10);
  return {
    name,
    forward(fr) {
      return new Promise<UpstreamReply>((resolve, reject) => {
        let done = false;
        let started = false;
        let controller: Dispatcher.DispatchController | undefined;
        const over = (): void => {
          done = true;
          clearTimeout(timer);
          if (started) admission.release();
        };
        const settle: Settle = {
          isDone: () => done,
          resolve(reply) {
            if (done) return;
            over();
            resolve(reply);
          },
          fail(err) {
            if (done) return;
            over();
            if (controller && !controller.aborted) controller.abort(err);
            reject(err);
          },
        };
        const deadline = performance.now() + cfg.timeout_ms;
        const timer = setTimeout(
          () => settle.fail(new Error(`upstream timeout after ${cfg.timeout_ms} ms`)),
          cfg.timeout_ms,
        );
        const start = (): boolean => {
          if (done) return false;
          // Too little of the deadline left to be answered: fail now rather than send and abort.
          if (deadline - performance.now() < minBudgetMs) {
            settle.fail(new Error(`upstream timeout after ${cfg.timeout_ms} ms (waited for a connection)`));
            return false;
          }
          started = true;
          const options: Dispatcher.DispatchOptions = {
            method: 'GET',
            path: basePath + fr.path,
            // A flat name/value list goes straight to the request head.
            headers: [
              'accept',
              'application/json',
              'x-request-id',
              fr.requestId,
              'authorization',
              `Bearer ${fr.assertion}`,
              'x-forwarded-for',
              fr.clientIp,
            ],
            // The deadline above covers the whole answer; undici's own phase timers would be extra timers.
            headersTimeout: 0,
            bodyTimeout: 0,
          };
          try {
            openPool().dispatch(
              options,
              replyHandler(settle, (c) => (controller = c)),
            );
          } catch (err) {
            settle.fail(err as Error);
          }
          return true;
        };
        defer(() => admission.admit(start));
      });
    },
    close() {
      pool.destroy().catch(() => undefined);
    },
  };
}
