import type { CompiledPlan } from '../../config/compile-config';
import type { Usage } from '../../metering/meter-store';
import type { Windows } from '../../metering/windows';
import { decimal } from '../../util/decimal';

/**
 * Appends, as name/value pairs for writeHead, the reference's quota and rate headers plus the IETF
 * RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers): one policy for every
 * limit that can refuse a call (second, minute, day, month), so a client that paces itself by them
 * is not refused with budget still showing. X-Quota-Remaining is the plan's monthly quota left;
 * the "month" remainder adds the extra credits left once the quota is spent and credits pay.
 */
export function appendQuotaHeaders(
  out: string[],
  plan: CompiledPlan,
  usage: Usage,
  w: Windows,
  creditsLeft: number | undefined,
): void {
  // Numbers that change with every response or second: written without the number-to-string
  // cache (see decimal.ts).
  const quotaLeft = Math.max(0, plan.monthly_calls - usage.monthly);
  const monthLeft = decimal(quotaLeft);
  const minuteLeft = decimal(Math.max(0, plan.per_minute - usage.minute));
  const secondLeft = decimal(Math.max(0, plan.per_second - usage.second));
  const dayLeft = decimal(Math.max(0, plan.daily_calls - usage.daily));
  const monthPaid = creditsLeft === undefined ? monthLeft : decimal(quotaLeft + Math.max(0, creditsLeft));
  out.push(
    'X-Quota-Limit',
    String(plan.monthly_calls),
    'X-Quota-Remaining',
    monthLeft,
    'X-RateLimit-Limit',
    String(plan.per_minute),
    'X-RateLimit-Remaining',
    minuteLeft,
    'RateLimit-Policy',
    plan.rateLimitPolicy,
    'RateLimit',
    `"second";r=${secondLeft};t=${decimal(w.secondsToSecondEnd)}, "minute";r=${minuteLeft};t=${decimal(w.secondsToMinuteEnd)}, "day";r=${dayLeft};t=${decimal(w.secondsToDayEnd)}, "month";r=${monthPaid};t=${decimal(w.secondsToMonthEnd)}`,
  );
}
