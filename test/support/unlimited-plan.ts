/**
 * A plan whose limits no run reaches: measuring the hot path (the hot-path test, the gateway
 * bench) must count every call without being stopped by a limit. Top-tier fields, nothing locked.
 */
export const UNLIMITED_PLAN = {
  monthly_calls: 1_000_000_000,
  daily_calls: 1_000_000_000,
  per_minute: 1_000_000_000,
  per_second: 1_000_000_000,
  per_page_max: 100,
  max_page: 1000,
  full_text_daily: 1000,
  ip_allowlist: true,
  extra_credits: false,
};
