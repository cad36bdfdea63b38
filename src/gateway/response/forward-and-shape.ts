// node's global `performance` is a getter run on every read: imported instead.
import { performance } from 'node:perf_hooks';
import type { RuntimeConfig } from '../../config/compile-config';
import { ApiError } from '../../errors/api-error';
import type { RequestContext } from '../context';
import type { GatewayDeps } from '../deps';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import { upstreamUnavailable } from '../proxy/upstream-unavailable';
import { shapeBody } from '../shaping/shape-body';
import type { Outcome } from './finish';

function upstreamPath(ctx: RequestContext): string {
  const route = ctx.route!;
  const base = `/${route.dataset!.upstreamPath}`;
  if (route.kind === 'list') return `${base}?${ctx.upstreamQuery!}`;
  const id = encodeURIComponent(route.id!);
  return route.subresource ? `${base}/${id}/${route.subresource.name}` : `${base}/${id}`;
}

function upstreamMessage(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

/** Proxy step (9) and shape step (10): forward with an identity assertion, map the answer to the envelope. */
export async function forwardAndShape(
  ctx: RequestContext,
  config: RuntimeConfig,
  deps: GatewayDeps,
  proxy: UpstreamProxy,
): Promise<Outcome> {
  const { principal, route } = ctx;
  const signed = deps.identity.authorization(principal!.account.id, principal!.plan.name);
  const authorization = typeof signed === 'string' ? signed : await signed;
  const t0 = performance.now();
  let reply;
  try {
    reply = await proxy.forward({
      path: upstreamPath(ctx),
      requestId: ctx.requestId,
      authorization,
      clientIp: ctx.clientIp,
    });
  } catch (err) {
    deps.logger.warn(
      { req_id: ctx.requestId, upstream: proxy.name, err: (err as Error).message },
      'upstream unreachable',
    );
    throw upstreamUnavailable();
  } finally {
    ctx.upstreamMs = Math.round((performance.now() - t0) * 10) / 10;
    deps.metrics.upstreamDuration.observe({ upstream: proxy.name }, (performance.now() - t0) / 1000);
  }
  ctx.upstreamStatus = reply.status;
  // Only an id can be unknown (DESIGN §4: a list always answers 200): a list's 404 means the
  // upstream does not serve the dataset, a server fault that must not count, not the caller's 404.
  if (reply.status === 404 && route!.kind !== 'list') throw new ApiError('not_found');
  if (reply.status === 422 || reply.status === 400) {
    const message = upstreamMessage(reply.body);
    throw new ApiError('invalid_request', message ? { message } : {});
  }
  if (reply.status !== 200) throw upstreamUnavailable();
  // The document exists and is new today, over the full-text cap (the meter reserved the call so
  // that an unknown id's 404 above still counts): 429, and settle gives the call back.
  if (ctx.reservation?.result.fullTextBlocked) {
    deps.metrics.quotaRejections.inc({ reason: 'full_text_limit' });
    throw new ApiError('full_text_limit', {
      quota: principal!.plan.full_text_daily,
      reset_in_seconds: ctx.windows!.secondsToDayEnd,
      retryAfter: ctx.windows!.secondsToDayEnd,
      upgrade_url: config.raw.plans.upgrade_url,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body.toString('utf8'));
  } catch {
    throw upstreamUnavailable();
  }
  const shaped = shapeBody(parsed, {
    route: route!,
    plan: principal!.plan,
    page: ctx.page ?? 1,
    perPage: ctx.perPage ?? config.raw.plans.default_per_page,
    previewChars: config.raw.gateway.preview_chars,
    upgradeUrl: config.raw.plans.upgrade_url,
  });
  return { status: 200, body: shaped.body, ids: shaped.ids };
}
