// node's global `performance` is a getter run on every read: imported instead.
import { performance } from 'node:perf_hooks';
import type { RuntimeConfig } from '../../config/compile-config';
import { ApiError } from '../../errors/api-error';
import type { RequestContext } from '../context';
import type { GatewayDeps } from '../deps';
import { chargeCapped, refuseUnpayable } from '../policies/meter';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import { upstreamUnavailable } from '../proxy/upstream-unavailable';
import { UpstreamFailure } from '../proxy/upstream-failure';
import type { UpstreamFailureReason } from '../proxy/upstream-failure';
import { MalformedAnswer, isRecord, shapeBody } from '../shaping/shape-body';
import { htmlHasText } from '../shaping/html-preview';
import type { Outcome } from './finish';
import { parseJsonObject } from '../../util/json-object';

function upstreamPath(ctx: RequestContext): string {
  const route = ctx.route!;
  const base = `/${route.dataset!.upstreamPath}`;
  if (route.kind === 'list') return `${base}?${ctx.upstreamQuery!}`;
  const id = encodeURIComponent(route.id!);
  return route.subresource ? `${base}/${id}/${route.subresource.name}` : `${base}/${id}`;
}

/** The code, message and param of an upstream's error body (DESIGN §4), as far as they are strings. */
function upstreamError(body: Buffer): { code?: string; message?: string; param?: string } {
  const parsed = parseJsonObject(body.toString('utf8'));
  if (parsed === undefined) return {};
  const str = (v: unknown, max: number): string | undefined =>
    typeof v === 'string' && v !== '' ? v.slice(0, max) : undefined;
  return { code: str(parsed.code, 64), message: str(parsed.message, 300), param: str(parsed.param, 64) };
}

/** A detail answer's record, or undefined when the answer holds none (off the upstream contract). */
function detailRecord(body: unknown): Record<string, unknown> | undefined {
  return isRecord(body) && isRecord(body.data) ? body.data : undefined;
}

/** A record with no full text to open: the field null, missing, or without text. */
function withoutFullText(record: Record<string, unknown>, field: string): boolean {
  const text = record[field];
  return text === null || text === undefined || (typeof text === 'string' && !htmlHasText(text));
}

/**
 * The call counts but opened no document of the day (an unknown id, a record without full text):
 * settle gives its full-text slot back, and a call over the cap, whose reserve took only its rate
 * slots (such a call almost always does not count), is charged now.
 */
async function countsWithoutDocument(ctx: RequestContext, deps: GatewayDeps, config: RuntimeConfig) {
  const r = ctx.reservation;
  if (!r) return;
  r.openedNoDocument = true;
  if (r.result.fullTextBlocked) await chargeCapped(ctx, deps, config.raw.plans);
}

/** The upstream's failures reach the caller as one 503; the log and the metric keep what each one was. */
function refused(
  ctx: RequestContext,
  deps: GatewayDeps,
  upstream: string,
  kind: UpstreamFailureReason,
  reason: string,
): ApiError {
  deps.metrics.upstreamFailures.inc({ upstream, reason: kind });
  deps.logger.warn(
    { req_id: ctx.requestId, upstream, upstream_status: ctx.upstreamStatus, reason },
    'upstream answer refused',
  );
  return upstreamUnavailable();
}

/**
 * The upstream's own time, from when the call was sent: a wait in the gateway before (pool_size
 * connections busy, or a busy turn) is the gateway's, logged apart as upstream_wait_ms. A call
 * never sent has no upstream time to observe.
 */
function timeUpstream(
  ctx: RequestContext,
  deps: GatewayDeps,
  upstream: string,
  t0: number,
  waitedMs: number,
  sent: boolean,
): void {
  const ms = Math.max(0, performance.now() - t0 - waitedMs);
  ctx.upstreamMs = Math.round(ms * 10) / 10;
  if (waitedMs >= 1) ctx.upstreamWaitMs = Math.round(waitedMs);
  if (sent) deps.metrics.upstreamDuration.observe({ upstream }, ms / 1000);
}

/**
 * Whether an answer may hold the field anywhere: its name as a JSON string, or any \u escape, which
 * could spell it otherwise. A search of the bytes, so that the shaping need not walk every record
 * of an answer (every shipped list) that cannot hold it.
 */
function mayHoldField(body: Buffer, field: string | undefined): boolean {
  return field !== undefined && (body.includes(`"${field}"`) || body.includes('\\u'));
}

/** Proxy step (9) and shape step (10): forward with an identity assertion, map the answer to the envelope. */
export async function forwardAndShape(
  ctx: RequestContext,
  config: RuntimeConfig,
  deps: GatewayDeps,
  proxy: UpstreamProxy,
): Promise<Outcome> {
  const { principal, route } = ctx;
  const signed = deps.identity.authorization(proxy.name, principal!.account.id, principal!.plan.name);
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
    const failure = err instanceof UpstreamFailure ? err : new UpstreamFailure(String(err), 'network', err);
    timeUpstream(ctx, deps, proxy.name, t0, failure.waitedMs, failure.reason !== 'no_connection');
    deps.metrics.upstreamFailures.inc({ upstream: proxy.name, reason: failure.reason });
    deps.logger.warn(
      { req_id: ctx.requestId, upstream: proxy.name, err: (err as Error).message },
      'upstream call failed',
    );
    throw upstreamUnavailable();
  }
  timeUpstream(ctx, deps, proxy.name, t0, reply.waitedMs, true);
  ctx.upstreamStatus = reply.status;
  // The answer's bytes count against upstream_memory_mb until it has been parsed and reshaped.
  try {
    if (reply.status === 404 || reply.status === 422) {
      const err = upstreamError(reply.body);
      // Only an id can be unknown, and only `404 {"code":"not_found"}` says so (DESIGN §4): a list's
      // 404, or a 404 without that code (a path the upstream does not serve), is a server fault that
      // must not count, not the caller's 404.
      if (reply.status === 404) {
        if (route!.kind !== 'list' && err.code === 'not_found') {
          await countsWithoutDocument(ctx, deps, config);
          throw new ApiError('not_found');
        }
        throw refused(
          ctx,
          deps,
          proxy.name,
          'bad_status',
          `404 ${err.code ?? 'without a code'} on a ${route!.kind} path`,
        );
      }
      // Only `422 {"code":"invalid_request"}` blames the caller's parameters (DESIGN §4): any other
      // 422 (a proxy's page, an error of its own) is the upstream's fault, not counted.
      if (err.code !== 'invalid_request')
        throw refused(
          ctx,
          deps,
          proxy.name,
          'bad_status',
          `422 ${err.code ?? 'without a code'}${err.param ? ` (${err.param})` : ''}`,
        );
      throw new ApiError('invalid_request', {
        ...(err.message ? { message: err.message } : {}),
        ...(err.param ? { param: err.param } : {}),
      });
    }
    // A 5xx is the upstream's own failure; any other status means a gateway and an upstream that
    // do not agree on the contract (a wrong URL or path, a proxy's page): told apart on the metric.
    if (reply.status !== 200)
      throw refused(
        ctx,
        deps,
        proxy.name,
        reply.status >= 500 ? 'server_error' : 'bad_status',
        `status ${reply.status}`,
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.body.toString('utf8'));
    } catch {
      throw refused(ctx, deps, proxy.name, 'bad_body', 'body is not JSON');
    }
    const r = ctx.reservation;
    if (r?.input.fullText !== undefined) {
      // An answer with no record opened no document: the upstream's failure (503), over the cap too.
      const record = detailRecord(parsed);
      if (!record) throw refused(ctx, deps, proxy.name, 'bad_body', 'detail data is not a JSON object');
      // No text, no full-text document: its record is served over the cap too, as a call like any other.
      if (withoutFullText(record, route!.dataset!.fullTextField!))
        await countsWithoutDocument(ctx, deps, config);
      else if (r.result.fullTextBlocked) {
        // The document exists and is new today, over the full-text cap: 429, and nothing was
        // counted but the request's rate slots (an unknown id's 404 above is charged when it comes).
        await refuseUnpayable(ctx, deps, config.raw.plans);
        deps.metrics.quotaRejections.inc({ reason: 'full_text_limit' });
        throw new ApiError('full_text_limit', {
          quota: principal!.plan.full_text_daily,
          reset_in_seconds: ctx.windows!.secondsToDayEnd,
          retryAfter: ctx.windows!.secondsToDayEnd,
          upgrade_url: config.raw.plans.upgrade_url,
        });
      }
    }
    let shaped;
    try {
      shaped = shapeBody(parsed, {
        route: route!,
        plan: principal!.plan,
        page: ctx.page ?? 1,
        perPage: ctx.perPage ?? config.raw.plans.default_per_page,
        previewChars: config.raw.gateway.preview_chars,
        upgradeUrl: config.raw.plans.upgrade_url,
        fullTextSeen: mayHoldField(reply.body, route!.dataset!.fullTextField),
      });
    } catch (err) {
      if (err instanceof MalformedAnswer) throw refused(ctx, deps, proxy.name, 'bad_body', err.message);
      throw err;
    }
    if (shaped.mended)
      deps.logger.warn(
        { req_id: ctx.requestId, upstream: proxy.name, reason: shaped.mended },
        'upstream answer mended',
      );
    return { status: 200, body: shaped.body, ids: shaped.ids };
  } finally {
    reply.release();
  }
}
