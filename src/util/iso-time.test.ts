import { parseIsoDateTime } from './iso-time';

const HCM = { zone: 'optional', localZone: 'Asia/Ho_Chi_Minh', dateOnly: true } as const;
const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

describe('parseIsoDateTime', () => {
  it('reads a date or a date-time without an offset in the local zone it is given', () => {
    expect(iso(parseIsoDateTime('2099-01-01', HCM))).toBe('2098-12-31T17:00:00.000Z');
    expect(iso(parseIsoDateTime('2099-01-01T07:00', HCM))).toBe('2099-01-01T00:00:00.000Z');
    expect(iso(parseIsoDateTime('2099-01-01 07:00:05.25', HCM))).toBe('2099-01-01T00:00:05.250Z');
    expect(iso(parseIsoDateTime('2099-01-01t07:00:05.123456789', HCM))).toBe('2099-01-01T00:00:05.123Z');
  });

  it('keeps an explicit offset or Z as written', () => {
    expect(iso(parseIsoDateTime('2099-01-01T07:00:00Z', HCM))).toBe('2099-01-01T07:00:00.000Z');
    expect(iso(parseIsoDateTime('2099-01-01 07:00:00+0700', HCM))).toBe('2099-01-01T00:00:00.000Z');
    expect(iso(parseIsoDateTime('2099-01-01T07:00-05:30', HCM))).toBe('2099-01-01T12:30:00.000Z');
    expect(iso(parseIsoDateTime('2099-01-01t07:00:00z', HCM))).toBe('2099-01-01T07:00:00.000Z');
  });

  it('does not depend on the zone of the process', () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'America/New_York';
      expect(iso(parseIsoDateTime('2099-06-01T12:00', HCM))).toBe('2099-06-01T05:00:00.000Z');
      expect(iso(parseIsoDateTime('2099-06-01', HCM))).toBe('2099-05-31T17:00:00.000Z');
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('moves a time a DST change skips forward by the gap, and takes the first of a repeated one', () => {
    const berlin = { zone: 'optional', localZone: 'Europe/Berlin', dateOnly: false } as const;
    expect(iso(parseIsoDateTime('2026-03-29T02:30', berlin))).toBe('2026-03-29T01:30:00.000Z');
    expect(iso(parseIsoDateTime('2026-10-25T02:30', berlin))).toBe('2026-10-25T00:30:00.000Z');
    expect(iso(parseIsoDateTime('2026-10-25T03:30', berlin))).toBe('2026-10-25T02:30:00.000Z');
  });

  it('refuses days and times that do not exist, and a missing offset where one is required', () => {
    for (const s of ['2099-02-30', '0000-01-01T00:00Z', '2099-01-01T24:00', '2099-01-01T07:60', '2099-1-1']) {
      expect(parseIsoDateTime(s, HCM)).toBeUndefined();
    }
    // days that exist, whose offset or zone carries them out of years 0001–9999 in UTC
    for (const s of ['9999-12-31T23:00:00-05:00', '0001-01-01T00:30+01:00']) {
      expect(parseIsoDateTime(s, HCM)).toBeUndefined();
    }
    expect(parseIsoDateTime('0001-01-01', HCM)).toBeUndefined(); // 00:00 at +07:00: year 0 in UTC
    expect(iso(parseIsoDateTime('9999-12-31T23:00:00+05:00', HCM))).toBe('9999-12-31T18:00:00.000Z');
    expect(parseIsoDateTime('2099-01-01', { ...HCM, dateOnly: false })).toBeUndefined();
    expect(parseIsoDateTime('2099-01-01T07:00', { zone: 'required', dateOnly: false })).toBeUndefined();
    expect(parseIsoDateTime('2099-01-01T07:00+07:00', { zone: 'required', dateOnly: false })).toBe(
      Date.parse('2099-01-01T00:00:00Z'),
    );
  });
});
