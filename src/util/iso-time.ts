/** Epoch milliseconds (or nothing) as the ISO 8601 text the APIs and SQL parameters use. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

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
  /^(\d{4}-\d{2}-\d{2})[Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?([Zz]|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

/**
 * An ISO 8601 date-time (or, with dateOnly, a bare date, read as 00:00 UTC) whose day exists and
 * whose hours, minutes, seconds and offset are in range, as epoch milliseconds; undefined when it
 * is not one. Date.parse alone rolls 2030-02-30 over to March and takes year 0000, which
 * PostgreSQL refuses. Without a zone the time is read in the process's zone, as Date.parse does.
 */
export function parseIsoDateTime(
  s: string,
  opts: { zone: 'required' | 'optional'; dateOnly: boolean },
): number | undefined {
  if (opts.dateOnly && isCalendarDate(s)) return Date.parse(s);
  const m = DATE_TIME.exec(s);
  if (!m || !isCalendarDate(m[1]!)) return undefined;
  if (opts.zone === 'required' && m[5] === undefined) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}
