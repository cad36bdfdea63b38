import { wallClockToEpoch } from './zone-time';

/** Epoch milliseconds (or nothing) as the ISO 8601 text the APIs and SQL parameters use. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** What isCalendarDate takes, as a parameter's 422 says it (gateway and upstream kit alike). */
export const CALENDAR_DATE_RULE = 'phải là ngày hợp lệ dạng YYYY-MM-DD, năm từ 0100 đến 9999';

/**
 * YYYY-MM-DD naming a day that exists (no 2024-02-30), in years 0100–9999: Date.UTC reads years
 * 0–99 as 1900–1999, and PostgreSQL has no year 0, so neither gets through.
 */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

// RFC 3339's date-time (a space or T between date and time; the offset with or without its colon).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,9}))?)?([Zz]|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

/** Where a date-time may leave its offset out, the zone it is then read in (an IANA name). */
export type ZoneRule = { zone: 'required' } | { zone: 'optional'; localZone: string };

/** 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years toISOString writes in four digits. */
const FIRST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 date-time (or, with dateOnly, a bare date: its 00:00) whose day exists and whose
 * hours, minutes, seconds and offset are in range, as epoch milliseconds; undefined when it is not
 * one. Date.parse alone rolls 2030-02-30 over to March and takes year 0000, which PostgreSQL
 * refuses. A time without an offset is read in the rule's local zone, never the process's own.
 */
export function parseIsoDateTime(s: string, opts: ZoneRule & { dateOnly: boolean }): number | undefined {
  const ms = parseUnbounded(s, opts);
  // Its offset can carry a date of year 9999 (or 0001) into year 10000 (or 0) in UTC, which
  // toISOString writes in a form PostgreSQL refuses: refused here, as a bad date, not at the write.
  return ms !== undefined && ms >= FIRST_MS && ms <= LAST_MS ? ms : undefined;
}

function parseUnbounded(s: string, opts: ZoneRule & { dateOnly: boolean }): number | undefined {
  const bareDay = opts.dateOnly && isCalendarDate(s);
  const m = bareDay ? undefined : DATE_TIME.exec(s);
  if (!bareDay && (!m || !isCalendarDate(s.slice(0, 10)))) return undefined;
  if (m?.[8] !== undefined) {
    const ms = Date.parse(s);
    return Number.isNaN(ms) ? undefined : ms;
  }
  if (opts.zone === 'required') return undefined;
  const [y, mo, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  const [h, mi, sec, frac] = [m?.[4] ?? '0', m?.[5] ?? '0', m?.[6] ?? '0', (m?.[7] ?? '').padEnd(3, '0')];
  const wall = { y, m: mo, d, h: Number(h), mi: Number(mi), s: Number(sec), ms: Number(frac.slice(0, 3)) };
  return wallClockToEpoch(wall, opts.localZone);
}
