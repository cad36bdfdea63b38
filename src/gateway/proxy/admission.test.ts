import { createAdmission } from './admission';

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
/** A waiting request whose start() runs fn. */
const req = (fn: () => boolean) => ({ start: fn, gaveUp: false });

describe('admission', () => {
  test('it starts requests at once while slots are free, then in order as they are released', async () => {
    const a = createAdmission(2);
    const started: number[] = [];
    for (let i = 1; i <= 4; i++) a.admit(req(() => (started.push(i), true)));
    expect(started).toEqual([1, 2]);
    a.release();
    await nextTurn();
    expect(started).toEqual([1, 2, 3]);
    a.release();
    a.release();
    await nextTurn();
    expect(started).toEqual([1, 2, 3, 4]);
  });

  test('a request given up while waiting is dropped and its slot goes to the next one', async () => {
    const a = createAdmission(1);
    const started: string[] = [];
    a.admit(req(() => (started.push('first'), true)));
    a.admit(req(() => false)); // its caller gave up: nothing sent
    a.admit(req(() => (started.push('third'), true)));
    a.release();
    await nextTurn();
    expect(started).toEqual(['first', 'third']);
  });

  test('its load counts the requests started and those waiting, leaving out the ones whose callers gave up', async () => {
    const a = createAdmission(1);
    const gone = { start: () => false, gaveUp: false };
    a.admit(req(() => true));
    a.admit(gone);
    a.admit(req(() => true));
    expect(a.load()).toEqual({ inUse: 1, queued: 2 });
    gone.gaveUp = true;
    expect(a.load()).toEqual({ inUse: 1, queued: 1 });
    a.release();
    await nextTurn();
    expect(a.load()).toEqual({ inUse: 1, queued: 0 });
    a.release();
    expect(a.load()).toEqual({ inUse: 0, queued: 0 });
  });

  test('the queue is drained after the turn, so requests abandoned in the same tick are skipped', async () => {
    const a = createAdmission(1);
    let abandoned = false;
    const sent: string[] = [];
    a.admit(req(() => (sent.push('running'), true)));
    a.admit(req(() => (abandoned ? false : (sent.push('late'), true))));
    a.release(); // the running request times out ...
    abandoned = true; // ... and so does the waiting one, in the same tick
    await nextTurn();
    expect(sent).toEqual(['running']);
  });

  test('a new request waits behind queued ones even when a slot is free', async () => {
    const a = createAdmission(1);
    const order: number[] = [];
    a.admit(req(() => (order.push(1), true)));
    a.admit(req(() => (order.push(2), true)));
    a.release();
    a.admit(req(() => (order.push(3), true))); // a slot is free, but 2 was first
    await nextTurn();
    expect(order).toEqual([1, 2]);
    a.release();
    await nextTurn();
    expect(order).toEqual([1, 2, 3]);
  });
});
