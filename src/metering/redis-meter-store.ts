import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { createDeadlineQueue, withDeadline } from '../util/deadline-queue';
import type { DeadlineQueue } from '../util/deadline-queue';
import { holdWritesThisTurn } from '../util/end-of-turn';
import { COMMAND_TIMED_OUT } from './lua-script';
import type { LateReplies } from './lua-script';
import type { RedisClient } from '../stores/redis-client';
import { REFUND_SCRIPT, RESERVE_SCRIPT, reserveTaken } from './meter-lua';
import { recordIdsScript } from './record-ids-lua';
import type { MeterLimits, MeterStore, RefundInput, ReserveInput, ReserveResult, Usage } from './meter-store';
import { HLL_STANDARD_ERROR, REFUND_MARKER_TTL_S, distinctTtlSeconds, windowDaysOption } from './meter-store';
import { distinctReply, pipelineResults, replyNumber as n, reserveResult } from './redis-replies';
import type { Windows } from './windows';

export interface RedisMeterStoreOptions {
  /** Owned by the caller (close it yourself); see createRedisClient for fail-fast settings. */
  redis: RedisClient;
  /** Namespace for every key, e.g. 'lk:'; must not contain braces (they would move the hash tag). */
  prefix?: string;
  /**
   * Bulk-watch detection window; HyperLogLog day keys live one day longer. A function is read at
   * each write, so a reload's window_days applies to the days recorded from then on.
   */
  distinctWindowDays?: number | (() => number);
  /**
   * Every command not answered by then fails with ioredis' timeout error (the failover store then
   * counts locally). The deadlines live in one queue instead of a timer per command, so the client
   * itself is best made without a commandTimeout. Unset: only the client's own timeout applies.
   */
  commandTimeoutMs?: number;
}

/** The reserve's numbers, and their text as sent (see reserveNumbers). */
interface ReserveNumbers {
  values: number[];
  text: string;
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
 *   P{A}:rq:<requestId>           STRING, TTL deadline+10 s a reserve's reply, on a cluster (resends)
 *   P{A}:ids:<dataset>:<YYYY-MM-DD> HLL, TTL window+1 d   record ids served (bulk watch)
 */
export class RedisMeterStore implements MeterStore {
  readonly distinctError = HLL_STANDARD_ERROR;
  private readonly redis: RedisClient;
  private readonly prefix: string;
  private readonly windowDays: () => number;
  private readonly deadlines: DeadlineQueue | undefined;
  private readonly numbers = new WeakMap<MeterLimits, ReserveNumbers>();
  /**
   * On a cluster, whose client may send a reserve again (see meter-lua.ts): for how many seconds
   * to keep its reply. A resend is made only while the command is pending, and one answered past
   * the store's deadline is given back (lateReserves): the deadline and a margin cover it.
   */
  private readonly resends: string;

  constructor(opts: RedisMeterStoreOptions) {
    this.redis = opts.redis;
    this.resends =
      opts.redis instanceof Cluster ? String(Math.ceil((opts.commandTimeoutMs ?? 60_000) / 1000) + 10) : '';
    this.prefix = opts.prefix ?? 'lk:';
    if (/[{}]/.test(this.prefix)) throw new Error('meter key prefix must not contain braces');
    this.windowDays = windowDaysOption(opts.distinctWindowDays);
    this.deadlines =
      opts.commandTimeoutMs === undefined ? undefined : createDeadlineQueue(opts.commandTimeoutMs);
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    const w = input.windows;
    const a = this.acc(input.accountId);
    this.coalesceWrites();
    return RESERVE_SCRIPT.run(
      this.redis,
      [
        `${a}s:${w.epochSecond}`,
        `${a}m:${w.epochMinute}`,
        `${a}d:${w.dayKey}`,
        `${a}mo:${w.monthKey}`,
        `${a}ft:${w.dayKey}`,
        `${a}fth:${w.dayKey}`,
        `${a}rq:${input.requestId}`,
      ],
      [this.reserveNumbers(input), input.fullText?.docId ?? '', this.resends],
      (reply) => reserveResult(reply, w),
      this.deadlines,
      this.lateReserves,
    );
  }

  /**
   * A reserve answered after its deadline: the caller already took it as failed (a 503, or the
   * fallback counted it), but Redis ran it when it came back from a stall. What it took is given
   * back, as for any call that must not count; a reply lost with the connection cannot be, and
   * leaves that call counted.
   */
  private readonly lateReserves: LateReplies = {
    late: (reply, sent) => {
      const taken = reserveTaken(reply, sent);
      if (!taken) return; // refused, or an error reply: the script took nothing
      // The keys carry the account's hash tag; the marker only has to be new (one late reply each).
      const account = taken.dayKey.slice(0, taken.dayKey.indexOf('}:') + 2);
      const keys = [
        taken.dayKey,
        taken.monthKey,
        taken.fullTextKey,
        `${account}rf:late-${randomUUID()}`,
        taken.holdersKey,
      ];
      // Redis gone again before the refund: that call stays counted (nothing here can do better).
      this.giveBack(keys, taken.cost, taken.monthlyCalls, taken.doc).catch(() => undefined);
    },
  };

  /**
   * The reserve's 12 numbers as one argument (see meter-lua.ts). Requests of one plan in one
   * second send the same text: it is kept per limits object (one per plan, made at config load)
   * and made again only when a number changes, instead of formatting 12 numbers per call.
   */
  private reserveNumbers(input: ReserveInput): string {
    const { limits: l, fullText } = input;
    const t = input.windows.ttl;
    const values = [
      input.cost,
      l.perSecond,
      l.perMinute,
      l.daily,
      l.monthly,
      input.creditsAllowed ? 1 : 0,
      fullText ? 1 : 0,
      fullText ? fullText.cap : 0,
      t.second,
      t.minute,
      t.day,
      t.month,
    ];
    const kept = this.numbers.get(l);
    if (kept !== undefined && kept.values.every((v, i) => v === values[i])) return kept.text;
    const text = values.join(',');
    this.numbers.set(l, { values, text });
    return text;
  }

  /**
   * The reserves of all requests answered in one turn of the event loop leave in one socket write
   * (see end-of-turn.ts): still one round trip each, one wake-up of Redis per turn.
   */
  private coalesceWrites(): void {
    const redis = this.redis;
    if ('stream' in redis && redis.status === 'ready') holdWritesThisTurn(redis.stream);
  }

  refund(input: RefundInput): Promise<{ applied: boolean }> {
    const a = this.acc(input.accountId);
    const keys = [
      `${a}d:${input.dayKey}`,
      `${a}mo:${input.monthKey}`,
      `${a}ft:${input.dayKey}`,
      `${a}rf:${input.requestId}`,
      `${a}fth:${input.dayKey}`,
    ];
    const doc = input.fullTextDocId;
    return this.giveBack(
      keys,
      input.cost,
      input.monthlyCalls,
      doc === undefined ? undefined : { id: doc, added: !input.fullTextHeld },
    );
  }

  /** The refund script on its five keys (day, month, full-text set, marker, holders); see meter-lua.ts. */
  private giveBack(
    keys: string[],
    cost: number,
    monthlyCalls: number,
    doc: { id: string; added: boolean } | undefined,
  ): Promise<{ applied: boolean }> {
    this.coalesceWrites();
    return REFUND_SCRIPT.run(
      this.redis,
      keys,
      [cost, monthlyCalls, doc === undefined ? 0 : doc.added ? 1 : 2, doc?.id ?? '', REFUND_MARKER_TTL_S],
      (reply) => ({ applied: n(reply) === 1 }),
      this.deadlines,
    );
  }

  async peek(accountId: string, w: Windows): Promise<Usage> {
    const a = this.acc(accountId);
    const rows = await this.timed(
      this.redis
        .pipeline()
        .mget(`${a}s:${w.epochSecond}`, `${a}m:${w.epochMinute}`, `${a}d:${w.dayKey}`, `${a}mo:${w.monthKey}`)
        .scard(`${a}ft:${w.dayKey}`)
        .exec(),
    );
    const [counts, ft] = pipelineResults(rows, 2);
    const c = Array.isArray(counts) ? (counts as unknown[]) : [];
    return { second: n(c[0]), minute: n(c[1]), daily: n(c[2]), monthly: n(c[3]), fullText: n(ft) };
  }

  async recordIds(accountId: string, dataset: string, dayKey: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const key = this.idsKey(accountId, dataset, dayKey);
    pipelineResults(
      await this.timed(
        this.redis
          .pipeline()
          .pfadd(key, ...ids)
          .expire(key, distinctTtlSeconds(this.windowDays()))
          .exec(),
      ),
      2,
    );
  }

  async countDistinct(accountId: string, dataset: string, dayKeys: readonly string[]): Promise<number> {
    if (dayKeys.length === 0) return 0;
    return this.timed(this.redis.pfcount(...dayKeys.map((d) => this.idsKey(accountId, dataset, d))));
  }

  async markLocked(accountId: string, dataset: string): Promise<void> {
    await this.timed(
      this.redis.set(this.lockMarkKey(accountId, dataset), '1', 'EX', distinctTtlSeconds(this.windowDays())),
    );
  }

  async forgetIds(accountId: string, datasets: readonly string[], dayKeys: readonly string[]): Promise<void> {
    const keys = datasets.flatMap((ds) => [
      this.lockMarkKey(accountId, ds),
      ...dayKeys.map((d) => this.idsKey(accountId, ds, d)),
    ]);
    // One slot: every key of the account carries its hash tag, so one DEL serves a cluster too.
    if (keys.length > 0) await this.timed(this.redis.del(...keys));
  }

  async recordAndCount(
    accountId: string,
    dataset: string,
    dayKey: string,
    ids: readonly string[],
    dayKeys: readonly string[],
    exact = false,
  ) {
    if (ids.length === 0)
      return { distinct: await this.countDistinct(accountId, dataset, dayKeys), grew: false };
    const key = this.idsKey(accountId, dataset, dayKey);
    if (exact && dayKeys.length > 0)
      return recordIdsScript(dayKeys.length).run(
        this.redis,
        [
          key,
          this.lockMarkKey(accountId, dataset),
          ...dayKeys.map((d) => this.idsKey(accountId, dataset, d)),
        ],
        [distinctTtlSeconds(this.windowDays()), ...ids],
        distinctReply,
        this.deadlines,
      );
    const p = this.redis
      .pipeline()
      .pfadd(key, ...ids)
      .expire(key, distinctTtlSeconds(this.windowDays()));
    if (dayKeys.length === 0) {
      pipelineResults(await this.timed(p.exec()), 2);
      return { distinct: 0, grew: false };
    }
    const out = pipelineResults(
      await this.timed(p.pfcount(...dayKeys.map((d) => this.idsKey(accountId, dataset, d))).exec()),
      3,
    );
    // Today's HyperLogLog unchanged: nothing new to the window. Changed: new to today at least.
    return { distinct: n(out[2]), grew: n(out[0]) === 1 };
  }

  /** The Redis client belongs to the caller. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** A command sent without a deadline of its own (pipelines, PFCOUNT): under the store's. */
  private timed<T>(work: Promise<T>): Promise<T> {
    return this.deadlines ? withDeadline(this.deadlines, work, COMMAND_TIMED_OUT) : work;
  }

  private acc(accountId: string): string {
    return `${this.prefix}{${accountId}}:`;
  }

  private idsKey(accountId: string, dataset: string, dayKey: string): string {
    return `${this.acc(accountId)}ids:${dataset}:${dayKey}`;
  }

  private lockMarkKey(accountId: string, dataset: string): string {
    return `${this.acc(accountId)}lk:${dataset}`;
  }
}
