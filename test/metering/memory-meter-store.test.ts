import { MemoryMeterStore } from '../../src/metering/memory-meter-store';
import { computeWindows } from '../../src/metering/windows';
import { ManualClock } from '../../src/util/clock';

describe('MemoryMeterStore specifics', () => {
  it("keeps a day's record ids for the window_days of the moment they are written (a reload changes it)", async () => {
    const clock = new ManualClock(Date.parse('2026-11-01T03:00:00Z'));
    let days = 2;
    const store = new MemoryMeterStore({ clock, distinctWindowDays: () => days, sweepIntervalMs: 1000 });
    await store.recordIds('acc_w', 'legal', '2026-11-01', ['a']);
    days = 10;
    await store.recordIds('acc_w', 'legal', '2026-11-02', ['b']);
    clock.advance(5 * 86_400_000);
    // Past the first day's 3 days, within the second's 11.
    expect(await store.countDistinct('acc_w', 'legal', ['2026-11-01', '2026-11-02'])).toBe(1);
  });

  it('keeps a lock mark as long as the ids it covers: each exact count on the window renews it', async () => {
    const clock = new ManualClock(Date.parse('2026-11-01T03:00:00Z'));
    const store = new MemoryMeterStore({ clock, distinctWindowDays: 2 });
    const record = (dayKey: string) => store.recordAndCount('acc_m', 'legal', dayKey, ['a'], [dayKey], true);
    await store.markLocked('acc_m', 'legal');
    clock.advance(2.5 * 86_400_000); // within the mark's 3 days
    expect((await record('2026-11-03')).lockedOn).toBe(true);
    clock.advance(2.5 * 86_400_000); // 5 days from the mark, 2.5 from the count that renewed it
    expect((await record('2026-11-06')).lockedOn).toBe(true);
    clock.advance(3 * 86_400_000 + 1); // no count for longer than the ids' 3 days: both gone
    expect(await record('2026-11-09')).toEqual({ distinct: 1, grew: true });
  });

  it('stays bounded: expired windows, days, markers, id sets and lock marks are swept', async () => {
    const clock = new ManualClock(Date.parse('2026-11-14T03:00:00Z'));
    const store = new MemoryMeterStore({ clock, distinctWindowDays: 2, sweepIntervalMs: 1000 });
    const limits = { perSecond: 1e6, perMinute: 1e6, daily: 1e6, monthly: 1e6 };
    for (let i = 0; i < 2000; i++) {
      const windows = computeWindows(clock.now(), 'Asia/Ho_Chi_Minh');
      const input = {
        accountId: `acc_${i % 50}`,
        requestId: `r${i}`,
        cost: 1,
        limits,
        windows,
        creditsAllowed: false,
      };
      const res = await store.reserve({ ...input, fullText: { docId: `d${i}`, cap: 1e6 } });
      await store.refund({
        accountId: input.accountId,
        requestId: input.requestId,
        cost: 1,
        monthlyCalls: 1 - res.creditCalls,
        dayKey: windows.dayKey,
        monthKey: windows.monthKey,
      });
      await store.recordIds(input.accountId, 'legal', windows.dayKey, [`id${i}`]);
      clock.advance(5000);
    }
    const busy = store.size();
    // Unswept it would hold 2000 of each: second windows, markers, full-text sets' members' days...
    // Live now: markers of the last hour (720), a few rate windows, day/month keys of 50 accounts.
    expect(busy).toBeLessThan(1200);
    await store.markLocked('acc_0', 'legal');
    clock.advance(40 * 86_400_000);
    await store.recordIds('acc_x', 'legal', '2026-12-30', ['a']);
    expect(store.size()).toBe(1);
  });
});

describe('MemoryMeterStore snapshots (the embedded default across a restart)', () => {
  const TZ = 'Asia/Ho_Chi_Minh';
  const limits = { perSecond: 10, perMinute: 100, daily: 100, monthly: 1000 };

  it('a restored store holds the same day, month, full-text and id counts and lock marks, without what expired since', async () => {
    const clock = new ManualClock(Date.parse('2026-11-14T03:00:00Z'));
    const before = new MemoryMeterStore({ clock });
    const windows = computeWindows(clock.now(), TZ);
    for (let i = 0; i < 3; i++)
      await before.reserve({
        accountId: 'acc_r',
        requestId: `r${i}`,
        cost: 1,
        limits,
        windows,
        creditsAllowed: false,
        fullText: { docId: `d${i % 2}`, cap: 10 },
      });
    await before.recordIds('acc_r', 'legal', windows.dayKey, ['a', 'b']);
    await before.markLocked('acc_r', 'legal');
    const snap = JSON.parse(JSON.stringify(before.snapshot())) as unknown;

    clock.advance(5_000); // the second window is gone, the minute is not
    const after = new MemoryMeterStore({ clock });
    expect(after.restore(snap)).toBeGreaterThan(0);
    const now = computeWindows(clock.now(), TZ);
    expect(await after.peek('acc_r', windows)).toEqual({
      second: 0,
      minute: 3,
      daily: 3,
      monthly: 3,
      fullText: 2,
    });
    expect(await after.countDistinct('acc_r', 'legal', [now.dayKey])).toBe(2);
    expect(await after.recordAndCount('acc_r', 'legal', now.dayKey, ['a'], [now.dayKey], true)).toEqual({
      distinct: 2,
      grew: false,
      lockedOn: true,
    });
  });

  it('takes nothing from a malformed snapshot', () => {
    const clock = new ManualClock(Date.parse('2026-11-14T03:00:00Z'));
    const store = new MemoryMeterStore({ clock });
    for (const bad of [
      null,
      {},
      { version: 2, counters: [], sets: [] },
      { version: 1, counters: [['k', 'x', 1]], sets: [] },
    ])
      expect(store.restore(bad)).toBe(0);
    expect(store.snapshot()).toEqual({ version: 1, counters: [], sets: [] });
  });
});
