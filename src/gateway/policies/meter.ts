import { DatabaseUnavailableError } from '../../db/db';
import { ApiError } from '../../errors/api-error';
import { StoreUnavailableError, quotaShare, refundFor, usageAfterRefund } from '../../metering/meter-store';
import type { DayRefusal } from '../../metering/day-refusal-memo';
import type { ReserveInput, ReserveResult, Usage } from '../../metering/meter-store';
import { computeWindows } from '../../metering/windows';
import type { Windows } from '../../metering/windows';
import type { CompiledPlan, RuntimeConfig } from '../../config/compile-config';
import type { RequestContext } from '../context';
import type { GatewayDeps } from '../deps';
import type { PolicyFactory } from '../policy';
import { fieldPlanFor } from '../shaping/field-plan';
import { spentMessage } from './meter-messages';
import type { Spent } from './meter-messages';

// The public API's one 503 code (API reference, Errors), with what could not be done.
const METER_AWAY = 'Dịch vụ tạm thời không thể ghi nhận lượt gọi, vui lòng thử lại sau.';

type CreditUrls = Pick<RuntimeConfig['raw']['plans'], 'upgrade_url' | 'buy_credits_url'>;

/**
 * Spends the reservation's credit calls from the ledger. When the balance cannot pay them, gives
 * the reservation back and refuses the call: the quota and the credits are both used up.
 */
export async function payCredits(ctx: RequestContext, deps: GatewayDeps, urls: CreditUrls): Promise<void> {
  const r = ctx.reservation!;
  const accountId = ctx.principal!.account.id;
  let spend;
  deps.dayRefusals.spending(accountId, r.result.creditCalls);
  try {
    spend = await deps.credits.spend(accountId, r.result.creditCalls, ctx.meterId);
  } catch (err) {
    // The database may have committed the spend and lost only its answer: settle gives back
    // whatever this request spent (nothing, if it spent nothing).
    if (err instanceof DatabaseUnavailableError && err.mayHaveRun) r.creditsSpent = true;
    throw err;
  } finally {
    deps.dayRefusals.spent(accountId, r.result.creditCalls);
  }
  deps.balances.note(accountId, spend.balance, deps.clock.now());
  if (!spend.ok) {
    deps.dayRefusals.remember(accountId, 'credits', deps.clock.now());
    throw await creditsSpent(ctx, deps, urls, spend.balance);
  }
  // Credits bought within the second of a refusal that said they had run out: a later refusal
  // for the day must not repeat it.
  deps.dayRefusals.paid(accountId);
  r.creditsSpent = true;
  ctx.creditsLeft = spend.balance;
}

/**
 * A call over the full-text cap whose credit was not spent: when the balance could not pay it,
 * the answer is the one every call of the account now gets (the quota before the cap, as on a
 * plan without credits), not full_text_limit.
 */
export async function refuseUnpayable(
  ctx: RequestContext,
  deps: GatewayDeps,
  urls: CreditUrls,
): Promise<void> {
  const r = ctx.reservation!;
  if (r.result.source !== 'credits' || r.creditsSpent) return;
  const balance = await deps.credits.balance(ctx.principal!.account.id);
  if (balance < r.result.creditCalls) throw await creditsSpent(ctx, deps, urls, balance);
}

/**
 * Gives the reservation back and builds the refusal: quota and credits cannot pay the call
 * (`balance`: the credits left, which a call of cost 2 may find one short of).
 */
async function creditsSpent(
  ctx: RequestContext,
  deps: GatewayDeps,
  urls: CreditUrls,
  balance: number,
): Promise<ApiError> {
  const r = ctx.reservation!;
  const back = refundFor(r.input, r.result, ctx.requestId);
  let usage = r.result.usage;
  if (back) {
    await deps.meter.refund(back);
    ctx.usage = usage = usageAfterRefund(usage, back);
  }
  r.settled = true;
  deps.metrics.quotaRejections.inc({ reason: 'quota_exceeded' });
  const message = spentMessage('credits', r.input, usage, balance);
  return quotaExceeded('credits', message, ctx.principal!.plan, ctx.windows!, urls);
}

/** 429 quota_exceeded for the allowance that ran out: its own message, quota and reset. */
function quotaExceeded(
  spent: Spent,
  message: string,
  plan: CompiledPlan,
  windows: Windows,
  urls: CreditUrls,
): ApiError {
  const daily = spent === 'daily';
  const reset = daily ? windows.secondsToDayEnd : windows.secondsToMonthEnd;
  return new ApiError('quota_exceeded', {
    message,
    quota: daily ? plan.daily_calls : plan.monthly_calls,
    reset_in_seconds: reset,
    retryAfter: reset,
    upgrade_url: urls.upgrade_url,
    ...(spent === 'credits' ? { buy_credits_url: urls.buy_credits_url } : {}),
  });
}

/**
 * A call refused for the day, past the monthly quota: on a plan without credits that is the
 * monthly refusal; when the credits cannot pay it either, both are used up, and the answer says so
 * with buy_credits_url (API reference, Errors). The day's count
 * also holds credit calls still in flight, which give their calls back if their spend fails: in a
 * burst on an account out of credits, most of the burst was told of a daily limit it had not used.
 */
async function dayRefusalFor(
  input: ReserveInput,
  usage: Usage,
  deps: GatewayDeps,
): Promise<DayRefusal | 'monthly'> {
  const { cost, limits, accountId } = input;
  const pastMonth = usage.monthly + cost > limits.monthly;
  // Without credits the month, spent too, is the refusal that lasts: its Retry-After is the 1st,
  // not a midnight after which the call would be refused again.
  if (!input.creditsAllowed) return pastMonth ? 'monthly' : 'daily';
  if (!pastMonth) return 'daily';
  const now = deps.clock.now();
  const known = deps.dayRefusals.known(accountId, now);
  if (known !== undefined) return known;
  const creditCalls = cost - quotaShare(cost, limits.monthly, usage.monthly);
  // The balance as the RateLimit header reads it (a spend of this replica keeps it current).
  const balance = await deps.balances.read(accountId, now);
  // The ledger unreachable: the day's limit is refusal enough, and true as counted.
  const answer: DayRefusal =
    balance !== undefined && balance - deps.dayRefusals.inFlight(accountId) < creditCalls
      ? 'credits'
      : 'daily';
  deps.dayRefusals.remember(accountId, answer, now);
  return answer;
}

/**
 * The reserve, or the error that refuses the request: the store closed (503), a rate window, the
 * day, the month, or quota and credits both.
 */
async function reserveOrRefuse(
  ctx: RequestContext,
  input: ReserveInput,
  deps: GatewayDeps,
  urls: CreditUrls,
): Promise<ReserveResult> {
  let result;
  try {
    result = await deps.meter.reserve(input);
  } catch (err) {
    if (err instanceof StoreUnavailableError)
      throw new ApiError('search_unavailable', { message: METER_AWAY, retryAfter: 5 });
    throw err;
  }
  ctx.usage = result.usage;
  if (result.ok) return result;
  deps.metrics.quotaReservations.inc({ result: 'rejected' });
  deps.metrics.quotaRejections.inc({ reason: result.reason ?? 'quota_exceeded' });
  if (result.reason === 'rate_limited')
    throw new ApiError('rate_limited', { retryAfter: result.retryAfter ?? 1 });
  const spent = result.scope === 'daily' ? await dayRefusalFor(input, result.usage, deps) : 'monthly';
  // The credits left, which only a call of cost 2 or more can find one short of (the message says
  // so): read through the one-second memo, and not at all for a refused call of cost 1.
  const short = spent === 'credits' && input.cost > 1;
  const balance = short ? ((await deps.balances.read(input.accountId, deps.clock.now())) ?? 0) : 0;
  throw quotaExceeded(
    spent,
    spentMessage(spent, input, result.usage, balance),
    ctx.principal!.plan,
    ctx.windows!,
    urls,
  );
}

/**
 * A call over the full-text cap that counts after all (an unknown id's 404, a record without full
 * text): its reserve took only rate slots, so it is charged now, against the day and the month (or
 * credits) as they stand; refused, the caller gets that refusal instead of the answer.
 */
export async function chargeCapped(
  ctx: RequestContext,
  deps: GatewayDeps,
  plans: CreditUrls & Pick<RuntimeConfig['raw']['plans'], 'timezone'>,
): Promise<void> {
  const r = ctx.reservation!;
  r.settled = true; // until charged, there is nothing to give back
  const { fullText: _notOpened, ...rest } = r.input;
  // The day it is charged in: an answer after midnight counts against the new day, not the full one.
  ctx.windows = computeWindows(deps.clock.now(), plans.timezone);
  // A second reserve of the request, under an id of its own: the first one's reply, kept for a
  // cluster client's resend (meter-lua.ts), must not answer it.
  const input: ReserveInput = {
    ...rest,
    requestId: `${rest.requestId}:charge`,
    windows: ctx.windows,
    limits: ctx.principal!.plan.chargeLimits,
  };
  r.result = await reserveOrRefuse(ctx, input, deps, plans);
  r.input = input;
  r.settled = false;
  if (r.result.source === 'credits') await payCredits(ctx, deps, plans);
  deps.metrics.quotaReservations.inc({ result: r.result.source });
}

/**
 * ONE atomic reservation per counted request: rate windows, full-text cap, daily limit and monthly
 * quota; past the quota on plans with extra credits, one durable credit spend in the database.
 */
export const meterPolicy: PolicyFactory = (config, deps) => {
  const { timezone } = config.raw.plans;
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
      const result = await reserveOrRefuse(ctx, input, deps, config.raw.plans);
      ctx.reservation = { input, result, creditsSpent: false, settled: false };
      // A document over the full-text cap almost always exists, and then the call does not count:
      // the reserve took only its rate slots, and the call is charged (its credit spent) only once
      // the upstream says it counts (chargeCapped), so that calls in flight over the cap hold
      // neither the quota nor the balance other calls would draw.
      if (result.source === 'credits' && !result.fullTextBlocked)
        await payCredits(ctx, deps, config.raw.plans);
      // A capped reserve took only rate slots: counted as such here, and by its source if charged.
      deps.metrics.quotaReservations.inc({ result: result.fullTextBlocked ? 'capped' : result.source });
      // An id that cannot exist is still a detail call for an unknown id: it counts (API reference, Limits).
      if (route.unknownId) throw new ApiError('not_found');
    },
  };
};
