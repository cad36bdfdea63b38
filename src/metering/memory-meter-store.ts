import type { Clock } from '../util/clock';
import { systemClock } from '../util/clock';
import type { MeterStore, RefundInput, ReserveInput, ReserveResult, Usage } from './meter-store';
import {
  REFUND_MARKER_TTL_S,
  distinctTtlSeconds,
  quotaShare,
  rejection,
  windowDaysOption,
} from './meter-store';
import type { Windows } from './windows';

export interface MemoryMeterStoreOptions {
  clock?: Clock;
  /**
   * Bulk-watch detection window; day sets are kept one day longer. A function is read at each
   * write, so a reload's window_days applies to the days recorded from then on.
   */
  distinctWindowDays?: number | (() => number);
  /** How often (clock ms) expired entries are swept. */
  sweepIntervalMs?: number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * Single-process MeterStore (embedded mode, and the per-replica fallback when Redis is down).
 * Same semantics as the Redis store; every method runs synchronously to completion, which makes
 * each one atomic without locks. Memory stays bounded: every entry carries the same TTL Redis
 * would give it and a periodic sweep drops expired ones.
 */
export class MemoryMeterStore implements MeterStore {
  /** Sets of ids: exact. */
  readonly distinctError = 0;
  private readonly clock: Clock;
  private readonly windowDays: () => number;
  private readonly sweepIntervalMs: number;
  private readonly counters = new Map<string, Entry<number>>();
  private readonly sets = new Map<string, Entry<Set<string>>>();
  private readonly holders = new Map<string, Entry<Map<string, number>>>();
  private lastSweep: number;

  constructor(opts: MemoryMeterStoreOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.windowDays = windowDaysOption(opts.distinctWindowDays);
    this.sweepIntervalMs = opts.sweepIntervalMs ?? 10_000;
    this.lastSweep = this.clock.now();
  }

  /** Live entries, for tests of boundedness. */
  size(): number {
    return this.counters.size + this.sets.size + this.holders.size;
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    this.maybeSweep();
    const { accountId: a, windows: w, limits, cost } = input;
    const k = keysFor(a, w);
    const ftSet = this.getSet(k.fullText);
    const usage: Usage = {
      second: this.get(k.second),
      minute: this.get(k.minute),
      daily: this.get(k.day),
      monthly: this.get(k.month),
      fullText: ftSet?.size ?? 0,
    };
    const reject = (
      reason: NonNullable<ReserveResult['reason']>,
      scope: NonNullable<ReserveResult['scope']>,
      retryAfter: number,
    ): Promise<ReserveResult> => Promise.resolve(rejection(reason, scope, retryAfter, usage));

    const windows = limits.perSecond > 0;
    if (windows && usage.second + 1 > limits.perSecond)
      return reject('rate_limited', 'second', w.secondsToSecondEnd);
    if (windows && usage.minute + 1 > limits.perMinute)
      return reject('rate_limited', 'minute', w.secondsToMinuteEnd);
    const doc = input.fullText;
    const newDoc = doc !== undefined && !(ftSet?.has(doc.docId) ?? false);
    const blocked = newDoc && usage.fullText >= doc.cap;
    const addDoc = newDoc && !blocked;
    // A call that costs nothing is never refused for quota (an account past a lowered quota included).
    if (cost > 0 && usage.daily + cost > limits.daily)
      return reject('quota_exceeded', 'daily', w.secondsToDayEnd);
    let source: ReserveResult['source'] = 'quota';
    let fromQuota = cost;
    if (cost > 0 && usage.monthly + cost > limits.monthly) {
      if (!input.creditsAllowed) return reject('quota_exceeded', 'monthly', w.secondsToMonthEnd);
      source = 'credits';
      fromQuota = quotaShare(cost, limits.monthly, usage.monthly);
    }

    if (windows) {
      usage.second = this.incr(k.second, 1, w.ttl.second);
      usage.minute = this.incr(k.minute, 1, w.ttl.minute);
    }
    let held = false;
    if (!blocked) {
      if (cost > 0) usage.daily = this.incr(k.day, cost, w.ttl.day);
      if (fromQuota > 0) usage.monthly = this.incr(k.month, fromQuota, w.ttl.month);
      // Holders: as the Lua reserve keeps them (meter-lua.ts, "Full-text holders").
      if (doc && addDoc) {
        usage.fullText = this.addToSet(k.fullText, [doc.docId], w.ttl.day * 1000);
        this.holdersOf(k.fullText, w.ttl.day * 1000).set(doc.docId, 2);
      } else if (doc) {
        const holders = this.holdersOf(k.fullText);
        const v = holders?.get(doc.docId);
        held = v !== undefined;
        if (held) holders!.set(doc.docId, v! + 2);
      }
    }
    return Promise.resolve({
      ok: true,
      source,
      creditCalls: cost - fromQuota,
      fullTextAdded: addDoc,
      ...(blocked ? { fullTextBlocked: true } : {}),
      ...(held ? { fullTextHeld: true as const } : {}),
      usage,
    });
  }

  refund(input: RefundInput): Promise<{ applied: boolean }> {
    this.maybeSweep();
    const prefix = acc(input.accountId);
    const marker = `${prefix}rf\0${input.requestId}`;
    if (this.live(this.counters.get(marker))) return Promise.resolve({ applied: false });
    this.counters.set(marker, { value: 1, expiresAt: this.clock.now() + REFUND_MARKER_TTL_S * 1000 });
    this.decrClamped(`${prefix}d\0${input.dayKey}`, input.cost);
    if (input.monthlyCalls > 0) this.decrClamped(`${prefix}mo\0${input.monthKey}`, input.monthlyCalls);
    if (input.fullTextDocId !== undefined) this.giveDocBack(input, `${prefix}ft\0${input.dayKey}`);
    return Promise.resolve({ applied: true });
  }

  /** The document leaves the day's set with the last call that opened it (as the Lua refund). */
  private giveDocBack(input: RefundInput, setKey: string): void {
    const doc = input.fullTextDocId!;
    const holders = this.holdersOf(setKey);
    const was = holders?.get(doc);
    if (was === undefined) {
      if (!input.fullTextHeld) this.getSet(setKey)?.delete(doc);
      return;
    }
    const v = was - 2 + (input.fullTextHeld ? 0 : 1);
    if (v === 1) {
      this.getSet(setKey)?.delete(doc);
      holders!.delete(doc);
    } else if (v >= 0) holders!.set(doc, v);
  }

  /**
   * The day's full-text holders (meter-lua.ts, "Full-text holders"), kept beside its set and for
   * as long; made with `ttlMs` when given. Not in snapshots: they matter only to calls in flight.
   */
  private holdersOf(setKey: string, ttlMs: number): Map<string, number>;
  private holdersOf(setKey: string): Map<string, number> | undefined;
  private holdersOf(setKey: string, ttlMs?: number): Map<string, number> | undefined {
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

  peek(accountId: string, windows: Windows): Promise<Usage> {
    const k = keysFor(accountId, windows);
    return Promise.resolve({
      second: this.get(k.second),
      minute: this.get(k.minute),
      daily: this.get(k.day),
      monthly: this.get(k.month),
      fullText: this.getSet(k.fullText)?.size ?? 0,
    });
  }

  recordIds(accountId: string, dataset: string, dayKey: string, ids: readonly string[]): Promise<void> {
    this.maybeSweep();
    this.addToSet(idsKey(accountId, dataset, dayKey), ids, distinctTtlSeconds(this.windowDays()) * 1000);
    return Promise.resolve();
  }

  countDistinct(accountId: string, dataset: string, dayKeys: readonly string[]): Promise<number> {
    const sets = dayKeys.map((d) => this.getSet(idsKey(accountId, dataset, d)));
    const present = sets.filter((s): s is Set<string> => s !== undefined);
    if (present.length === 1) return Promise.resolve(present[0]!.size);
    const union = new Set<string>();
    for (const s of present) for (const id of s) union.add(id);
    return Promise.resolve(union.size);
  }

  forgetIds(accountId: string, datasets: readonly string[], dayKeys: readonly string[]): Promise<void> {
    for (const ds of datasets) for (const d of dayKeys) this.sets.delete(idsKey(accountId, ds, d));
    return Promise.resolve();
  }

  async recordAndCount(
    accountId: string,
    dataset: string,
    dayKey: string,
    ids: readonly string[],
    dayKeys: readonly string[],
  ): Promise<number> {
    await this.recordIds(accountId, dataset, dayKey, ids);
    return this.countDistinct(accountId, dataset, dayKeys);
  }

  /** Every live entry with its expiry (epoch ms), to be kept across a restart of a single process. */
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

  close(): Promise<void> {
    this.counters.clear();
    this.sets.clear();
    this.holders.clear();
    return Promise.resolve();
  }

  private live<V>(e: Entry<V> | undefined): e is Entry<V> {
    return e !== undefined && e.expiresAt > this.clock.now();
  }

  private get(key: string): number {
    const e = this.counters.get(key);
    return this.live(e) ? e.value : 0;
  }

  private getSet(key: string): Set<string> | undefined {
    const e = this.sets.get(key);
    return this.live(e) ? e.value : undefined;
  }

  /** Like Redis INCRBY + EXPIRE on creation: the TTL is set when the window's key is born. */
  private incr(key: string, by: number, ttlS: number): number {
    const e = this.counters.get(key);
    if (this.live(e)) return (e.value += by);
    this.counters.set(key, { value: by, expiresAt: this.clock.now() + ttlS * 1000 });
    return by;
  }

  /** A refund never recreates an expired window nor goes below zero. */
  private decrClamped(key: string, by: number): void {
    const e = this.counters.get(key);
    if (this.live(e)) e.value = Math.max(0, e.value - by);
  }

  private addToSet(key: string, members: readonly string[], ttlMs: number): number {
    let e = this.sets.get(key);
    if (!this.live(e)) {
      e = { value: new Set<string>(), expiresAt: 0 };
      this.sets.set(key, e);
    }
    e.expiresAt = this.clock.now() + ttlMs;
    for (const m of members) e.value.add(m);
    return e.value.size;
  }

  private maybeSweep(): void {
    const now = this.clock.now();
    if (now - this.lastSweep < this.sweepIntervalMs && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [k, e] of this.counters) if (e.expiresAt <= now) this.counters.delete(k);
    for (const [k, e] of this.sets) if (e.expiresAt <= now) this.sets.delete(k);
    for (const [k, e] of this.holders) if (e.expiresAt <= now) this.holders.delete(k);
  }
}

/** A MemoryMeterStore's live entries: [key, value, expiresAt] and [key, members, expiresAt]. */
export interface MeterSnapshot {
  version: 1;
  counters: [string, number, number][];
  sets: [string, string[], number][];
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

// NUL separators: account ids, datasets and doc ids can never forge another entry's key.
const acc = (accountId: string): string => `${accountId}\0`;
const idsKey = (a: string, dataset: string, dayKey: string): string => `${acc(a)}ids\0${dataset}\0${dayKey}`;

function keysFor(accountId: string, w: Windows) {
  const p = acc(accountId);
  return {
    second: `${p}s\0${w.epochSecond}`,
    minute: `${p}m\0${w.epochMinute}`,
    day: `${p}d\0${w.dayKey}`,
    month: `${p}mo\0${w.monthKey}`,
    fullText: `${p}ft\0${w.dayKey}`,
  };
}
