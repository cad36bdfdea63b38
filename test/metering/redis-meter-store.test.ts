import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RESERVE_SCRIPT } from '../../src/metering/meter-lua';
import { RedisMeterStore } from '../../src/metering/redis-meter-store';
import { computeWindows } from '../../src/metering/windows';
import { createRedisClient, waitForReady } from '../../src/stores/redis-client';
import { TEST_REDIS_URL } from '../support/databases';

const RUN = `t${randomBytes(4).toString('hex')}:`;
let redis: Redis;
beforeAll(async () => {
  redis = createRedisClient(TEST_REDIS_URL, { commandTimeoutMs: 2000 });
  await waitForReady(redis);
});
afterAll(async () => {
  const keys = await redis.keys(`${RUN}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('RedisMeterStore specifics', () => {
  const windows = computeWindows(Date.now(), 'Asia/Ho_Chi_Minh');
  const store = () => new RedisMeterStore({ redis, prefix: RUN, distinctWindowDays: 30 });

  it("keeps a day's record ids for the window_days of the moment they are written (a reload changes it)", async () => {
    let days = 30;
    const s = new RedisMeterStore({ redis, prefix: RUN, distinctWindowDays: () => days });
    await s.recordIds('acc_w', 'legal', '2026-11-01', ['a']);
    expect(await redis.ttl(`${RUN}{acc_w}:ids:legal:2026-11-01`)).toBeGreaterThan(30 * 86_400);
    days = 90;
    await s.recordAndCount('acc_w', 'legal', '2026-11-02', ['b'], ['2026-11-01', '2026-11-02']);
    expect(await redis.ttl(`${RUN}{acc_w}:ids:legal:2026-11-02`)).toBeGreaterThan(90 * 86_400);
    expect(await redis.ttl(`${RUN}{acc_w}:ids:legal:2026-11-01`)).toBeLessThanOrEqual(31 * 86_400);
    await redis.del(`${RUN}{acc_w}:ids:legal:2026-11-01`, `${RUN}{acc_w}:ids:legal:2026-11-02`);
  });

  it('keeps every key of an account under one hash tag, each with a TTL', async () => {
    const s = store();
    const res = await s.reserve({
      accountId: 'acc_k',
      requestId: 'rq1',
      cost: 1,
      limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
      windows,
      creditsAllowed: false,
      fullText: { docId: 'doc1', cap: 5 },
    });
    await s.refund({
      accountId: 'acc_k',
      requestId: 'rq1',
      cost: 1,
      monthlyCalls: 1,
      dayKey: windows.dayKey,
      monthKey: windows.monthKey,
    });
    await s.recordIds('acc_k', 'legal', windows.dayKey, ['a']);
    await s.markLocked('acc_k', 'legal');
    expect(res.ok).toBe(true);
    const keys = (await redis.keys(`${RUN}*`)).sort();
    expect(keys).toEqual(
      [
        `${RUN}{acc_k}:d:${windows.dayKey}`,
        `${RUN}{acc_k}:ft:${windows.dayKey}`,
        `${RUN}{acc_k}:fth:${windows.dayKey}`,
        `${RUN}{acc_k}:ids:legal:${windows.dayKey}`,
        `${RUN}{acc_k}:lk:legal`,
        `${RUN}{acc_k}:m:${windows.epochMinute}`,
        `${RUN}{acc_k}:mo:${windows.monthKey}`,
        `${RUN}{acc_k}:rf:rq1`,
        `${RUN}{acc_k}:s:${windows.epochSecond}`,
      ].sort(),
    );
    const key = (k: string) => `${RUN}{acc_k}:${k}`;
    const ttl = async (k: string) => redis.ttl(key(k));
    expect(await ttl(`s:${windows.epochSecond}`)).toBeLessThanOrEqual(windows.ttl.second);
    expect(await ttl(`m:${windows.epochMinute}`)).toBeGreaterThan(60);
    expect(await ttl(`d:${windows.dayKey}`)).toBeGreaterThan(86_400);
    expect(await ttl(`d:${windows.dayKey}`)).toBeLessThanOrEqual(2 * 86_400);
    expect(await ttl(`ft:${windows.dayKey}`)).toBeLessThanOrEqual(2 * 86_400);
    expect(await ttl(`fth:${windows.dayKey}`)).toBeLessThanOrEqual(2 * 86_400);
    expect(await ttl(`fth:${windows.dayKey}`)).toBeGreaterThan(86_400);
    expect(await ttl(`mo:${windows.monthKey}`)).toBeLessThanOrEqual(35 * 86_400);
    expect(await ttl(`mo:${windows.monthKey}`)).toBeGreaterThan(4 * 86_400);
    expect(await ttl('rf:rq1')).toBeGreaterThan(600);
    // 31 days from when it was written: PTTL, since TTL rounds to the second and this test takes time.
    const idsTtl = await redis.pttl(key(`ids:legal:${windows.dayKey}`));
    expect(idsTtl).toBeLessThanOrEqual(31 * 86_400_000);
    expect(idsTtl).toBeGreaterThan(31 * 86_400_000 - 30_000);
    // The lock mark as long as the ids: an exact count on its window gives it the TTL again.
    await redis.expire(key('lk:legal'), 60);
    await s.recordAndCount('acc_k', 'legal', windows.dayKey, ['a'], [windows.dayKey], true);
    expect(await redis.pttl(key('lk:legal'))).toBeGreaterThan(31 * 86_400_000 - 30_000);
    for (const k of keys) expect(await redis.ttl(k)).toBeGreaterThan(0);
  });

  it('makes one call to Redis per reserve, refund, peek and recordAndCount', async () => {
    const s = store();
    await s.reserve({
      accountId: 'acc_rt',
      requestId: 'warm',
      cost: 1,
      limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
      windows,
      creditsAllowed: false,
    });
    // One call is one write to the connection: a command, or a whole pipeline.
    const writes = jest.spyOn(redis.stream, 'write');
    const sent = jest.spyOn(redis, 'sendCommand');
    const count = () => writes.mock.calls.length;
    await s.reserve({
      accountId: 'acc_rt',
      requestId: 'r1',
      cost: 2,
      limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
      windows,
      creditsAllowed: false,
    });
    expect(count()).toBe(1);
    expect(sent.mock.calls.map(([c]) => c.name)).toEqual(['evalsha']);
    await s.refund({
      accountId: 'acc_rt',
      requestId: 'r1',
      cost: 2,
      monthlyCalls: 2,
      dayKey: windows.dayKey,
      monthKey: windows.monthKey,
    });
    expect(count()).toBe(2);
    await s.peek('acc_rt', windows);
    expect(count()).toBe(3);
    await s.recordAndCount('acc_rt', 'legal', windows.dayKey, ['a', 'b'], [windows.dayKey]);
    expect(count()).toBe(4);
    writes.mockRestore();
    sent.mockRestore();
  });

  it('takes a document id with commas and spaces as one value, apart from the numbers', async () => {
    const s = store();
    const docId = 'doc,with, commas 1';
    const input = {
      accountId: 'acc_doc',
      requestId: 'rq2',
      cost: 1,
      limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
      windows,
      creditsAllowed: false,
      fullText: { docId, cap: 1 },
    };
    expect((await s.reserve(input)).fullTextAdded).toBe(true);
    expect(await redis.smembers(`${RUN}{acc_doc}:ft:${windows.dayKey}`)).toEqual([docId]);
    // The same document again is not a new one, even at the cap.
    const again = await s.reserve({ ...input, requestId: 'rq3' });
    expect(again.ok).toBe(true);
    expect(again.fullTextAdded).toBe(false);
  });

  it('the reserve script refuses a number list of the wrong length and changes nothing', async () => {
    const key = `${RUN}{acc_bad}:s:1`;
    const keys = [
      key,
      `${RUN}{acc_bad}:m:1`,
      `${RUN}{acc_bad}:d:x`,
      `${RUN}{acc_bad}:mo:x`,
      `${RUN}{acc_bad}:ft:x`,
      `${RUN}{acc_bad}:fth:x`,
      `${RUN}{acc_bad}:rq:x`,
    ];
    await expect(
      RESERVE_SCRIPT.run(redis, keys, ['1,10,10,10,10,0,0,0,3,120,86400', '', '1']),
    ).rejects.toThrow(/reserve wants 12 finite numbers/);
    await expect(
      RESERVE_SCRIPT.run(redis, keys, ['1,Infinity,10,10,10,0,0,0,3,120,86400,90', '', '1']),
    ).rejects.toThrow(/reserve wants 12 finite numbers/);
    expect(await redis.exists(key, `${RUN}{acc_bad}:rq:x`)).toBe(0);
  });

  it('refuses a prefix that would move the hash tag', () => {
    expect(() => new RedisMeterStore({ redis, prefix: 'a{b}:' })).toThrow(/must not contain braces/);
  });
});
