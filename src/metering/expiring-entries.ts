import type { Clock } from '../util/clock';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/** A MemoryMeterStore's live entries: [key, value, expiresAt] and [key, members, expiresAt]. */
export interface MeterSnapshot {
  version: 1;
  counters: [string, number, number][];
  sets: [string, string[], number][];
}

/**
 * The keyed values the in-process meter counts in, each with the TTL Redis would give its key:
 * counters (INCRBY, EXPIRE when the key is born), sets of members, and the full-text holders kept
 * beside a day's set. An expired entry reads as absent at once; a sweep every `sweepIntervalMs`
 * (clock ms) drops them, so memory stays bounded by what is live.
 */
export class ExpiringEntries {
  private readonly clock: Clock;
  private readonly sweepIntervalMs: number;
  private readonly counters = new Map<string, Entry<number>>();
  private readonly sets = new Map<string, Entry<Set<string>>>();
  private readonly holders = new Map<string, Entry<Map<string, number>>>();
  private lastSweep: number;

  constructor(clock: Clock, sweepIntervalMs: number) {
    this.clock = clock;
    this.sweepIntervalMs = sweepIntervalMs;
    this.lastSweep = clock.now();
  }

  /** Entries held, live or not yet swept. */
  size(): number {
    return this.counters.size + this.sets.size + this.holders.size;
  }

  count(key: string): number {
    const e = this.counters.get(key);
    return this.live(e) ? e.value : 0;
  }

  members(key: string): Set<string> | undefined {
    const e = this.sets.get(key);
    return this.live(e) ? e.value : undefined;
  }

  /** Like Redis INCRBY + EXPIRE on creation: the TTL is set when the window's key is born. */
  incr(key: string, by: number, ttlS: number): number {
    const e = this.counters.get(key);
    if (this.live(e)) return (e.value += by);
    this.counters.set(key, { value: by, expiresAt: this.clock.now() + ttlS * 1000 });
    return by;
  }

  /** A refund never recreates an expired window nor goes below zero. */
  decrClamped(key: string, by: number): void {
    const e = this.counters.get(key);
    if (this.live(e)) e.value = Math.max(0, e.value - by);
  }

  /** Sets a marker for `ttlMs` (SET NX PX); false when one is already live. */
  markOnce(key: string, ttlMs: number): boolean {
    if (this.live(this.counters.get(key))) return false;
    this.counters.set(key, { value: 1, expiresAt: this.clock.now() + ttlMs });
    return true;
  }

  /** Adds members and gives the set `ttlMs` from now; returns its size. */
  addToSet(key: string, members: readonly string[], ttlMs: number): number {
    let e = this.sets.get(key);
    if (!this.live(e)) {
      e = { value: new Set<string>(), expiresAt: 0 };
      this.sets.set(key, e);
    }
    e.expiresAt = this.clock.now() + ttlMs;
    for (const m of members) e.value.add(m);
    return e.value.size;
  }

  deleteSet(key: string): void {
    this.sets.delete(key);
  }

  /**
   * The day's full-text holders (meter-lua.ts, "Full-text holders"), kept beside its set and for
   * as long; made, or given `ttlMs` from now, when `ttlMs` is given. Not in snapshots: they matter
   * only to calls in flight.
   */
  holdersOf(setKey: string, ttlMs: number): Map<string, number>;
  holdersOf(setKey: string): Map<string, number> | undefined;
  holdersOf(setKey: string, ttlMs?: number): Map<string, number> | undefined {
    let e = this.holders.get(setKey);
    if (this.live(e)) {
      if (ttlMs !== undefined) e.expiresAt = this.clock.now() + ttlMs;
      return e.value;
    }
    if (ttlMs === undefined) return undefined;
    e = { value: new Map(), expiresAt: this.clock.now() + ttlMs };
    this.holders.set(setKey, e);
    return e.value;
  }

  /** Drops expired entries when the interval has passed (or the clock went back). */
  sweepIfDue(): void {
    const now = this.clock.now();
    if (now - this.lastSweep < this.sweepIntervalMs && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [k, e] of this.counters) if (e.expiresAt <= now) this.counters.delete(k);
    for (const [k, e] of this.sets) if (e.expiresAt <= now) this.sets.delete(k);
    for (const [k, e] of this.holders) if (e.expiresAt <= now) this.holders.delete(k);
  }

  /** Every live counter and set with its expiry (epoch ms). */
  snapshot(): MeterSnapshot {
    const now = this.clock.now();
    const counters: MeterSnapshot['counters'] = [];
    const sets: MeterSnapshot['sets'] = [];
    for (const [k, e] of this.counters) if (e.expiresAt > now) counters.push([k, e.value, e.expiresAt]);
    for (const [k, e] of this.sets) if (e.expiresAt > now) sets.push([k, [...e.value], e.expiresAt]);
    return { version: 1, counters, sets };
  }

  /** Takes back a snapshot's entries that have not expired since; a malformed one changes nothing. */
  restore(snap: unknown): number {
    if (!isSnapshot(snap)) return 0;
    const now = this.clock.now();
    let restored = 0;
    for (const [k, value, expiresAt] of snap.counters) {
      if (expiresAt <= now) continue;
      this.counters.set(k, { value, expiresAt });
      restored++;
    }
    for (const [k, members, expiresAt] of snap.sets) {
      if (expiresAt <= now) continue;
      this.sets.set(k, { value: new Set(members), expiresAt });
      restored++;
    }
    return restored;
  }

  clear(): void {
    this.counters.clear();
    this.sets.clear();
    this.holders.clear();
  }

  private live<V>(e: Entry<V> | undefined): e is Entry<V> {
    return e !== undefined && e.expiresAt > this.clock.now();
  }
}

const isTriple = (t: unknown, value: (v: unknown) => boolean): boolean =>
  Array.isArray(t) && t.length === 3 && typeof t[0] === 'string' && value(t[1]) && Number.isFinite(t[2]);

function isSnapshot(s: unknown): s is MeterSnapshot {
  if (typeof s !== 'object' || s === null) return false;
  const { version, counters, sets } = s as Record<string, unknown>;
  return (
    version === 1 &&
    Array.isArray(counters) &&
    Array.isArray(sets) &&
    counters.every((t) => isTriple(t, (v) => Number.isFinite(v))) &&
    sets.every((t) => isTriple(t, (v) => Array.isArray(v) && v.every((m) => typeof m === 'string')))
  );
}
