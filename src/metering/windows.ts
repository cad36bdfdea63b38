import { dateKey, partsAt, startOfLocalDay } from '../util/zone-time';

/**
 * Counting windows for one instant: fixed per-second and per-minute rate windows (epoch based,
 * zone-free) and the calendar day and month in the service time zone (resets at 00:00 and on the 1st).
 */
export interface Windows {
  nowMs: number;
  /** floor(nowMs / 1000): names the per-second window. */
  epochSecond: number;
  /** floor(nowMs / 60000): names the per-minute window. */
  epochMinute: number;
  /** YYYY-MM-DD in the zone. */
  dayKey: string;
  /** YYYY-MM in the zone. */
  monthKey: string;
  /** Whole seconds (>= 1) until the next per-second window; what Retry-After says for rate limits. */
  secondsToSecondEnd: number;
  secondsToMinuteEnd: number;
  /** Whole seconds (>= 1) until the next 00:00 in the zone. */
  secondsToDayEnd: number;
  /** Whole seconds (>= 1) until the 1st of next month, 00:00, in the zone. */
  secondsToMonthEnd: number;
  ttl: WindowTtls;
}

/** Seconds to keep each kind of key; longer than the window so a late refund still finds it. */
export interface WindowTtls {
  second: number;
  minute: number;
  /** Until the day ends, plus a day (a refund just after midnight must still reach yesterday's count). */
  day: number;
  /** Until the month ends, plus four days: at most ~35 days. */
  month: number;
}

const DAY_S = 86_400;

/** The calendar span of the current day and month, reused while nowMs stays inside the day. */
interface ZoneSpan {
  dayStart: number;
  dayEnd: number;
  monthEnd: number;
  dayKey: string;
  monthKey: string;
}

const spans = new Map<string, ZoneSpan>();

function spanAt(nowMs: number, timeZone: string): ZoneSpan {
  const cached = spans.get(timeZone);
  if (cached && nowMs >= cached.dayStart && nowMs < cached.dayEnd) return cached;
  const p = partsAt(nowMs, timeZone);
  const span: ZoneSpan = {
    dayStart: startOfLocalDay(p.y, p.m, p.d, timeZone),
    dayEnd: startOfLocalDay(p.y, p.m, p.d + 1, timeZone),
    monthEnd: startOfLocalDay(p.y, p.m + 1, 1, timeZone),
    dayKey: dateKey(p.y, p.m, p.d),
    monthKey: dateKey(p.y, p.m, 1).slice(0, 7),
  };
  spans.set(timeZone, span);
  return span;
}

/**
 * The `days` calendar days ending with dayKey (YYYY-MM-DD), newest first. Calendar dates follow one
 * another whatever the zone's offsets do, so this is date arithmetic, with no zone lookup.
 */
export function dayKeysBack(dayKey: string, days: number): string[] {
  const [y, m, d] = dayKey.split('-').map(Number) as [number, number, number];
  const keys: string[] = [];
  for (let i = 0; i < days; i++) {
    const date = new Date(Date.UTC(y, m - 1, d - i));
    keys.push(dateKey(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()));
  }
  return keys;
}

const ceilSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** Windows for nowMs in an IANA zone. Cheap on the hot path: zone arithmetic is redone once per local day. */
export function computeWindows(nowMs: number, timeZone: string): Windows {
  const span = spanAt(nowMs, timeZone);
  const epochSecond = Math.floor(nowMs / 1000);
  const epochMinute = Math.floor(nowMs / 60_000);
  const secondsToDayEnd = ceilSeconds(span.dayEnd - nowMs);
  const secondsToMonthEnd = ceilSeconds(span.monthEnd - nowMs);
  return {
    nowMs,
    epochSecond,
    epochMinute,
    dayKey: span.dayKey,
    monthKey: span.monthKey,
    secondsToSecondEnd: ceilSeconds((epochSecond + 1) * 1000 - nowMs),
    secondsToMinuteEnd: ceilSeconds((epochMinute + 1) * 60_000 - nowMs),
    secondsToDayEnd,
    secondsToMonthEnd,
    ttl: { second: 3, minute: 120, day: secondsToDayEnd + DAY_S, month: secondsToMonthEnd + 4 * DAY_S },
  };
}
