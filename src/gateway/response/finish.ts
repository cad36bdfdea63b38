import type { RuntimeConfig } from '../../config/compile-config';
import type { ApiError } from '../../errors/api-error';
import { computeWindows } from '../../metering/windows';
import type { RequestContext } from '../context';
import type { GatewayDeps } from '../deps';
import { quotaHeaders } from './quota-headers';
import { settle } from './settle';

export interface Outcome {
  status: number;
  body: unknown;
  error?: ApiError;
  /** Record ids the body returns (bulk-extraction watch). */
  ids?: string[];
}

/** The response phase every request ends in: settle → headers → body → metrics and log line. */
export async function finish(
  ctx: RequestContext,
  config: RuntimeConfig,
  deps: GatewayDeps,
  out: Outcome,
): Promise<void> {
  const { res } = ctx;
  if (!ctx.requestId) ctx.requestId = ctx.meterId;
  await settle(ctx, deps, out.status, out.error?.code);
  if (!res.headersSent) res.setHeader('X-Request-Id', ctx.requestId);
  const principal = ctx.principal;
  if (principal && !res.headersSent) {
    res.setHeader('Cache-Control', 'private, no-store');
    const windows = ctx.windows ?? computeWindows(deps.clock.now(), config.raw.plans.timezone);
    let usage = ctx.usage;
    if (!usage) {
      try {
        usage = await deps.meter.peek(principal.account.id, windows);
      } catch {
        usage = undefined; // counters unreachable: the answer still goes out, without quota headers
      }
    }
    if (usage)
      for (const [k, v] of Object.entries(quotaHeaders(principal.plan, usage, windows))) res.setHeader(k, v);
  }
  const extras = out.error?.extras;
  if (!res.headersSent && extras) {
    if (extras.retryAfter !== undefined)
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(extras.retryAfter))));
    for (const [k, v] of Object.entries(extras.headers ?? {})) res.setHeader(k, v);
  }
  if (!res.headersSent && !res.destroyed) {
    const payload = JSON.stringify(out.body);
    res.statusCode = out.status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(payload));
    res.end(ctx.req.method === 'HEAD' ? undefined : payload);
  }
  ctx.finished = true;
  observe(ctx, deps, out);
}

function observe(ctx: RequestContext, deps: GatewayDeps, out: Outcome): void {
  const dataset = ctx.route?.label ?? 'unknown';
  const plan = ctx.principal?.plan.name ?? 'none';
  const code = out.error?.code ?? 'ok';
  const seconds = (performance.now() - ctx.startedAt) / 1000;
  deps.metrics.requests.inc({ dataset, status: String(out.status), code, plan });
  deps.metrics.requestDuration.observe({ dataset }, seconds);
  deps.logger.info(
    {
      req_id: ctx.requestId,
      account_id: ctx.principal?.account.id,
      plan: ctx.principal?.plan.name,
      dataset,
      status: out.status,
      code,
      duration_ms: Math.round(seconds * 10_000) / 10,
      upstream_ms: ctx.upstreamMs,
      ip: ctx.clientIp,
    },
    'request',
  );
  if (out.ids && out.ids.length > 0 && ctx.principal && ctx.route?.dataset?.bulkWatch && deps.onIdsReturned) {
    deps.onIdsReturned(ctx.principal.account.id, ctx.route.dataset.path, out.ids, ctx.principal.plan.name);
  }
}
