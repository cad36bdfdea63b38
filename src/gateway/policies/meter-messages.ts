import type { ReserveInput, Usage } from '../../metering/meter-store';

// Which allowance ran out: the 429's `quota` and `reset_in_seconds` are that one's.
const SPENT = {
  daily: 'Đã dùng hết số lượt gọi trong ngày.',
  monthly: 'Đã dùng hết số lượt gọi trong tháng.',
  credits: 'Đã dùng hết số lượt gọi trong tháng và số lượt mua thêm (extra credits).',
} as const;

export type Spent = keyof typeof SPENT;

/** The day spent, said to a plan that can buy credits: the day's limit holds for them too. */
const DAILY_WITH_CREDITS =
  'Đã dùng hết số lượt gọi trong ngày (hạn mức ngày, áp dụng cả khi dùng extra credits).';

// A call that costs more than what is left (relations cost 2, one call left) has not used the
// allowance up: the message says what the call needs and what is left.
const needs = (cost: number): string => `Yêu cầu này cần ${cost} lượt gọi, nhưng chỉ còn`;
const SHORT = {
  daily: (cost: number, left: number) => `${needs(cost)} ${left} lượt trong ngày.`,
  monthly: (cost: number, left: number) => `${needs(cost)} ${left} lượt trong tháng.`,
  credits: (cost: number, left: number, credits: number) =>
    `${needs(cost)} ${left} lượt trong tháng và ${credits} lượt mua thêm (extra credits).`,
} as const;

/**
 * The message for the allowance that refused a call of `input.cost` at `usage`; `credits` is the
 * balance of purchased calls, which pays past the month's quota. Past a lowered quota (a
 * downgrade) nothing is left, and the allowance is used up.
 */
export function spentMessage(spent: Spent, input: ReserveInput, usage: Usage, credits = 0): string {
  const cost = input.cost;
  if (spent === 'daily') {
    const left = input.limits.daily - usage.daily;
    if (left > 0 && left < cost) return SHORT.daily(cost, left);
    return input.creditsAllowed ? DAILY_WITH_CREDITS : SPENT.daily;
  }
  const left = Math.max(0, input.limits.monthly - usage.monthly);
  if (spent === 'monthly') return left > 0 && left < cost ? SHORT.monthly(cost, left) : SPENT.monthly;
  const open = left + Math.max(0, credits);
  return open > 0 && open < cost ? SHORT.credits(cost, left, Math.max(0, credits)) : SPENT.credits;
}
