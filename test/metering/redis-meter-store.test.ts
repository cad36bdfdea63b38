import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
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
      source: 'quota',
      dayKey: windows.dayKey,
      monthKey: windows.monthKey,
    });
    await s.recordIds('acc_k', 'legal', windows.dayKey, ['a']);
    expect(res.ok).toBe(true);
    const keys = (await redis.keys(`${RUN}*`)).sort();
    expect(keys).toEqual(
      [
        `${RUN}{acc_k}:d:${windows.dayKey}`,
        `${RUN}{acc_k}:ft:${windows.dayKey}`,
        `${RUN}{acc_k}:ids:legal:${windows.dayKey}`,
        `${RUN}{acc_k}:m:${windows.epochMinute}`,
        `${RUN}{acc_k}:mo:${windows.monthKey}`,
        `${RUN}{acc_k}:rf:rq1`,
        `${RUN}{acc_k}:s:${windows.epochSecond}`,
      ].sort(),
    );
    const ttl = async (k: string) => redis.ttl(`${RUN}{acc_k}:${k}`);
    expect(await ttl(`s:${windows.epochSecond}`)).toBeLessThanOrEqual(windows.ttl.second);
    expect(await ttl(`m:${windows.epochMinute}`)).toBeGreaterThan(60);
    expect(await ttl(`d:${windows.dayKey}`)).toBeGreaterThan(86_400);
    expect(await ttl(`d:${windows.dayKey}`)).toBeLessThanOrEqual(2 * 86_400);
    expect(await ttl(`ft:${windows.dayKey}`)).toBeLessThanOrEqual(2 * 86_400);
    expect(await ttl(`mo:${windows.monthKey}`)).toBeLessThanOrEqual(35 * 86_400);
    expect(await ttl(`mo:${windows.monthKey}`)).toBeGreaterThan(4 * 86_400);
    expect(await ttl('rf:rq1')).toBeGreaterThan(600);
    expect(await ttl(`ids:legal:${windows.dayKey}`)).toBe(31 * 86_400);
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
    const calls = ['evalsha', 'eval', 'pipeline', 'mget', 'pfcount', 'pfadd'] as const;
    const spies = calls.map((c) => jest.spyOn(redis, c));
    const count = () => spies.reduce((n, sp) => n + sp.mock.calls.length, 0);
    await s.reserve({
      accountId: 'acc_rt',
      requestId: 'r1',
      cost: 2,
      limits: { perSecond: 10, perMinute: 10, daily: 10, monthly: 10 },
      windows,
      creditsAllowed: false,
    });
    expect(count()).toBe(1);
    await s.refund({
      accountId: 'acc_rt',
      requestId: 'r1',
      cost: 2,
      source: 'quota',
      dayKey: windows.dayKey,
      monthKey: windows.monthKey,
    });
    expect(count()).toBe(2);
    await s.peek('acc_rt', windows);
    expect(count()).toBe(3);
    await s.recordAndCount('acc_rt', 'legal', windows.dayKey, ['a', 'b'], [windows.dayKey]);
    expect(count()).toBe(4);
    spies.forEach((sp) => sp.mockRestore());
  });

  it('refuses a prefix that would move the hash tag', () => {
    expect(() => new RedisMeterStore({ redis, prefix: 'a{b}:' })).toThrow();
  });
});
