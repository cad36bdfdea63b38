import type { RuntimeConfig } from '../../config/compile-config';
import { ApiError } from '../../errors/api-error';
import { computeWindows } from '../../metering/windows';
import type { RequestContext } from '../context';
import type { GatewayDeps } from '../deps';
import { fieldPlanFor } from '../shaping/field-plan';
import { listMeta } from '../shaping/page-meta';
import type { Outcome } from './finish';
import { isoOrNull } from '../../util/iso-time';

// The public API's one 503 code (API reference, Errors), with what could not be done.
const USAGE_AWAY = 'Dịch vụ tạm thời không thể đọc số lượt đã dùng, vui lòng thử lại sau.';

/** GET /v1/me: the account's quota summary; consumes nothing (no reservation, a read-only peek). */
export async function answerMe(
  ctx: RequestContext,
  config: RuntimeConfig,
  deps: GatewayDeps,
): Promise<Outcome> {
  const { account, plan, key } = ctx.principal!;
  const windows = computeWindows(deps.clock.now(), config.raw.plans.timezone);
  ctx.windows = windows;
  const [usage, credits] = await Promise.all([
    // Counters unreachable (closed store policy): say so, rather than show made-up usage.
    deps.meter.peek(account.id, windows).catch(() => {
      throw new ApiError('search_unavailable', { message: USAGE_AWAY, retryAfter: 5 });
    }),
    deps.credits.balance(account.id),
  ]);
  ctx.usage = usage;
  deps.balances.note(account.id, credits, deps.clock.now());
  // The month's quota spent: the calls still open are the credits (the RateLimit "month" remainder).
  if (plan.extra_credits && usage.monthly >= plan.monthly_calls) ctx.creditsLeft = credits;
  const restricted = account.restricted_until !== null && account.restricted_until > deps.clock.now();
  return {
    status: 200,
    body: {
      success: true,
      data: {
        account: {
          id: account.id,
          email: account.email,
          email_verified: account.email_verified,
          restricted: restricted,
          restricted_until: restricted ? isoOrNull(account.restricted_until) : null,
        },
        plan: plan.name,
        extra_credits: credits,
        quota: {
          monthly_limit: plan.monthly_calls,
          monthly_used: usage.monthly,
          monthly_remaining: Math.max(0, plan.monthly_calls - usage.monthly),
          monthly_reset_in_seconds: windows.secondsToMonthEnd,
          daily_limit: plan.daily_calls,
          daily_used: usage.daily,
          daily_remaining: Math.max(0, plan.daily_calls - usage.daily),
          daily_reset_in_seconds: windows.secondsToDayEnd,
          per_minute_limit: plan.per_minute,
          per_minute_remaining: Math.max(0, plan.per_minute - usage.minute),
          per_second_limit: plan.per_second,
          full_text_daily_limit: plan.full_text_daily,
          full_text_used_today: usage.fullText,
          per_page_max: plan.per_page_max,
          max_page: plan.max_page,
        },
        key: { id: key.id, expires_at: isoOrNull(key.expires_at), ip_allowlist: key.ip_allowlist },
        timezone: config.raw.plans.timezone,
      },
    },
  };
}

/**
 * GET /v1/datasets: the datasets the caller's plan may use (discovery; does not count): all of them,
 * or one page of them when page or per_page was given (as the validate policy read them).
 */
export function answerDatasets(ctx: RequestContext, config: RuntimeConfig): Outcome {
  const plan = ctx.principal!.plan;
  const usable = [...config.datasets.values()].filter((ds) => plan.rank >= ds.minRank);
  // Set by the validate policy when page or per_page was given; otherwise every dataset, one page.
  const page = ctx.page ?? 1;
  const perPage = ctx.perPage ?? Math.max(usable.length, 1);
  const data = usable.slice((page - 1) * perPage, page * perPage).map((ds) => ({
    path: `/v1/${ds.path}`,
    id_prefix: ds.idPrefix ?? null,
    title: ds.source.title ?? ds.path,
    title_vi: ds.source.title_vi ?? null,
    min_plan: ds.minPlan,
    detail: ds.detail,
    parameters: [...ds.params.values()].map((p) => ({
      name: p.name,
      type: p.spec.type,
      ...(p.spec.type === 'enum' ? { values: p.spec.values } : {}),
      ...(p.defaultValue !== undefined ? { default: p.defaultValue } : {}),
    })),
    require_one_of: ds.requireOneOf,
    ranges: ds.ranges.map(({ from, to }) => ({ from, to })),
    locked_fields: fieldPlanFor(ds, plan).locked,
    subresources: [...ds.subresources.values()].map((s) => ({
      name: s.name,
      min_plan: s.minPlan,
      cost: s.cost,
      available: plan.rank >= s.minRank,
    })),
  }));
  return {
    status: 200,
    body: {
      success: true,
      data,
      meta: listMeta(page, perPage, usable.length, plan.max_page, [], config.raw.plans.upgrade_url),
    },
  };
}
