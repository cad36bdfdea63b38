import type { CompiledPlan } from '../../config/compile-config';
import type { Usage } from '../../metering/meter-store';
import type { Windows } from '../../metering/windows';

/**
 * The reference's quota and rate headers plus the IETF RateLimit-Policy / RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): one "minute" and one "month" policy.
 */
export function quotaHeaders(plan: CompiledPlan, usage: Usage, w: Windows): Record<string, string> {
  const monthLeft = Math.max(0, plan.monthly_calls - usage.monthly);
  const minuteLeft = Math.max(0, plan.per_minute - usage.minute);
  return {
    'X-Quota-Limit': String(plan.monthly_calls),
    'X-Quota-Remaining': String(monthLeft),
    'X-RateLimit-Limit': String(plan.per_minute),
    'X-RateLimit-Remaining': String(minuteLeft),
    'RateLimit-Policy': `"minute";q=${plan.per_minute};w=60, "month";q=${plan.monthly_calls};w=${31 * 86_400}`,
    RateLimit: `"minute";r=${minuteLeft};t=${w.secondsToMinuteEnd}, "month";r=${monthLeft};t=${w.secondsToMonthEnd}`,
  };
}
