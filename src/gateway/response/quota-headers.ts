import type { CompiledPlan } from '../../config/compile-config';
import type { Usage } from '../../metering/meter-store';
import type { Windows } from '../../metering/windows';
import { decimal } from '../../util/decimal';

/**
 * Appends, as name/value pairs for writeHead, the reference's quota and rate headers plus the IETF
 * RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers): one "minute" and one
 * "month" policy.
 */
export function appendQuotaHeaders(out: string[], plan: CompiledPlan, usage: Usage, w: Windows): void {
  // Numbers that change with every response or second: written without the number-to-string
  // cache (see decimal.ts).
  const monthLeft = decimal(Math.max(0, plan.monthly_calls - usage.monthly));
  const minuteLeft = decimal(Math.max(0, plan.per_minute - usage.minute));
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
    `"minute";r=${minuteLeft};t=${decimal(w.secondsToMinuteEnd)}, "month";r=${monthLeft};t=${decimal(w.secondsToMonthEnd)}`,
  );
}
