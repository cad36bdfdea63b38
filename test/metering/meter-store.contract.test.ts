import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MemoryMeterStore } from '../../src/metering/memory-meter-store';
import type { MeterLimits, MeterStore, ReserveInput } from '../../src/metering/meter-store';
import { refundFor } from '../../src/metering/meter-store';
import { RedisMeterStore } from '../../src/metering/redis-meter-store';
import { computeWindows } from '../../src/metering/windows';
import { connectRedis, createRedisClient, waitForReady } from '../../src/stores/redis-client';
import type { RedisClient } from '../../src/stores/redis-client';
import { ManualClock } from '../../src/util/clock';
import { TEST_REDIS_URL } from '../support/databases';
import { startRedisCluster } from '../support/redis-cluster';
import type { TestRedisCluster } from '../support/redis-cluster';

const TZ = 'Asia/Ho_Chi_Minh';
const RUN = `t${randomBytes(4).toString('hex')}:`;
const WIDE: MeterLimits = { perSecond: 1000, perMinute: 10_000, daily: 100_000, monthly: 1_000_000 };

let redis: Redis;
// REDIS_URL may name a Redis Cluster (DESIGN §5): the same contract on three primaries.
let cluster: TestRedisCluster;
let clustered: RedisClient;
// Three redis-server processes and a cluster formed: longer than the 30 s default on a busy machine.
beforeAll(async () => {
  redis = createRedisClient(TEST_REDIS_URL, { commandTimeoutMs: 2000 });
  cluster = await startRedisCluster();
  clustered = connectRedis(cluster.url, { commandTimeoutMs: 2000 });
  // A cluster client is ready once it has met every node: slower on a machine busy with the suite.
  await Promise.all([waitForReady(redis), waitForReady(clustered, 20_000)]);
}, 90_000);
afterAll(async () => {
  const keys = await redis.keys(`${RUN}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await clustered.quit();
  await cluster.close();
});

const factories: [string, (clock: ManualClock) => MeterStore][] = [
  ['memory', (clock) => new MemoryMeterStore({ clock })],
  ['redis', () => new RedisMeterStore({ redis, prefix: RUN })],
  ['redis cluster', () => new RedisMeterStore({ redis: clustered, prefix: RUN })],
];

describe.each(factories)('MeterStore contract: %s', (name, create) => {
  let clock: ManualClock;
  let store: MeterStore;
  let accountId: string;
  let seq = 0;

  beforeEach(() => {
    clock = new ManualClock(Date.parse('2026-11-14T03:00:00.250Z'));
    store = create(clock);
    accountId = `acc_${randomBytes(5).toString('hex')}`;
  });
  afterEach(() => store.close());

  const input = (over: Partial<ReserveInput> = {}): ReserveInput => ({
    accountId,
    requestId: `req_${++seq}`,
    cost: 1,
    limits: WIDE,
    windows: computeWindows(clock.now(), TZ),
    creditsAllowed: false,
    ...over,
  });
  const reserve = (over: Partial<ReserveInput> = {}) => store.reserve(input(over));
  const reserveN = async (n: number, over: Partial<ReserveInput> = {}) => {
    for (let i = 0; i < n; i++) expect((await reserve(over)).ok).toBe(true);
  };
  const peek = () => store.peek(accountId, computeWindows(clock.now(), TZ));

  it('admits and reports usage after the operation, saying whether the replicas share the count', async () => {
    const r = await reserve();
    expect(r).toEqual({
      ok: true,
      source: 'quota',
      creditCalls: 0,
      fullTextAdded: false,
      ...(name === 'memory' ? {} : { shared: true }),
      usage: { second: 1, minute: 1, daily: 1, monthly: 1, fullText: 0 },
    });
    expect(await peek()).toEqual(r.usage);
  });

  it('limits requests per second, rejecting without counting, and resets with the next second', async () => {
    const limits = { ...WIDE, perSecond: 2 };
    await reserveN(2, { limits });
    const r = await reserve({ limits });
    expect(r).toMatchObject({ ok: false, reason: 'rate_limited', scope: 'second', retryAfter: 1 });
    expect(r.usage).toMatchObject({ second: 2, daily: 2, monthly: 2 });
    expect(await peek()).toMatchObject({ second: 2, minute: 2, daily: 2 });
    clock.advance(1000);
    expect((await reserve({ limits })).ok).toBe(true);
  });

  it('limits requests per minute with Retry-After to the end of the minute', async () => {
    const limits = { ...WIDE, perMinute: 3 };
    clock.set(Date.parse('2026-11-14T03:00:10.000Z'));
    for (let i = 0; i < 3; i++) {
      expect((await reserve({ limits })).ok).toBe(true);
      clock.advance(1000);
    }
    expect(await reserve({ limits })).toMatchObject({
      ok: false,
      reason: 'rate_limited',
      scope: 'minute',
      retryAfter: 47,
    });
    clock.set(Date.parse('2026-11-14T03:01:00.000Z'));
    expect(await reserve({ limits })).toMatchObject({ ok: true, usage: { minute: 1, daily: 4 } });
  });

  it('counts requests in rate windows and cost in the daily and monthly quota', async () => {
    const r = await reserve({ cost: 2 });
    expect(r.usage).toEqual({ second: 1, minute: 1, daily: 2, monthly: 2, fullText: 0 });
  });

  it('enforces the daily limit (cost included) and resets at 00:00 Asia/Ho_Chi_Minh', async () => {
    const limits = { ...WIDE, daily: 3 };
    clock.set(Date.parse('2026-11-14T16:59:50.000Z'));
    await reserveN(2, { limits });
    expect(await reserve({ limits, cost: 2 })).toMatchObject({
      ok: false,
      reason: 'quota_exceeded',
      scope: 'daily',
      retryAfter: 10,
    });
    await reserveN(1, { limits });
    clock.set(Date.parse('2026-11-14T16:59:59.000Z'));
    expect(await reserve({ limits })).toMatchObject({
      ok: false,
      scope: 'daily',
      usage: { daily: 3, monthly: 3 },
    });
    clock.set(Date.parse('2026-11-14T17:00:00.000Z'));
    expect(await reserve({ limits })).toMatchObject({ ok: true, usage: { daily: 1, monthly: 4 } });
  });

  it('enforces the monthly quota and resets on the 1st at 00:00 Asia/Ho_Chi_Minh', async () => {
    const limits = { ...WIDE, monthly: 5 };
    clock.set(Date.parse('2026-11-30T16:59:58.000Z'));
    await reserveN(5, { limits });
    expect(await reserve({ limits })).toMatchObject({
      ok: false,
      reason: 'quota_exceeded',
      scope: 'monthly',
      retryAfter: 2,
      usage: { monthly: 5, daily: 5 },
    });
    clock.set(Date.parse('2026-11-30T16:59:59.999Z'));
    expect((await reserve({ limits })).ok).toBe(false);
    clock.set(Date.parse('2026-11-30T17:00:00.000Z'));
    expect(await reserve({ limits })).toMatchObject({
      ok: true,
      source: 'quota',
      usage: { daily: 1, monthly: 1 },
    });
  });

  it('admits from credits once the monthly quota is spent; daily and rate still count', async () => {
    const limits = { ...WIDE, monthly: 2, daily: 4 };
    await reserveN(1, { limits, creditsAllowed: true });
    // 1 left and the call costs 2: the quota's last call, and one credit.
    expect(await reserve({ limits, creditsAllowed: true, cost: 2 })).toMatchObject({
      ok: true,
      source: 'credits',
      creditCalls: 1,
      usage: { second: 2, daily: 3, monthly: 2 },
    });
    expect(await reserve({ limits, creditsAllowed: true })).toMatchObject({
      ok: true,
      source: 'credits',
      creditCalls: 1,
      usage: { daily: 4, monthly: 2 },
    });
    expect(await reserve({ limits, creditsAllowed: true })).toMatchObject({
      ok: false,
      reason: 'quota_exceeded',
      scope: 'daily',
    });
    expect(await reserve({ limits: { ...limits, daily: 100 }, creditsAllowed: false })).toMatchObject({
      ok: false,
      scope: 'monthly',
    });
  });

  it('never refuses a call that costs nothing for quota, nor draws it from credits', async () => {
    const limits = { ...WIDE, monthly: 1, daily: 1 };
    await reserveN(1, { limits });
    // The quota lowered below what was used (a downgrade mid-month): still nothing to pay.
    const lowered = { ...limits, monthly: 0, daily: 0 };
    for (const creditsAllowed of [true, false])
      expect(await reserve({ limits: lowered, creditsAllowed, cost: 0 })).toMatchObject({
        ok: true,
        source: 'quota',
        creditCalls: 0,
        usage: { daily: 1, monthly: 1 },
      });
    expect(await reserve({ limits, creditsAllowed: false, cost: 1 })).toMatchObject({
      ok: false,
      scope: 'daily',
    });
  });

  it('caps distinct full-text documents per day; reopening is free and never blocked', async () => {
    const ft = (docId: string) => ({ fullText: { docId, cap: 2 } });
    expect(await reserve(ft('A'))).toMatchObject({ ok: true, fullTextAdded: true, usage: { fullText: 1 } });
    expect(await reserve(ft('B'))).toMatchObject({ ok: true, fullTextAdded: true, usage: { fullText: 2 } });
    expect(await reserve(ft('A'))).toMatchObject({
      ok: true,
      fullTextAdded: false,
      usage: { fullText: 2, daily: 3 },
    });
    // A new document over the cap: every check passes, but only the rate slots are taken (the
    // document almost always exists, and its full_text_limit does not count); nothing to give back.
    const req = input(ft('C'));
    const c = await store.reserve(req);
    expect(c).toMatchObject({ ok: true, fullTextAdded: false, fullTextBlocked: true, source: 'quota' });
    expect(c.usage).toMatchObject({ fullText: 2, daily: 3, monthly: 3 });
    expect(refundFor(req, c)).toBeNull();
    expect(await peek()).toMatchObject({ daily: 3, monthly: 3, fullText: 2, second: 4 });
    const reopen = await reserve(ft('B'));
    expect(reopen).toMatchObject({ ok: true, fullTextAdded: false });
    expect(reopen.fullTextBlocked).toBeUndefined();
    clock.set(Date.parse('2026-11-14T17:00:00.000Z'));
    expect(await reserve(ft('C'))).toMatchObject({ ok: true, fullTextAdded: true, usage: { fullText: 1 } });
  });

  it('refuses a new document over the cap for the day as any call, and holds nothing of the day while it is in flight', async () => {
    const limits = { ...WIDE, daily: 2 };
    const ft = (docId: string) => ({ limits, fullText: { docId, cap: 1 } });
    expect(await reserve(ft('A'))).toMatchObject({ ok: true, fullTextAdded: true });
    expect(await reserve(ft('B'))).toMatchObject({ ok: true, fullTextBlocked: true, usage: { daily: 1 } });
    // The capped call still in flight: the day's last call goes to another request.
    expect(await reserve({ limits })).toMatchObject({ ok: true, usage: { daily: 2 } });
    expect(await reserve(ft('C'))).toMatchObject({ ok: false, scope: 'daily' });
  });

  it('charges a call without rate slots (limits 0): the day and the month, credits past the quota', async () => {
    const charge: MeterLimits = { perSecond: 0, perMinute: 0, daily: 3, monthly: 2 };
    await reserveN(1);
    const before = await peek();
    expect(await reserve({ limits: charge })).toMatchObject({ ok: true, source: 'quota', creditCalls: 0 });
    expect(await reserve({ limits: charge, creditsAllowed: true })).toMatchObject({
      ok: true,
      source: 'credits',
      creditCalls: 1,
    });
    expect(await reserve({ limits: charge })).toMatchObject({ ok: false, scope: 'daily' });
    expect(await peek()).toMatchObject({
      second: before.second,
      minute: before.minute,
      daily: 3,
      monthly: 2,
    });
  });

  it('does not add a document when a later check rejects the request', async () => {
    const limits = { ...WIDE, daily: 1 };
    await reserveN(1, { limits });
    expect(await reserve({ limits, fullText: { docId: 'X', cap: 5 } })).toMatchObject({
      ok: false,
      scope: 'daily',
    });
    expect((await peek()).fullText).toBe(0);
  });

  it('refunds daily, monthly and the full-text slot once per request id; rate windows stay', async () => {
    await reserveN(1);
    const req = input({ fullText: { docId: 'D1', cap: 1 }, cost: 2 });
    const res = await store.reserve(req);
    expect(res.usage).toMatchObject({ daily: 3, monthly: 3, fullText: 1 });
    const refund = refundFor(req, res)!;
    expect(refund).toMatchObject({ cost: 2, monthlyCalls: 2, fullTextDocId: 'D1' });
    expect(await store.refund(refund)).toEqual({ applied: true });
    expect(await peek()).toEqual({ second: 2, minute: 2, daily: 1, monthly: 1, fullText: 0 });
    expect(await store.refund(refund)).toEqual({ applied: false });
    expect(await peek()).toEqual({ second: 2, minute: 2, daily: 1, monthly: 1, fullText: 0 });
    // The slot is free again for another document.
    expect((await reserve({ fullText: { docId: 'D2', cap: 1 } })).ok).toBe(true);
  });

  it('keeps a reopened document in the set when its request is refunded', async () => {
    await reserveN(1, { fullText: { docId: 'A', cap: 3 } });
    const req = input({ fullText: { docId: 'A', cap: 3 } });
    const res = await store.reserve(req);
    expect(refundFor(req, res)).toMatchObject({ fullTextDocId: 'A', fullTextHeld: true });
    await store.refund(refundFor(req, res)!);
    expect(await peek()).toMatchObject({ daily: 1, fullText: 1 });
  });

  it('keeps a document in the set while a later call that opened it may be served, when the call that added it is refunded', async () => {
    const ft = (docId: string) => input({ fullText: { docId, cap: 1 } });
    const [adder, later] = [ft('X'), ft('X')];
    const [added, held] = [await store.reserve(adder), await store.reserve(later)];
    expect([added.fullTextAdded, held.fullTextHeld]).toEqual([true, true]);
    // The first call fails (its credits ran out, or its upstream): the second is still on its way.
    await store.refund(refundFor(adder, added)!);
    expect((await peek()).fullText).toBe(1);
    // So the day's cap of one is still taken: another document stays refused.
    expect(await reserve({ fullText: { docId: 'Y', cap: 1 } })).toMatchObject({ fullTextBlocked: true });
    // The second fails too: no call that opened X was served, and its slot comes back.
    await store.refund(refundFor(later, held)!);
    expect((await peek()).fullText).toBe(0);
    expect(await reserve({ fullText: { docId: 'X', cap: 1 } })).toMatchObject({ fullTextAdded: true });
  });

  it('keeps a document in the set when only the later call that opened it is refunded', async () => {
    const ft = () => input({ fullText: { docId: 'X', cap: 1 } });
    const [adder, later] = [ft(), ft()];
    await store.reserve(adder);
    const held = await store.reserve(later);
    await store.refund(refundFor(later, held)!);
    expect((await peek()).fullText).toBe(1);
    // A refund repeated changes nothing more.
    expect(await store.refund(refundFor(later, held)!)).toEqual({ applied: false });
    expect((await peek()).fullText).toBe(1);
  });

  it('refunds a credits-sourced call without touching the monthly quota', async () => {
    const limits = { ...WIDE, monthly: 1 };
    await reserveN(1, { limits });
    const req = input({ limits, creditsAllowed: true });
    const res = await store.reserve(req);
    expect(res.source).toBe('credits');
    await store.refund(refundFor(req, res)!);
    expect(await peek()).toMatchObject({ daily: 1, monthly: 1 });
  });

  it('refunds a call split between the quota and credits: only the quota share goes back to the month', async () => {
    const limits = { ...WIDE, monthly: 2 };
    await reserveN(1, { limits });
    const req = input({ limits, creditsAllowed: true, cost: 2 });
    const res = await store.reserve(req);
    expect(res).toMatchObject({
      ok: true,
      source: 'credits',
      creditCalls: 1,
      usage: { daily: 3, monthly: 2 },
    });
    expect(refundFor(req, res)).toMatchObject({ cost: 2, monthlyCalls: 1 });
    await store.refund(refundFor(req, res)!);
    expect(await peek()).toMatchObject({ daily: 1, monthly: 1 });
  });

  it('refunds into the day the call was counted in, even after midnight, never below zero', async () => {
    clock.set(Date.parse('2026-11-14T16:59:59.500Z'));
    const req = input();
    const res = await store.reserve(req);
    clock.set(Date.parse('2026-11-14T17:00:00.500Z'));
    await reserveN(1);
    expect(await store.refund(refundFor(req, res)!)).toEqual({ applied: true });
    expect(await peek()).toMatchObject({ daily: 1, monthly: 1 });
    const never = { ...refundFor(req, res)!, requestId: 'never-reserved', dayKey: '2026-11-01', cost: 5 };
    await store.refund(never);
    expect(await peek()).toMatchObject({ daily: 1, monthly: 0 });
    expect(refundFor(req, { ...res, ok: false })).toBeNull();
  });

  it('peek changes nothing', async () => {
    await reserveN(2);
    const a = await peek();
    expect(await peek()).toEqual(a);
    expect(await store.peek('acc_nobody', computeWindows(clock.now(), TZ))).toEqual({
      second: 0,
      minute: 0,
      daily: 0,
      monthly: 0,
      fullText: 0,
    });
  });

  it('applies new limits at once to usage already counted (plan change)', async () => {
    await reserveN(5);
    expect(await reserve({ limits: { ...WIDE, daily: 5 } })).toMatchObject({ ok: false, scope: 'daily' });
    expect((await reserve({ limits: { ...WIDE, daily: 6 } })).ok).toBe(true);
  });

  it('counts each account apart', async () => {
    await reserveN(3);
    const other = await reserve({ accountId: `${accountId}_other` });
    expect(other.usage).toMatchObject({ daily: 1, monthly: 1 });
    expect((await reserve()).usage).toMatchObject({ daily: 4, monthly: 4 });
  });

  it('counts distinct ids per dataset across days (union)', async () => {
    await store.recordIds(accountId, 'legal', '2026-11-13', ['a', 'b', 'c']);
    await store.recordIds(accountId, 'legal', '2026-11-14', ['c', 'd', 'd']);
    await store.recordIds(accountId, 'directory', '2026-11-14', ['x']);
    await store.recordIds(accountId, 'legal', '2026-11-14', []);
    expect(await store.countDistinct(accountId, 'legal', ['2026-11-13', '2026-11-14'])).toBe(4);
    expect(await store.countDistinct(accountId, 'legal', ['2026-11-14'])).toBe(2);
    expect(await store.countDistinct(accountId, 'legal', ['2026-11-12'])).toBe(0);
    expect(await store.countDistinct(accountId, 'legal', [])).toBe(0);
    expect(await store.countDistinct(accountId, 'directory', ['2026-11-13', '2026-11-14'])).toBe(1);
    const days = ['2026-11-13', '2026-11-14', '2026-11-15'];
    expect(await store.recordAndCount(accountId, 'legal', '2026-11-15', ['e', 'a'], days)).toEqual({
      distinct: 5,
      grew: true,
    });
    expect(await store.recordAndCount(accountId, 'legal', '2026-11-15', [], days)).toEqual({
      distinct: 5,
      grew: false,
    });
    // not asked to be exact, a store still knows ids it recorded that same day
    expect(await store.recordAndCount(accountId, 'legal', '2026-11-15', ['a', 'e'], days)).toEqual({
      distinct: 5,
      grew: false,
    });
    expect(await store.countDistinct(`${accountId}_other`, 'legal', days)).toBe(0);
  });

  it('forgets the ids of the given datasets and days, and only those', async () => {
    await store.recordIds(accountId, 'legal', '2026-11-13', ['a', 'b']);
    await store.recordIds(accountId, 'legal', '2026-11-14', ['c']);
    await store.recordIds(accountId, 'directory', '2026-11-14', ['x']);
    await store.recordIds(accountId, 'other', '2026-11-14', ['y']);
    await store.recordIds(`${accountId}_other`, 'legal', '2026-11-14', ['z']);
    await store.forgetIds(accountId, ['legal', 'directory'], ['2026-11-13', '2026-11-14']);
    const days = ['2026-11-13', '2026-11-14'];
    expect(await store.countDistinct(accountId, 'legal', days)).toBe(0);
    expect(await store.countDistinct(accountId, 'directory', days)).toBe(0);
    expect(await store.countDistinct(accountId, 'other', days)).toBe(1);
    expect(await store.countDistinct(`${accountId}_other`, 'legal', days)).toBe(1);
    await store.forgetIds(accountId, [], days);
    expect(await store.recordAndCount(accountId, 'legal', '2026-11-14', ['d'], days)).toEqual({
      distinct: 1,
      grew: true,
    });
  });

  it('tells exactly, when asked, a call whose ids are all in a window marked locked already, taken on any of its days, from one that adds', async () => {
    await store.recordIds(accountId, 'legal', '2026-11-13', ['a', 'b', 'c']);
    await store.markLocked(accountId, 'legal');
    const days = ['2026-11-13', '2026-11-14', '2026-11-15'];
    const record = (ids: string[], window = days) =>
      store.recordAndCount(accountId, 'legal', '2026-11-15', ids, window, true);
    expect(await record(['a', 'c'])).toEqual({ distinct: 3, grew: false, lockedOn: true });
    expect(await record(['a', 'd'])).toEqual({ distinct: 4, grew: true, lockedOn: true });
    expect(await record(['d', 'a'])).toEqual({ distinct: 4, grew: false, lockedOn: true });
    // 'b' was taken on a day this window leaves out: new to it (a, c and d are on its last day)
    expect(await record(['b'], ['2026-11-14', '2026-11-15'])).toEqual({
      distinct: 4,
      grew: true,
      lockedOn: true,
    });
    expect(
      await store.recordAndCount(`${accountId}_other`, 'legal', '2026-11-15', ['a'], days, true),
    ).toEqual({
      distinct: 1,
      grew: true,
    });
  });

  it('counts distinct ids approximately right at scale', async () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `r${i}`);
    await store.recordIds(accountId, 'legal', '2026-11-13', ids.slice(0, 3000));
    await store.markLocked(accountId, 'legal');
    const days = ['2026-11-13', '2026-11-14'];
    const first = await store.recordAndCount(accountId, 'legal', '2026-11-14', ids.slice(2000), days, true);
    expect(first.grew).toBe(true);
    expect(Math.abs(first.distinct - 5000)).toBeLessThan(5000 * 0.03);
    // 3,000 ids again, more than one batch of PFADD on Redis: none grows the window
    expect(
      await store.recordAndCount(accountId, 'legal', '2026-11-14', ids.slice(0, 3000), days, true),
    ).toEqual({
      distinct: first.distinct,
      grew: false,
      lockedOn: true,
    });
  });

  it('says a window is marked locked only when asked, on the account and dataset marked, until the ids are forgotten', async () => {
    const days = ['2026-11-13', '2026-11-14'];
    const record = (acc: string, ds: string, ids: string[], exact = true) =>
      store.recordAndCount(acc, ds, '2026-11-14', ids, days, exact);
    expect(await record(accountId, 'legal', ['a'])).toEqual({ distinct: 1, grew: true });
    await store.markLocked(accountId, 'legal');
    expect(await record(accountId, 'legal', ['a'])).toEqual({ distinct: 1, grew: false, lockedOn: true });
    // a count not asked to be exact (an account never locked) does not read the mark
    expect(await record(accountId, 'legal', ['b'], false)).toEqual({ distinct: 2, grew: true });
    expect(await record(accountId, 'directory', ['a'])).toEqual({ distinct: 1, grew: true });
    expect(await record(`${accountId}_other`, 'legal', ['a'])).toEqual({ distinct: 1, grew: true });
    // an unmarked window is never said not to grow when its ids are new
    expect((await record(accountId, 'directory', ['z'])).grew).toBe(true);
    await store.forgetIds(accountId, ['legal'], days);
    expect(await record(accountId, 'legal', ['a'])).toEqual({ distinct: 1, grew: true });
    await store.markLocked(accountId, 'legal');
    await store.forgetIds(accountId, ['legal'], []);
    expect(await record(accountId, 'legal', ['a'])).toEqual({ distinct: 1, grew: false });
  });

  it('admits exactly the quota under 200 concurrent reserves', async () => {
    const limits = { ...WIDE, monthly: 50 };
    const results = await Promise.all(Array.from({ length: 200 }, () => reserve({ limits })));
    expect(results.filter((r) => r.ok)).toHaveLength(50);
    expect(
      results.filter((r) => !r.ok).every((r) => r.reason === 'quota_exceeded' && r.scope === 'monthly'),
    ).toBe(true);
    expect(await peek()).toMatchObject({ monthly: 50, daily: 50, second: 50 });
  });

  it('never admits more than the per-second limit under concurrency', async () => {
    const limits = { ...WIDE, perSecond: 7 };
    const results = await Promise.all(Array.from({ length: 40 }, () => reserve({ limits })));
    expect(results.filter((r) => r.ok)).toHaveLength(7);
  });
});
