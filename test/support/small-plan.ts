import type { PlanLimits } from '../../src/config/plans-schema';

/**
 * A plan for tests, with numbers small enough to reach in a few calls: `overrides` on top of
 * 100 calls a month, a day, a minute and a second, 10 a page, 3 pages, no full text, no IP
 * allowlist, no extra credits, watched for bulk extraction.
 */
export function smallPlan(overrides: Partial<PlanLimits>): PlanLimits {
  return {
    monthly_calls: 100,
    daily_calls: 100,
    per_minute: 100,
    per_second: 100,
    per_page_max: 10,
    max_page: 3,
    full_text_daily: 0,
    ip_allowlist: false,
    extra_credits: false,
    bulk_watch: true,
    ...overrides,
  };
}
