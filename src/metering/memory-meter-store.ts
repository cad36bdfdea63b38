import type { Clock } from '../util/clock';
import { systemClock } from '../util/clock';
import type {
  DistinctCount,
  MeterStore,
  RefundInput,
  ReserveInput,
  ReserveResult,
  Usage,
} from './meter-store';
import {
  REFUND_MARKER_TTL_S,
  distinctTtlSeconds,
  quotaShare,
  rejection,
  windowDaysOption,
} from './meter-store';
import { ExpiringEntries } from './expiring-entries';
import type { MeterSnapshot } from './expiring-entries';
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

/**
 * Single-process MeterStore (embedded mode, and the per-replica fallback when Redis is down).
 * Same semantics as the Redis store; every method runs synchronously to completion, which makes
 * each one atomic without locks. Memory stays bounded: every entry carries the same TTL Redis
 * would give it and a periodic sweep drops expired ones.
 */
export class MemoryMeterStore implements MeterStore {
  /** Sets of ids: exact. */
  readonly distinctError = 0;
  private readonly windowDays: () => number;
  private readonly entries: ExpiringEntries;

  constructor(opts: MemoryMeterStoreOptions = {}) {
    this.windowDays = windowDaysOption(opts.distinctWindowDays);
    this.entries = new ExpiringEntries(opts.clock ?? systemClock, opts.sweepIntervalMs ?? 10_000);
  }

  /** How long a day's ids, and a lock mark over them, are kept from their last write. */
  private idsTtlMs(): number {
    return distinctTtlSeconds(this.windowDays()) * 1000;
  }

  /** Entries held, for tests of boundedness. */
  size(): number {
    return this.entries.size();
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    this.entries.sweepIfDue();
    const { accountId: a, windows: w, limits, cost } = input;
    const k = keysFor(a, w);
    const ftSet = this.entries.members(k.fullText);
    const usage = this.usage(k, ftSet);
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
      usage.second = this.entries.incr(k.second, 1, w.ttl.second);
      usage.minute = this.entries.incr(k.minute, 1, w.ttl.minute);
    }
    let held = false;
    if (!blocked) {
      if (cost > 0) usage.daily = this.entries.incr(k.day, cost, w.ttl.day);
      if (fromQuota > 0) usage.monthly = this.entries.incr(k.month, fromQuota, w.ttl.month);
      // Holders: as the Lua reserve keeps them (meter-lua.ts, "Full-text holders").
      if (doc && addDoc) {
        usage.fullText = this.entries.addToSet(k.fullText, [doc.docId], w.ttl.day * 1000);
        this.entries.holdersOf(k.fullText, w.ttl.day * 1000).set(doc.docId, 2);
      } else if (doc) {
        const holders = this.entries.holdersOf(k.fullText);
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
    this.entries.sweepIfDue();
    const prefix = acc(input.accountId);
    const marker = `${prefix}rf\0${input.requestId}`;
    if (!this.entries.markOnce(marker, REFUND_MARKER_TTL_S * 1000))
      return Promise.resolve({ applied: false });
    this.entries.decrClamped(`${prefix}d\0${input.dayKey}`, input.cost);
    if (input.monthlyCalls > 0)
      this.entries.decrClamped(`${prefix}mo\0${input.monthKey}`, input.monthlyCalls);
    if (input.fullTextDocId !== undefined) this.giveDocBack(input, `${prefix}ft\0${input.dayKey}`);
    return Promise.resolve({ applied: true });
  }

  /** The document leaves the day's set with the last call that opened it (as the Lua refund). */
  private giveDocBack(input: RefundInput, setKey: string): void {
    const doc = input.fullTextDocId!;
    const holders = this.entries.holdersOf(setKey);
    const was = holders?.get(doc);
    if (was === undefined) {
      if (!input.fullTextHeld) this.entries.members(setKey)?.delete(doc);
      return;
    }
    const v = was - 2 + (input.fullTextHeld ? 0 : 1);
    if (v === 1) {
      this.entries.members(setKey)?.delete(doc);
      holders!.delete(doc);
    } else if (v >= 0) holders!.set(doc, v);
  }

  peek(accountId: string, windows: Windows): Promise<Usage> {
    const k = keysFor(accountId, windows);
    return Promise.resolve(this.usage(k, this.entries.members(k.fullText)));
  }

  /** The windows' counts as they stand, the day's full-text set given (reserve reads it too). */
  private usage(k: WindowKeys, ftSet: Set<string> | undefined): Usage {
    return {
      second: this.entries.count(k.second),
      minute: this.entries.count(k.minute),
      daily: this.entries.count(k.day),
      monthly: this.entries.count(k.month),
      fullText: ftSet?.size ?? 0,
    };
  }

  recordIds(accountId: string, dataset: string, dayKey: string, ids: readonly string[]): Promise<void> {
    this.entries.sweepIfDue();
    this.entries.addToSet(idsKey(accountId, dataset, dayKey), ids, this.idsTtlMs());
    return Promise.resolve();
  }

  countDistinct(accountId: string, dataset: string, dayKeys: readonly string[]): Promise<number> {
    const sets = dayKeys.map((d) => this.entries.members(idsKey(accountId, dataset, d)));
    const present = sets.filter((s): s is Set<string> => s !== undefined);
    if (present.length === 1) return Promise.resolve(present[0]!.size);
    const union = new Set<string>();
    for (const s of present) for (const id of s) union.add(id);
    return Promise.resolve(union.size);
  }

  /** The mark is an empty set: it lives, is kept in snapshots and is forgotten as the day sets are. */
  markLocked(accountId: string, dataset: string): Promise<void> {
    this.entries.addToSet(lockMarkKey(accountId, dataset), [], this.idsTtlMs());
    return Promise.resolve();
  }

  forgetIds(accountId: string, datasets: readonly string[], dayKeys: readonly string[]): Promise<void> {
    for (const ds of datasets) {
      this.entries.deleteSet(lockMarkKey(accountId, ds));
      for (const d of dayKeys) this.entries.deleteSet(idsKey(accountId, ds, d));
    }
    return Promise.resolve();
  }

  /** Exact whether asked or not: a call's ids grow the window when one is in none of its days. */
  async recordAndCount(
    accountId: string,
    dataset: string,
    dayKey: string,
    ids: readonly string[],
    dayKeys: readonly string[],
    exact = false,
  ): Promise<DistinctCount> {
    const days = dayKeys.includes(dayKey)
      ? dayKeys.map((d) => this.entries.members(idsKey(accountId, dataset, d)))
      : undefined;
    const grew = days !== undefined && ids.some((id) => !days.some((s) => s?.has(id)));
    const mark = lockMarkKey(accountId, dataset);
    // As Redis's EXPIRE: a live mark is given the TTL again, an absent one is not made.
    const lockedOn = exact && this.entries.members(mark) !== undefined;
    if (lockedOn) this.entries.addToSet(mark, [], this.idsTtlMs());
    await this.recordIds(accountId, dataset, dayKey, ids);
    const out: DistinctCount = { distinct: await this.countDistinct(accountId, dataset, dayKeys), grew };
    if (lockedOn) out.lockedOn = true;
    return out;
  }

  /** Every live entry with its expiry (epoch ms), to be kept across a restart of a single process. */
  snapshot(): MeterSnapshot {
    return this.entries.snapshot();
  }

  /** Takes back a snapshot's entries that have not expired since; a malformed one changes nothing. */
  restore(snap: unknown): number {
    return this.entries.restore(snap);
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }
}

// NUL separators: account ids, datasets and doc ids can never forge another entry's key.
const acc = (accountId: string): string => `${accountId}\0`;
const idsKey = (a: string, dataset: string, dayKey: string): string => `${acc(a)}ids\0${dataset}\0${dayKey}`;
const lockMarkKey = (a: string, dataset: string): string => `${acc(a)}lk\0${dataset}`;

interface WindowKeys {
  second: string;
  minute: string;
  day: string;
  month: string;
  fullText: string;
}

function keysFor(accountId: string, w: Windows): WindowKeys {
  const p = acc(accountId);
  return {
    second: `${p}s\0${w.epochSecond}`,
    minute: `${p}m\0${w.epochMinute}`,
    day: `${p}d\0${w.dayKey}`,
    month: `${p}mo\0${w.monthKey}`,
    fullText: `${p}ft\0${w.dayKey}`,
  };
}
