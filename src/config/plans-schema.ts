import { z } from 'zod';

const count = (what: string, min = 0) => z.number().int().min(min).max(1_000_000_000).describe(what);

export const planSchema = z
  .object({
    monthly_calls: count('Calls allowed per calendar month (service time zone).'),
    daily_calls: count('Calls allowed per day; still applies while drawing extra credits.'),
    // At least 1: a rate of 0 would refuse every call; one check, so -5 is told the bound of 1.
    per_minute: count('Requests per minute.', 1),
    per_second: count('Requests per second.', 1),
    per_page_max: z.number().int().min(1).max(1000).describe('Ceiling for per_page; larger values are lowered silently.'),
    max_page: z.number().int().min(1).max(100_000).describe('Highest page number a query may request.'),
    full_text_daily: count('Distinct documents opened with full text per day; 0 = preview only.'),
    ip_allowlist: z.boolean().describe('May keys of this plan be restricted to IP ranges.'),
    extra_credits: z.boolean().describe('May this plan buy and draw extra credits past the monthly quota.'),
    bulk_watch: z.boolean().describe('Is this plan subject to bulk-extraction detection.'),
  })
  .strict();

export const plansFileSchema = z
  .object({
    timezone: z
      .string()
      .default('Asia/Ho_Chi_Minh')
      .refine((tz) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: tz });
          return true;
        } catch {
          return false;
        }
      }, 'unknown IANA time zone')
      .describe('Time zone of the daily (00:00) and monthly (1st) resets.'),
    default_per_page: z.number().int().min(1).max(1000).default(20).describe('per_page when the caller gives none.'),
    per_ip_per_minute: z.number().int().min(1).max(10_000_000).default(600).describe('Requests per IP per minute, before auth.'),
    upgrade_url: z.url().describe('Pricing page, carried by plan_required, quota_exceeded and locked fields.'),
    buy_credits_url: z.url().describe('Where to buy extra credits; carried when quota and credits are both spent.'),
    plans: z
      .record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'plan names are lower-case words'), planSchema)
      .refine((p) => Object.keys(p).length > 0, 'at least one plan')
      .describe('Plans ordered lowest to highest; "X+" means X and every plan after it.'),
  })
  .strict();

export type PlanLimits = z.infer<typeof planSchema>;
export type PlansFile = z.infer<typeof plansFileSchema>;
