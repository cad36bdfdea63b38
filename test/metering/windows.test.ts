import { computeWindows, dayKeysBack } from '../../src/metering/windows';

const HCM = 'Asia/Ho_Chi_Minh';
const at = (iso: string) => Date.parse(iso);
const fmts = new Map<string, Intl.DateTimeFormat>();
const local = (ms: number, tz: string): string => {
  let f = fmts.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', { timeZone: tz, dateStyle: 'short', timeStyle: 'medium' });
    fmts.set(tz, f);
  }
  return f.format(ms);
};

describe('computeWindows', () => {
  it('rolls the day and the month over at 00:00 on the 1st in Asia/Ho_Chi_Minh', () => {
    const before = computeWindows(at('2026-11-30T16:59:59Z'), HCM);
    expect(before).toMatchObject({
      dayKey: '2026-11-30',
      monthKey: '2026-11',
      secondsToDayEnd: 1,
      secondsToMonthEnd: 1,
    });
    const after = computeWindows(at('2026-11-30T17:00:00Z'), HCM);
    expect(after).toMatchObject({
      dayKey: '2026-12-01',
      monthKey: '2026-12',
      secondsToDayEnd: 86_400,
      secondsToMonthEnd: 31 * 86_400,
    });
  });

  it('rounds partial seconds up and never returns 0', () => {
    const w = computeWindows(at('2026-11-30T16:59:59.999Z'), HCM);
    expect(w.secondsToDayEnd).toBe(1);
    expect(w.secondsToSecondEnd).toBe(1);
    expect(w.secondsToMinuteEnd).toBe(1);
    expect(computeWindows(at('2026-01-15T03:04:00.000Z'), HCM).secondsToMinuteEnd).toBe(60);
  });

  it('names the epoch second and minute', () => {
    const ms = at('2026-01-15T03:04:05.678Z');
    const w = computeWindows(ms, HCM);
    expect(w.epochSecond).toBe(Math.floor(ms / 1000));
    expect(w.epochMinute).toBe(Math.floor(ms / 60_000));
    expect(w.nowMs).toBe(ms);
  });

  it('uses the local date, not the UTC one', () => {
    // 2026-01-31T20:00Z is already 1 February 03:00 in Vietnam.
    expect(computeWindows(at('2026-01-31T20:00:00Z'), HCM)).toMatchObject({
      dayKey: '2026-02-01',
      monthKey: '2026-02',
    });
    expect(computeWindows(at('2026-01-31T20:00:00Z'), 'UTC')).toMatchObject({
      dayKey: '2026-01-31',
      monthKey: '2026-01',
    });
  });

  it('handles the year end', () => {
    const w = computeWindows(at('2026-12-31T16:59:59Z'), HCM);
    expect(w).toMatchObject({ dayKey: '2026-12-31', monthKey: '2026-12', secondsToMonthEnd: 1 });
    expect(computeWindows(at('2026-12-31T17:00:00Z'), HCM).monthKey).toBe('2027-01');
  });

  it('counts a 23-hour and a 25-hour day across DST changes (America/New_York)', () => {
    expect(computeWindows(at('2026-03-08T05:00:00Z'), 'America/New_York')).toMatchObject({
      dayKey: '2026-03-08',
      secondsToDayEnd: 23 * 3600,
    });
    expect(computeWindows(at('2026-11-01T04:00:00Z'), 'America/New_York')).toMatchObject({
      dayKey: '2026-11-01',
      secondsToDayEnd: 25 * 3600,
    });
  });

  it('finds the month end after a DST change within the month (Europe/Berlin)', () => {
    const w = computeWindows(at('2026-03-31T21:59:59Z'), 'Europe/Berlin');
    expect(w).toMatchObject({ dayKey: '2026-03-31', monthKey: '2026-03', secondsToMonthEnd: 1 });
    expect(computeWindows(at('2026-03-31T22:00:00Z'), 'Europe/Berlin').monthKey).toBe('2026-04');
  });

  it('starts a day whose midnight does not exist at its first instant (America/Santiago)', () => {
    const ms = at('2026-09-05T12:00:00Z');
    const w = computeWindows(ms, 'America/Santiago');
    const next = ms + w.secondsToDayEnd * 1000;
    expect(local(next, 'America/Santiago')).toBe('2026-09-06 01:00:00');
    expect(local(next - 1000, 'America/Santiago')).toBe('2026-09-05 23:59:59');
  });

  it('stays right when the clock moves backwards and forwards between zones', () => {
    const days = [
      '2026-05-10T10:00:00Z',
      '2026-05-09T10:00:00Z',
      '2026-05-11T18:00:00Z',
      '2026-05-09T16:59:59Z',
    ];
    const seen = days.map((d) => computeWindows(at(d), HCM).dayKey);
    expect(seen).toEqual(['2026-05-10', '2026-05-09', '2026-05-12', '2026-05-09']);
    expect(computeWindows(at('2026-05-10T10:00:00Z'), 'UTC').dayKey).toBe('2026-05-10');
  });

  it('property: the next day starts exactly secondsToDayEnd later in many zones', () => {
    const zones = [
      HCM,
      'UTC',
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
      'America/Santiago',
    ];
    for (const tz of zones) {
      for (
        let ms = at('2026-01-01T00:00:00Z');
        ms < at('2027-01-01T00:00:00Z');
        ms += 7 * 3600_000 + 13_000
      ) {
        const w = computeWindows(ms, tz);
        const next = ms + w.secondsToDayEnd * 1000;
        expect(local(next - 1000, tz).slice(0, 10)).toBe(w.dayKey);
        expect(local(next, tz).slice(0, 10)).not.toBe(w.dayKey);
        expect(local(ms + w.secondsToMonthEnd * 1000, tz).slice(5, 10)).toMatch(/^\d\d-01$/);
      }
    }
  });

  it('gives keys TTLs that outlive their windows: day ~2 days, month ~35 days', () => {
    const w = computeWindows(at('2026-11-30T17:00:00Z'), HCM);
    expect(w.ttl.second).toBeGreaterThan(1);
    expect(w.ttl.minute).toBeGreaterThan(60);
    expect(w.ttl.day).toBe(2 * 86_400);
    expect(w.ttl.month).toBe(35 * 86_400);
  });
});

describe('the calendar days back from a day key', () => {
  it('crosses months, years and a leap day, newest first', () => {
    expect(dayKeysBack('2028-03-02', 4)).toEqual(['2028-03-02', '2028-03-01', '2028-02-29', '2028-02-28']);
    expect(dayKeysBack('2027-01-01', 2)).toEqual(['2027-01-01', '2026-12-31']);
    expect(dayKeysBack('2026-11-30', 0)).toEqual([]);
  });

  it('are the local dates of the last 30 days, in a zone with summer time too', () => {
    for (const zone of ['Asia/Ho_Chi_Minh', 'Europe/Berlin', 'America/New_York']) {
      for (const iso of ['2026-03-29T22:30:00Z', '2026-11-02T04:30:00Z', '2026-11-30T16:59:59Z']) {
        const now = Date.parse(iso);
        // Hour by hour, no local date is skipped: a summer-time change moves the clock by an hour.
        const seen = new Set<string>();
        for (let t = now; seen.size < 31; t -= 3_600_000) seen.add(computeWindows(t, zone).dayKey);
        expect(dayKeysBack(computeWindows(now, zone).dayKey, 30)).toEqual([...seen].slice(0, 30));
      }
    }
  });
});
