import { createRetryKeeper } from './retry-keeper';

class Down extends Error {}
const until = async (cond: () => boolean): Promise<void> => {
  const end = Date.now() + 3000;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('retry keeper', () => {
  it('runs what it keeps again, in order, once the store takes it, and waits longer while it does not', async () => {
    let up = false;
    const runs: string[] = [];
    const at: number[] = [];
    const keeper = createRetryKeeper<string>({
      key: (s) => s,
      run: (s) => {
        runs.push(s);
        at.push(performance.now());
        return up ? Promise.resolve() : Promise.reject(new Down());
      },
      transient: (e) => e instanceof Down,
      firstDelayMs: 40,
      maxDelayMs: 160,
    });
    expect([
      keeper.keep('a', new Down()),
      keeper.keep('b', new Down()),
      keeper.keep('a', new Down()),
    ]).toEqual([true, true, true]);
    expect(keeper.size()).toBe(2);
    await until(() => runs.length >= 3);
    // A failing store is tried with the first kept item only, not the whole queue each time.
    expect(runs.every((s) => s === 'a')).toBe(true);
    // The wait doubles after each failed run (40, then 80, then 160 ms); a timer never fires early.
    expect([at[1]! - at[0]! >= 78, at[2]! - at[1]! >= 158]).toEqual([true, true]);
    up = true;
    await until(() => keeper.size() === 0);
    expect(runs.slice(-2)).toEqual(['a', 'b']);
    await keeper.close();
  });

  it('gives up an item whose run fails for good, and an item past its bound, telling onLost', async () => {
    const lost: string[] = [];
    const keeper = createRetryKeeper<string>({
      key: (s) => s,
      run: (s) => (s === 'bug' ? Promise.reject(new Error('constraint')) : Promise.resolve()),
      transient: (e) => e instanceof Down,
      onLost: (s) => lost.push(s),
      max: 2,
      firstDelayMs: 10,
    });
    expect(keeper.keep('bug', new Down())).toBe(true);
    expect(keeper.keep('ok', new Down())).toBe(true);
    expect(keeper.keep('third', new Down())).toBe(false);
    expect(lost).toEqual(['third']);
    await keeper.retry();
    expect(lost).toEqual(['third', 'bug']);
    expect(keeper.size()).toBe(0);
    await keeper.close();
  });

  it('gives up an item kept longer than its age bound, and at close what the last try could not run', async () => {
    let t = 0;
    const lost: string[] = [];
    const keeper = createRetryKeeper<string>({
      key: (s) => s,
      run: () => Promise.reject(new Down()),
      transient: (e) => e instanceof Down,
      onLost: (s) => lost.push(s),
      maxAgeMs: 1000,
      now: () => t,
      firstDelayMs: 60_000,
    });
    keeper.keep('old', new Down());
    t = 500;
    keeper.keep('young', new Down());
    t = 1200;
    await keeper.retry();
    expect(lost).toEqual(['old']);
    await keeper.close();
    expect([lost, keeper.size()]).toEqual([['old', 'young'], 0]);
    // Nothing is kept once closed.
    expect(keeper.keep('late', new Down())).toBe(false);
    expect(lost).toEqual(['old', 'young', 'late']);
  });
});
