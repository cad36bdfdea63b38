import { ApiError } from '../../errors/api-error';
import { StoreUnavailableError, refundFor, usageAfterRefund } from '../../metering/meter-store';
import type { ReserveInput } from '../../metering/meter-store';
import { computeWindows } from '../../metering/windows';
import type { PolicyFactory } from '../policy';
import { fieldPlanFor } from '../shaping/field-plan';

// Which allowance ran out: `quota` and `reset_in_seconds` are that one's.
const DAILY_SPENT = 'Đã dùng hết số lượt gọi trong ngày (hạn mức ngày, áp dụng cả khi dùng extra credits).';
const MONTHLY_SPENT = 'Đã dùng hết số lượt gọi trong tháng.';

/**
 * ONE atomic reservation per counted request: rate windows, full-text cap, daily limit and monthly
 * quota; past the quota on plans with extra credits, one durable credit spend in the database.
 */
export const meterPolicy: PolicyFactory = (config, deps) => {
  const { timezone, upgrade_url, buy_credits_url } = config.raw.plans;
  return {
    name: 'meter',
    async handle(ctx) {
      const { route, principal } = ctx;
      if (!route?.dataset || !principal) return;
      const { plan, account } = principal;
      const ds = route.dataset;
      const windows = computeWindows(deps.clock.now(), timezone);
      ctx.windows = windows;
      const opensFullText =
        route.kind === 'detail' &&
        !route.unknownId &&
        ds.fullTextField !== undefined &&
        fieldPlanFor(ds, plan).fullText;
      const input: ReserveInput = {
        accountId: account.id,
        requestId: ctx.meterId,
        cost: route.subresource ? route.subresource.cost : ds.cost,
        limits: plan.meterLimits,
        windows,
        creditsAllowed: plan.extra_credits,
        ...(opensFullText
          ? { fullText: { docId: `${ds.path}:${route.id}`, cap: plan.full_text_daily } }
          : {}),
      };
      let result;
      try {
        result = await deps.meter.reserve(input);
      } catch (err) {
        if (err instanceof StoreUnavailableError)
          throw new ApiError('service_unavailable', { retryAfter: 5 });
        throw err;
      }
      ctx.usage = result.usage;
      if (!result.ok) {
        deps.metrics.quotaReservations.inc({ result: 'rejected' });
        deps.metrics.quotaRejections.inc({ reason: result.reason ?? 'quota_exceeded' });
        if (result.reason === 'rate_limited')
          throw new ApiError('rate_limited', { retryAfter: result.retryAfter ?? 1 });
        const daily = result.scope === 'daily';
        throw new ApiError('quota_exceeded', {
          message: daily ? DAILY_SPENT : MONTHLY_SPENT,
          quota: daily ? plan.daily_calls : plan.monthly_calls,
          reset_in_seconds: daily ? windows.secondsToDayEnd : windows.secondsToMonthEnd,
          retryAfter: daily ? windows.secondsToDayEnd : windows.secondsToMonthEnd,
          upgrade_url,
        });
      }
      ctx.reservation = { input, result, creditsSpent: false, settled: false };
      if (result.source === 'credits') {
        const spend = await deps.credits.spend(account.id, result.creditCalls, ctx.meterId);
        if (!spend.ok) {
          const back = refundFor(input, result);
          if (back) {
            await deps.meter.refund(back);
            ctx.usage = usageAfterRefund(result.usage, back);
          }
          ctx.reservation.settled = true;
          deps.metrics.quotaRejections.inc({ reason: 'quota_exceeded' });
          throw new ApiError('quota_exceeded', {
            message: 'Đã dùng hết số lượt gọi trong tháng và số lượt mua thêm (extra credits).',
            quota: plan.monthly_calls,
            reset_in_seconds: windows.secondsToMonthEnd,
            retryAfter: windows.secondsToMonthEnd,
            upgrade_url,
            buy_credits_url,
          });
        }
        ctx.reservation.creditsSpent = true;
        ctx.creditsLeft = spend.balance;
      }
      deps.metrics.quotaReservations.inc({ result: result.source });
      // An id that cannot exist is still a detail call for an unknown id: it counts (API reference, Limits).
      if (route.unknownId) throw new ApiError('not_found');
    },
  };
};
