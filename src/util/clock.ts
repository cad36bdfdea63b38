/** Time source, injected everywhere so tests can cross day and month boundaries. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Milliseconds from an arbitrary start that never step back or jump with the wall clock (NTP, a VM resumed). */
export const monotonicClock: Clock = { now: () => performance.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
