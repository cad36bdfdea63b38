// node's global `performance` is a getter run on every read: imported instead.
import { performance } from 'node:perf_hooks';
import type { RuntimeConfig } from '../../config/compile-config';
import type { ApiError } from '../../errors/api-error';
import type { Usage } from '../../metering/meter-store';
import { computeWindows } from '../../metering/windows';
import type { Windows } from '../../metering/windows';
import { decimal } from '../../util/decimal';
import type { Defer } from '../../util/end-of-turn';
import type { AccessLog } from '../../util/logger';
import type { Utf8Encoder } from '../../util/utf8-slab';
import type { RequestContext } from '../context';
import type { GatewayDeps } from '../deps';
import { appendQuotaHeaders } from './quota-headers';
import { settle } from './settle';

export interface Outcome {
  status: number;
  body: unknown;
  error?: ApiError;
  /** Record ids the body returns (bulk-extraction watch). */
  ids?: string[];
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Where the response phase writes: the access log, and the end-of-turn queue for the socket write. */
export interface ResponseIo {
  access: AccessLog;
  defer: Defer;
  /** Bodies are encoded once, into bytes whose length is the Content-Length. */
  utf8: Utf8Encoder;
}

/**
 * The response phase every request ends in: settle → headers → body → metrics and log line. The
 * write waits for the end of the turn (see end-of-turn.ts); the log line and metrics follow it.
 */
export async function finish(
  ctx: RequestContext,
  config: RuntimeConfig,
  deps: GatewayDeps,
  out: Outcome,
  io: ResponseIo,
): Promise<void> {
  const { res } = ctx;
  if (!ctx.requestId) ctx.requestId = ctx.meterId;
  // Serialised before settling: a body that cannot be written (an upstream's record nested deeper
  // than JSON.stringify goes) throws here, unsettled, and the 500 that follows gives the call back.
  const json = JSON.stringify(out.body);
  const settling = settle(ctx, deps, out.status, out.error?.code);
  if (settling) await settling;
  // A caller already gone gets nothing written, and costs no quota read for its headers.
  if (res.headersSent || res.destroyed) return observe(ctx, deps, out, io.access);
  const pending = responseHeaders(ctx, config, deps, out);
  const headers = Array.isArray(pending) ? pending : await pending;
  const payload = io.utf8.encode(json);
  headers.push('Content-Type', JSON_TYPE, 'Content-Length', decimal(payload.length));
  const body = ctx.req.method === 'HEAD' ? undefined : payload;
  io.defer(() => {
    if (!res.destroyed) {
      res.writeHead(out.status, headers);
      res.end(body);
    }
    observe(ctx, deps, out, io.access);
  });
}

/**
 * Every header but the body's, as name/value pairs for one writeHead (no per-header validation into
 * a header map first). Synchronous unless the usage must be read (a request that never reserved),
 * or the credits left (past the quota on a plan with credits, when the request did not spend any).
 */
function responseHeaders(
  ctx: RequestContext,
  config: RuntimeConfig,
  deps: GatewayDeps,
  out: Outcome,
): string[] | Promise<string[]> {
  const headers = ['X-Request-Id', ctx.requestId, 'X-Content-Type-Options', 'nosniff'];
  // A key used from an address its allowlist refuses (a leaked key, most likely) learns nothing
  // of the account: no quota or rate headers.
  const principal = out.error?.code === 'ip_not_allowed' ? undefined : ctx.principal;
  // Still an answer to a valid key (DESIGN §2): no shared cache may keep it.
  if (ctx.principal) headers.push('Cache-Control', 'private, no-store');
  if (principal) {
    const windows = ctx.windows ?? computeWindows(deps.clock.now(), config.raw.plans.timezone);
    if (!ctx.usage) {
      return deps.meter.peek(principal.account.id, windows).then(
        (usage) => withUsage(ctx, deps, out, headers, windows, usage),
        // Counters unreachable: the answer still goes out, without quota headers.
        () => errorHeaders(headers, out),
      );
    }
    return withUsage(ctx, deps, out, headers, windows, ctx.usage);
  }
  return errorHeaders(headers, out);
}

/** The quota headers for this usage, then the error's. */
function withUsage(
  ctx: RequestContext,
  deps: GatewayDeps,
  out: Outcome,
  headers: string[],
  windows: Windows,
  usage: Usage,
): string[] | Promise<string[]> {
  const { plan, account } = ctx.principal!;
  // A 5xx (the database down among its causes) does not wait on the ledger for a header.
  const known = ctx.creditsLeft !== undefined || out.status >= 500;
  if (known || !plan.extra_credits || usage.monthly < plan.monthly_calls) {
    appendQuotaHeaders(headers, plan, usage, windows, ctx.creditsLeft);
    return errorHeaders(headers, out);
  }
  // Past the quota on a plan with credits, the "month" remainder is the credits left, also on an
  // answer that spent none (a 422, the day's 429), as /v1/me shows them.
  return deps.balances.read(account.id, deps.clock.now()).then((credits) => {
    appendQuotaHeaders(headers, plan, usage, windows, credits);
    return errorHeaders(headers, out);
  });
}

function errorHeaders(headers: string[], out: Outcome): string[] {
  const extras = out.error?.extras;
  if (extras) {
    if (extras.retryAfter !== undefined)
      headers.push('Retry-After', String(Math.max(1, Math.ceil(extras.retryAfter))));
    if (extras.headers) for (const k in extras.headers) headers.push(k, extras.headers[k]!);
  }
  return headers;
}

function observe(ctx: RequestContext, deps: GatewayDeps, out: Outcome, access: AccessLog): void {
  const dataset = ctx.route?.label ?? 'unknown';
  const plan = ctx.principal?.plan.name ?? 'none';
  const code = out.error?.code ?? 'ok';
  const seconds = (performance.now() - ctx.startedAt) / 1000;
  deps.metrics.requests.inc({ dataset, status: String(out.status), code, plan });
  deps.metrics.requestDuration.observe({ dataset }, seconds);
  access({
    req_id: ctx.requestId,
    account_id: ctx.principal?.account.id,
    key_id: ctx.principal?.key.id,
    plan: ctx.principal?.plan.name,
    dataset,
    // A key sent as an id arrives here as authenticate replaced it.
    id: ctx.route?.id,
    status: out.status,
    code,
    param: out.error?.extras.param,
    duration_ms: Math.round(seconds * 10_000) / 10,
    upstream_ms: ctx.upstreamMs,
    upstream_wait_ms: ctx.upstreamWaitMs,
    ip: ctx.clientIp,
  });
  if (out.ids && out.ids.length > 0 && ctx.principal && ctx.route?.dataset?.bulkWatch && deps.onIdsReturned) {
    const { account, plan } = ctx.principal;
    // Past, not present: authenticate refused a locked account before this.
    const lockEnded = account.restricted_until !== null;
    deps.onIdsReturned(account.id, ctx.route.dataset.path, out.ids, plan.name, lockEnded);
  }
}
