/** Wall-clock arithmetic in an IANA time zone, with Intl only (no DST table of our own). */

export interface ZoneParts {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

const DAY_MS = 86_400_000;

// Building an Intl.DateTimeFormat costs tens of microseconds; one per zone for the life of the process.
const formatters = new Map<string, Intl.DateTimeFormat>();

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

/** The local calendar date and time of an instant (whole seconds). */
export function partsAt(ms: number, timeZone: string): ZoneParts {
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

export function dateKey(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * First instant of local date y-m-d (m may overflow; Date.UTC normalises it). Tries the offsets in
 * force a day before and a day after, and keeps the earliest instant whose local date is that day:
 * this stays right when a DST change happens on that day, or skips or repeats local midnight itself.
 */
export function startOfLocalDay(y: number, m: number, d: number, timeZone: string): number {
  const local = Date.UTC(y, m - 1, d);
  const norm = new Date(local);
  const want = dateKey(norm.getUTCFullYear(), norm.getUTCMonth() + 1, norm.getUTCDate());
  let best = Number.POSITIVE_INFINITY;
  for (const off of [offsetAt(local - DAY_MS, timeZone), offsetAt(local + DAY_MS, timeZone)]) {
    const t = local - off;
    const p = partsAt(t, timeZone);
    if (dateKey(p.y, p.m, p.d) === want && t < best) best = t;
  }
  return Number.isFinite(best) ? best : local - offsetAt(local, timeZone);
}

/**
 * The instant a local wall-clock time names in the zone (fields as in Date.UTC, month 1-based).
 * A time the zone repeats (clocks set back) is its first occurrence; a time it skips (clocks set
 * forward) is moved forward by the gap, as Temporal's "compatible" disambiguation does.
 */
export function wallClockToEpoch(p: ZoneParts & { ms: number }, timeZone: string): number {
  const local = Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s, p.ms);
  const before = offsetAt(local - DAY_MS, timeZone);
  let best = Number.POSITIVE_INFINITY;
  for (const off of [before, offsetAt(local + DAY_MS, timeZone)]) {
    const t = local - off;
    const q = partsAt(t, timeZone);
    const same = q.y === p.y && q.m === p.m && q.d === p.d && q.h === p.h && q.mi === p.mi && q.s === p.s;
    if (same && t < best) best = t;
  }
  return Number.isFinite(best) ? best : local - before;
}
