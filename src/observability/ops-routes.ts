import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { IdentitySigner } from '../gateway/identity-signer';
import { JSON_TYPE } from '../gateway/response/finish';
import { createDeadlineQueue, withDeadline } from '../util/deadline-queue';

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
  /**
   * Whether a failed check makes this replica unready (default: always). A dependency every replica
   * shares and the API answers without (an upstream: 503 search_unavailable; Redis under
   * store_failure open: local limits) is reported but does not gate: failing it on every replica at
   * once would take them all out of the Service, and callers would get refused connections.
   */
  gates?: () => boolean;
}

export interface OpsDeps {
  registry: Registry;
  identity: IdentitySigner;
  readiness: ReadinessCheck[];
  /** The text /metrics serves, when not this registry's alone (a cluster worker: all workers'). */
  metricsText?: () => Promise<string>;
  /** A check that has not answered by then counts as failed (default 1000 ms, under a 2 s probe). */
  checkTimeoutMs?: number;
  /** Each /readyz's results, by check name (to metrics: a check that does not gate shows only there). */
  onChecked?: (results: readonly (readonly [name: string, ok: boolean])[]) => void;
}

/** The operational routes' paths (GET and HEAD only; the admin app answers other methods 405). */
export const OPS_PATHS = ['/healthz', '/readyz', '/metrics', '/.well-known/jwks.json'] as const;

/** Answers the request when it is one of the operational routes; false leaves it to the next listener. */
export type OpsRoutes = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Operational routes on the admin port: /healthz (process alive), /readyz (config, stores and
 * upstreams reachable, each reported; only those that gate make it 503), /metrics (Prometheus
 * text) and the JWKS upstreams verify assertions with.
 *
 * On node's request and response, written as the public pipeline writes (one writeHead with
 * name/value pairs, then the bytes), not through Express: Express gives every request and response
 * it serves other prototypes, and node's HTTP code, optimised for the public port's objects, was
 * deoptimised again at each of the first scrapes and probes (20–46 functions each, step 24 of
 * docs/gateway-performance.md), in the middle of the public traffic.
 */
export function createOpsRoutes(deps: OpsDeps): OpsRoutes {
  // A database or Redis that swallows packets must make /readyz say so in time, not outlast the
  // probe's own timeout: a check not answered by then counts as failed.
  const checkDeadlines = createDeadlineQueue(deps.checkTimeoutMs ?? 1000);
  const send = (res: ServerResponse, status: number, type: string, text: string, head: boolean): void => {
    const body = Buffer.from(text);
    res.writeHead(status, [
      'Content-Type',
      type,
      'Content-Length',
      String(body.length),
      // DESIGN §2: every response carries it, the admin port's too.
      'X-Content-Type-Options',
      'nosniff',
    ]);
    res.end(head ? undefined : body);
  };
  const json = (res: ServerResponse, status: number, value: unknown, head: boolean): void =>
    send(res, status, JSON_TYPE, JSON.stringify(value), head);

  const routes: Record<
    (typeof OPS_PATHS)[number],
    (res: ServerResponse, head: boolean) => void | Promise<void>
  > = {
    '/healthz': (res, head) => json(res, 200, { status: 'ok' }, head),
    '/readyz': async (res, head) => {
      const results = await Promise.all(
        deps.readiness.map(
          async (c) =>
            [
              c.name,
              await withDeadline(checkDeadlines, c.check(), 'check timed out').catch(() => false),
            ] as const,
        ),
      );
      deps.onChecked?.(results);
      const ready = results.every(([, ok], i) => ok || !(deps.readiness[i]!.gates?.() ?? true));
      const body = { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) };
      json(res, ready ? 200 : 503, body, head);
    },
    '/metrics': async (res, head) => {
      let text: string;
      try {
        text = deps.metricsText ? await deps.metricsText() : await deps.registry.metrics();
      } catch (err) {
        send(res, 503, 'text/plain; charset=utf-8', `metrics unavailable: ${(err as Error).message}\n`, head);
        return;
      }
      send(res, 200, deps.registry.contentType, text, head);
    },
    '/.well-known/jwks.json': (res, head) => json(res, 200, deps.identity.jwks(), head),
  };

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    // As Express matched them: any case, with or without one trailing slash.
    const path = (q === -1 ? url : url.slice(0, q)).toLowerCase().replace(/(.)\/$/, '$1');
    const route = Object.hasOwn(routes, path) ? routes[path as (typeof OPS_PATHS)[number]] : undefined;
    if (!route) return false;
    void Promise.resolve(route(res, req.method === 'HEAD')).catch(() => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n', false);
      else res.destroy();
    });
    return true;
  };
}
