import { holdWritesThisTurn } from '../util/end-of-turn';
import type { RedisClient } from './lua-script';
import { REFUND_SCRIPT, RESERVE_SCRIPT } from './meter-lua';
import type { MeterStore, RefundInput, ReserveInput, ReserveResult, Usage } from './meter-store';
import { REFUND_MARKER_TTL_S, distinctTtlSeconds } from './meter-store';
import type { Windows } from './windows';

export interface RedisMeterStoreOptions {
  /** Owned by the caller (close it yourself); see createRedisClient for fail-fast settings. */
  redis: RedisClient;
  /** Namespace for every key, e.g. 'lk:'; must not contain braces (they would move the hash tag). */
  prefix?: string;
  /** Bulk-watch detection window; HyperLogLog day keys live one day longer. */
  distinctWindowDays?: number;
}

/**
 * MeterStore over Redis or Redis Cluster. Every key of an account shares the hash tag {accountId},
 * so the reserve and refund scripts and the multi-key PFCOUNT stay in one slot.
 *
 * Key layout (P = prefix, A = account id):
 *   P{A}:s:<epochSecond>          INCR, TTL 3 s           requests this second
 *   P{A}:m:<epochMinute>          INCR, TTL 120 s         requests this minute
 *   P{A}:d:<YYYY-MM-DD>           INCRBY cost, TTL ≤2 d   calls today (quota + credits)
 *   P{A}:mo:<YYYY-MM>             INCRBY cost, TTL ≤35 d  calls from this month's quota
 *   P{A}:ft:<YYYY-MM-DD>          SET of docIds, TTL ≤2 d full-text documents opened today
 *   P{A}:rf:<requestId>           STRING, TTL 1 h         refund done (idempotency marker)
 *   P{A}:ids:<dataset>:<YYYY-MM-DD> HLL, TTL window+1 d   record ids served (bulk watch)
 */
export class RedisMeterStore implements MeterStore {
  private readonly redis: RedisClient;
  private readonly prefix: string;
  private readonly distinctTtl: number;

  constructor(opts: RedisMeterStoreOptions) {
    this.redis = opts.redis;
    this.prefix = opts.prefix ?? 'lk:';
    if (/[{}]/.test(this.prefix)) throw new Error('meter key prefix must not contain braces');
    this.distinctTtl = distinctTtlSeconds(opts.distinctWindowDays ?? 30);
  }

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    const { windows: w, limits, fullText } = input;
    const a = this.acc(input.accountId);
    this.coalesceWrites();
    const reply = await RESERVE_SCRIPT.run(
      this.redis,
      [
        `${a}s:${w.epochSecond}`,
        `${a}m:${w.epochMinute}`,
        `${a}d:${w.dayKey}`,
        `${a}mo:${w.monthKey}`,
        `${a}ft:${w.dayKey}`,
      ],
      [
        [
          input.cost,
          limits.perSecond,
          limits.perMinute,
          limits.daily,
          limits.monthly,
          input.creditsAllowed ? 1 : 0,
          fullText ? 1 : 0,
          fullText?.cap ?? 0,
          w.ttl.second,
          w.ttl.minute,
          w.ttl.day,
          w.ttl.month,
        ].join(','),
        fullText?.docId ?? '',
      ],
    );
    if (!Array.isArray(reply) || reply.length !== 8) throw new Error('unexpected reserve reply');
    const [status, source, added, second, minute, daily, monthly, ft] = reply as unknown[];
    const usage: Usage = {
      second: n(second),
      minute: n(minute),
      daily: n(daily),
      monthly: n(monthly),
      fullText: n(ft),
    };
    const src = source === 'credits' ? 'credits' : 'quota';
    const fail = (
      reason: ReserveResult['reason'],
      scope: ReserveResult['scope'],
      retryAfter: number,
    ): ReserveResult => ({
      ok: false,
      reason,
      scope,
      retryAfter,
      source: 'quota',
      fullTextAdded: false,
      usage,
    });
    switch (status) {
      case 'ok':
        return { ok: true, source: src, fullTextAdded: n(added) === 1, usage };
      case 'second':
        return fail('rate_limited', 'second', w.secondsToSecondEnd);
      case 'minute':
        return fail('rate_limited', 'minute', w.secondsToMinuteEnd);
      case 'full_text':
        return fail('full_text_limit', undefined, w.secondsToDayEnd);
      case 'daily':
        return fail('quota_exceeded', 'daily', w.secondsToDayEnd);
      case 'monthly':
        return fail('quota_exceeded', 'monthly', w.secondsToMonthEnd);
      default:
        throw new Error(`unexpected reserve status ${String(status)}`);
    }
  }

  /**
   * The reserves of all requests answered in one turn of the event loop leave in one socket write
   * (see end-of-turn.ts): still one round trip each, one wake-up of Redis per turn.
   */
  private coalesceWrites(): void {
    const redis = this.redis;
    if ('stream' in redis && redis.status === 'ready') holdWritesThisTurn(redis.stream);
  }

  async refund(input: RefundInput): Promise<{ applied: boolean }> {
    const a = this.acc(input.accountId);
    const doc = input.fullTextDocId;
    this.coalesceWrites();
    const reply = await REFUND_SCRIPT.run(
      this.redis,
      [
        `${a}d:${input.dayKey}`,
        `${a}mo:${input.monthKey}`,
        `${a}ft:${input.dayKey}`,
        `${a}rf:${input.requestId}`,
      ],
      [
        input.cost,
        input.source === 'quota' ? 1 : 0,
        doc === undefined ? 0 : 1,
        doc ?? '',
        REFUND_MARKER_TTL_S,
      ],
    );
    return { applied: n(reply) === 1 };
  }

  async peek(accountId: string, w: Windows): Promise<Usage> {
    const a = this.acc(accountId);
    const rows = await this.redis
      .pipeline()
      .mget(`${a}s:${w.epochSecond}`, `${a}m:${w.epochMinute}`, `${a}d:${w.dayKey}`, `${a}mo:${w.monthKey}`)
      .scard(`${a}ft:${w.dayKey}`)
      .exec();
    const [counts, ft] = results(rows, 2);
    const c = Array.isArray(counts) ? (counts as unknown[]) : [];
    return { second: n(c[0]), minute: n(c[1]), daily: n(c[2]), monthly: n(c[3]), fullText: n(ft) };
  }

  async recordIds(accountId: string, dataset: string, dayKey: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const key = this.idsKey(accountId, dataset, dayKey);
    results(
      await this.redis
        .pipeline()
        .pfadd(key, ...ids)
        .expire(key, this.distinctTtl)
        .exec(),
      2,
    );
  }

  async countDistinct(accountId: string, dataset: string, dayKeys: readonly string[]): Promise<number> {
    if (dayKeys.length === 0) return 0;
    return this.redis.pfcount(...dayKeys.map((d) => this.idsKey(accountId, dataset, d)));
  }

  async recordAndCount(
    accountId: string,
    dataset: string,
    dayKey: string,
    ids: readonly string[],
    dayKeys: readonly string[],
  ): Promise<number> {
    if (ids.length === 0) return this.countDistinct(accountId, dataset, dayKeys);
    const key = this.idsKey(accountId, dataset, dayKey);
    const p = this.redis
      .pipeline()
      .pfadd(key, ...ids)
      .expire(key, this.distinctTtl);
    if (dayKeys.length === 0) {
      results(await p.exec(), 2);
      return 0;
    }
    const out = results(await p.pfcount(...dayKeys.map((d) => this.idsKey(accountId, dataset, d))).exec(), 3);
    return n(out[2]);
  }

  /** The Redis client belongs to the caller. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private acc(accountId: string): string {
    return `${this.prefix}{${accountId}}:`;
  }

  private idsKey(accountId: string, dataset: string, dayKey: string): string {
    return `${this.acc(accountId)}ids:${dataset}:${dayKey}`;
  }
}

function n(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  return 0;
}

/** Unwraps a pipeline's [error, value] pairs; the first error (often the connection's) is thrown. */
function results(rows: [Error | null, unknown][] | null, expected: number): unknown[] {
  if (!rows || rows.length !== expected) throw new Error('pipeline did not run');
  return rows.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
