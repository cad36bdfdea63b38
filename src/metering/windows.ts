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

interface ZoneParts {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

/** The calendar span of the current day and month, reused while nowMs stays inside the day. */
interface ZoneSpan {
  dayStart: number;
  dayEnd: number;
  monthEnd: number;
  dayKey: string;
  monthKey: string;
}

// Building an Intl.DateTimeFormat costs tens of microseconds; one per zone for the life of the process.
const formatters = new Map<string, Intl.DateTimeFormat>();
const spans = new Map<string, ZoneSpan>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function partsAt(ms: number, timeZone: string): ZoneParts {
  const out: ZoneParts = { y: 0, m: 0, d: 0, h: 0, mi: 0, s: 0 };
  for (const p of formatter(timeZone).formatToParts(ms)) {
    const v = Number(p.value);
    if (p.type === 'year') out.y = v;
    else if (p.type === 'month') out.m = v;
    else if (p.type === 'day') out.d = v;
    else if (p.type === 'hour') out.h = v;
    else if (p.type === 'minute') out.mi = v;
    else if (p.type === 'second') out.s = v;
  }
  return out;
}

/** Zone offset (ms, local minus UTC) at an instant. */
function offsetAt(ms: number, timeZone: string): number {
  const p = partsAt(ms, timeZone);
  return Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s) - (ms - (((ms % 1000) + 1000) % 1000));
}

function dateKey(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * First instant of local date y-m-d (m may overflow; Date.UTC normalises it). Tries the offsets in
 * force a day before and a day after, and keeps the earliest instant whose local date is that day:
 * this stays right when a DST change happens on that day, or skips or repeats local midnight itself.
 */
function startOfLocalDay(y: number, m: number, d: number, timeZone: string): number {
  const local = Date.UTC(y, m - 1, d);
  const norm = new Date(local);
  const want = dateKey(norm.getUTCFullYear(), norm.getUTCMonth() + 1, norm.getUTCDate());
  let best = Number.POSITIVE_INFINITY;
  for (const off of [offsetAt(local - DAY_S * 1000, timeZone), offsetAt(local + DAY_S * 1000, timeZone)]) {
    const t = local - off;
    const p = partsAt(t, timeZone);
    if (dateKey(p.y, p.m, p.d) === want && t < best) best = t;
  }
  return Number.isFinite(best) ? best : local - offsetAt(local, timeZone);
}

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
