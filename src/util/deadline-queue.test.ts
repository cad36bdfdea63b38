import { createDeadlineQueue, withDeadline } from './deadline-queue';

beforeEach(() => jest.useFakeTimers({ now: 1_000 }));
afterEach(() => jest.useRealTimers());

const queue = (timeoutMs: number) => createDeadlineQueue(timeoutMs, () => Date.now());
/** A target whose expiry runs fn. */
const on = (fn: () => unknown) => ({ expire: () => void fn() });

describe('deadline queue', () => {
  test('a deadline expires once, timeoutMs after it started, and not before', () => {
    const q = queue(100);
    const expired = jest.fn();
    const d = q.start(on(expired));
    expect(d.at).toBe(1_100);
    jest.advanceTimersByTime(99);
    expect(expired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1_000);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(q.size()).toBe(0);
  });

  test('a cancelled deadline never expires, and cancelling twice counts once', () => {
    const q = queue(100);
    const expired = jest.fn();
    const d = q.start(on(expired));
    d.cancel();
    d.cancel();
    expect(q.size()).toBe(0);
    jest.advanceTimersByTime(500);
    expect(expired).not.toHaveBeenCalled();
  });

  test('deadlines expire in the order they started, each at its own time', () => {
    const q = queue(100);
    const order: string[] = [];
    q.start(on(() => order.push('a')));
    jest.advanceTimersByTime(30);
    q.start(on(() => order.push('b')));
    jest.advanceTimersByTime(30);
    q.start(on(() => order.push('c')));
    jest.advanceTimersByTime(40); // t = 100: a only
    expect(order).toEqual(['a']);
    jest.advanceTimersByTime(30); // t = 130: b
    expect(order).toEqual(['a', 'b']);
    jest.advanceTimersByTime(30);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  test('cancelling the oldest lets the next one expire on time, and cancelling one behind a live one skips it', () => {
    const q = queue(100);
    const fired: string[] = [];
    const a = q.start(on(() => fired.push('a')));
    jest.advanceTimersByTime(10);
    q.start(on(() => fired.push('b')));
    jest.advanceTimersByTime(10);
    const c = q.start(on(() => fired.push('c')));
    jest.advanceTimersByTime(10);
    q.start(on(() => fired.push('d')));
    a.cancel();
    c.cancel();
    expect(q.size()).toBe(2);
    jest.advanceTimersByTime(200);
    expect(fired).toEqual(['b', 'd']);
    expect(q.size()).toBe(0);
  });

  test('a deadline started by an expiry callback is kept and expires in its turn', () => {
    const q = queue(50);
    const fired: number[] = [];
    q.start(
      on(() => {
        fired.push(Date.now());
        q.start(on(() => fired.push(Date.now())));
      }),
    );
    jest.advanceTimersByTime(200);
    expect(fired).toEqual([1_050, 1_100]);
  });

  test('thousands ended in order leave nothing behind, and the next one still expires', () => {
    const q = queue(100);
    const ds = Array.from({ length: 3_000 }, () => q.start(on(() => undefined)));
    for (const d of ds) d.cancel();
    expect(q.size()).toBe(0);
    const expired = jest.fn();
    q.start(on(expired));
    jest.advanceTimersByTime(100);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  test('after everything ended, no timer is left waiting', () => {
    const q = queue(100);
    q.start(on(() => undefined)).cancel();
    jest.advanceTimersByTime(100); // the timer armed for it fires and finds nothing
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('deadline queue: bad input', () => {
  test('a timeout that is not a positive finite number is refused', () => {
    for (const ms of [0, -1, Number.NaN, Infinity]) expect(() => createDeadlineQueue(ms)).toThrow(/positive/);
  });
});

describe('withDeadline', () => {
  test('it passes on a result or an error that comes in time, and leaves no deadline behind', async () => {
    const q = queue(100);
    await expect(withDeadline(q, Promise.resolve(7), 'late')).resolves.toBe(7);
    await expect(withDeadline(q, Promise.reject(new Error('boom')), 'late')).rejects.toThrow('boom');
    expect(q.size()).toBe(0);
  });

  test('it fails with the message at the deadline when the work has not settled', async () => {
    const q = queue(100);
    const never = new Promise<number>(() => undefined);
    const timed = withDeadline(q, never, 'redis timed out');
    jest.advanceTimersByTime(100);
    await expect(timed).rejects.toThrow('redis timed out');
    expect(q.size()).toBe(0);
  });
});
