import type { Redis } from 'ioredis';
import { FailoverMeterStore, isUnavailableError } from '../../src/metering/failover-meter-store';
import type { FailoverMeterStoreOptions, StoreFailurePolicy } from '../../src/metering/failover-meter-store';
import { MemoryMeterStore } from '../../src/metering/memory-meter-store';
import type { RefundInput, ReserveInput } from '../../src/metering/meter-store';
import { StoreUnavailableError, refundFor } from '../../src/metering/meter-store';
import { RESERVE_SCRIPT } from '../../src/metering/meter-lua';
import { RedisMeterStore } from '../../src/metering/redis-meter-store';
import { computeWindows } from '../../src/metering/windows';
import { createRedisClient, waitForReady } from '../../src/stores/redis-client';
import { PrivateRedis, eventually } from '../support/private-redis';

const LIMITS = { perSecond: 1000, perMinute: 10_000, daily: 1000, monthly: 10_000 };
/**
 * How long each test's Redis stall lasts: far longer than any deadline here, so a pause of the test
 * process before its calls are sent cannot let Redis wake in time to answer them.
 */
const STALL_SECONDS = 3;
/**
 * The deadlines under test: the shared connection's command timeout and the store's own. Both are
 * far under the stall, and long enough that a pause of the test process during an ordinary round
 * trip (before or after a stall) is not taken for Redis stalling.
 */
const CLIENT_TIMEOUT_MS = 1_000;
const STORE_DEADLINE_MS = 500;
let seq = 0;
const input = (accountId: string): ReserveInput => ({
  accountId,
  requestId: `r${++seq}`,
  cost: 1,
  limits: LIMITS,
  windows: computeWindows(Date.now(), 'Asia/Ho_Chi_Minh'),
  creditsAllowed: false,
});

describe('FailoverMeterStore against a redis-server that dies and comes back', () => {
  let server: PrivateRedis;
  let redis: Redis;
  const clientErrors: Error[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    server = await PrivateRedis.start();
    redis = createRedisClient(server.url, {
      commandTimeoutMs: CLIENT_TIMEOUT_MS,
      maxBackoffMs: 100,
      onError: (e) => clientErrors.push(e),
    });
    await waitForReady(redis);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.kill();
    process.off('unhandledRejection', onUnhandled);
  });
  afterEach(() => expect(unhandled).toEqual([]));

  type RefundHooks = Pick<FailoverMeterStoreOptions, 'onRefundKept' | 'onRefundLost'>;
  /** With `client` and `commandTimeoutMs`: a store on another connection, with a deadline of its own. */
  const make = (
    policy: StoreFailurePolicy,
    changes: boolean[] = [],
    client = redis,
    commandTimeoutMs?: number,
    hooks: RefundHooks = {},
  ) =>
    new FailoverMeterStore({
      primary: new RedisMeterStore({ redis: client, prefix: 'f:', commandTimeoutMs }),
      fallback: new MemoryMeterStore(),
      redis: client,
      policy,
      probeIntervalMs: 50,
      onFallbackChange: (active) => changes.push(active),
      ...hooks,
    });
  /** A connection with no command timeout: only the store's own deadline bounds a command. */
  const withoutClientTimeout = async (
    policy: StoreFailurePolicy,
    changes: boolean[] = [],
    hooks: RefundHooks = {},
  ) => {
    const bare = createRedisClient(server.url, { commandTimeoutMs: 0, maxBackoffMs: 100 });
    await waitForReady(bare);
    return { bare, store: make(policy, changes, bare, STORE_DEADLINE_MS, hooks) };
  };

  it('loads the script with EVAL on a fresh server (NOSCRIPT), then runs it by digest', async () => {
    expect(await redis.script('EXISTS', RESERVE_SCRIPT.sha)).toEqual([0]);
    const store = new RedisMeterStore({ redis, prefix: 'ns:' });
    const sent = jest.spyOn(redis, 'sendCommand');
    await store.reserve(input('acc_ns'));
    expect(sent.mock.calls.map(([c]) => c.name)).toEqual(['evalsha', 'eval']);
    expect(await redis.script('EXISTS', RESERVE_SCRIPT.sha)).toEqual([1]);
    sent.mockClear();
    await store.reserve(input('acc_ns'));
    expect(sent.mock.calls.map(([c]) => c.name)).toEqual(['evalsha']);
    sent.mockRestore();
  });

  it("open: counts locally while Redis is down, reports it, and returns to Redis on 'ready'", async () => {
    const changes: boolean[] = [];
    const open = make('open', changes);
    const closedChanges: boolean[] = [];
    const closed = make('closed', closedChanges);

    expect(await open.reserve(input('acc_a'))).toMatchObject({ ok: true, usage: { daily: 1 } });
    expect(await open.reserve(input('acc_a'))).toMatchObject({ ok: true, usage: { daily: 2 } });
    expect(open.fallbackActive()).toBe(false);

    await server.kill();

    // Local limits: the replica's memory starts from zero.
    expect(await open.reserve(input('acc_a'))).toMatchObject({ ok: true, usage: { daily: 1 } });
    expect(open.fallbackActive()).toBe(true);
    expect(changes).toEqual([true]);
    const localInput = input('acc_a');
    const local = await open.reserve(localInput);
    expect(local).toMatchObject({ ok: true, usage: { daily: 2 } });
    expect((await open.peek('acc_a', input('acc_a').windows)).daily).toBe(2);
    expect(await open.recordAndCount('acc_a', 'legal', '2026-11-14', ['x', 'y'], ['2026-11-14'])).toEqual({
      distinct: 2,
      grew: true,
    });

    // Closed refuses, and reports it as open does: with closed, the replicas turn unready and
    // their 5xx rate has no traffic left to show the outage.
    await expect(closed.reserve(input('acc_a'))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(closed.peek('acc_a', input('acc_a').windows)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(closed.fallbackActive()).toBe(true);
    expect(closedChanges).toEqual([true]);

    await server.restart();
    await eventually(() => !open.fallbackActive() && !closed.fallbackActive());
    expect(changes).toEqual([true, false]);
    expect(closedChanges).toEqual([true, false]);

    // Back on Redis (a fresh server without persistence: counting restarts there).
    expect(await open.reserve(input('acc_a'))).toMatchObject({ ok: true, usage: { daily: 1 } });
    const key = `f:{acc_a}:d:${input('acc_a').windows.dayKey}`;
    expect(await redis.get(key)).toBe('1');
    expect(await closed.reserve(input('acc_a'))).toMatchObject({ ok: true, usage: { daily: 2 } });
    // A call counted locally whose upstream failed once Redis was back: given back where it was
    // counted, never taken from Redis's count, which did not hold it.
    expect(await open.refund(refundFor(localInput, local)!)).toEqual({ applied: true });
    expect(await redis.get(key)).toBe('2');
    await open.close();
    await closed.close();
  });

  it('open: falls back on a command timeout and probes its way back when Redis answers again', async () => {
    const changes: boolean[] = [];
    const open = make('open', changes);
    expect((await open.reserve(input('acc_t'))).ok).toBe(true);

    await server.stall(STALL_SECONDS, async () => {
      expect(await open.reserve(input('acc_t'))).toMatchObject({ ok: true, usage: { daily: 1 } });
      expect(changes).toEqual([true]);
    });
    // The timed-out script still ran once Redis woke up: a timeout is "unknown", not "not counted".
    const dayKey = `f:{acc_t}:d:${input('acc_t').windows.dayKey}`;
    await eventually(async () => (await redis.get(dayKey)) === '2');

    await eventually(async () => {
      await open.reserve(input('acc_t'));
      return !open.fallbackActive();
    });
    expect(changes).toEqual([true, false]);
    const back = await open.reserve(input('acc_t'));
    expect(await redis.get(dayKey)).toBe(String(back.usage.daily));
    await open.close();
  });

  it('closed: reports a command timeout, and clears the report once Redis takes a write again', async () => {
    const changes: boolean[] = [];
    const closed = make('closed', changes);
    expect((await closed.reserve(input('acc_ct'))).ok).toBe(true);
    await server.stall(STALL_SECONDS, async () => {
      await expect(closed.reserve(input('acc_ct'))).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(changes).toEqual([true]);
    });
    // No reconnect, so no 'ready': the probe a refused call starts is what clears it.
    await eventually(async () => {
      await closed.reserve(input('acc_ct')).catch(() => undefined);
      return !closed.fallbackActive();
    });
    expect(changes).toEqual([true, false]);
    expect((await closed.reserve(input('acc_ct'))).ok).toBe(true);
    await closed.close();
  });

  it("open: falls back at the store's own deadline when the client has no command timeout", async () => {
    const changes: boolean[] = [];
    const { bare, store: open } = await withoutClientTimeout('open', changes);
    expect((await open.reserve(input('acc_d'))).ok).toBe(true);

    await server.stall(STALL_SECONDS, async () => {
      const t0 = Date.now();
      expect(await open.reserve(input('acc_d'))).toMatchObject({ ok: true, usage: { daily: 1 } });
      // The store's deadline, not Redis waking up at STALL_SECONDS.
      expect(Date.now() - t0).toBeLessThan(STORE_DEADLINE_MS + 1_000);
      expect(changes).toEqual([true]);
    });
    await eventually(async () => {
      await open.reserve(input('acc_d'));
      return !open.fallbackActive();
    });
    expect(changes).toEqual([true, false]);
    bare.disconnect();
    await open.close();
  });

  it('closed: a reserve refused at its deadline is undone when Redis runs it after a stall, so the 503 costs nothing', async () => {
    const { bare, store: closed } = await withoutClientTimeout('closed');
    expect(await closed.reserve(input('acc_late'))).toMatchObject({ ok: true, usage: { daily: 1 } });
    await server.stall(STALL_SECONDS, async () => {
      // Three calls opening one document's full text: the first would add it to the day's set.
      const opening = (): ReserveInput => ({ ...input('acc_late'), fullText: { docId: 'ld:vb_1', cap: 5 } });
      const refused = await Promise.allSettled([1, 2, 3].map(() => closed.reserve(opening())));
      expect(refused.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    });
    // Redis ran the three reserves when it woke up; each was given back: calls, quota, the document.
    const w = input('acc_late').windows;
    const key = `f:{acc_late}:d:${w.dayKey}`;
    await eventually(async () => (await redis.get(key)) === '1');
    await eventually(async () => (await redis.scard(`f:{acc_late}:ft:${w.dayKey}`)) === 0);
    expect(await redis.get(`f:{acc_late}:mo:${w.monthKey}`)).toBe('1');
    expect(await closed.reserve(input('acc_late'))).toMatchObject({
      ok: true,
      usage: { daily: 2, monthly: 2 },
    });
    bare.disconnect();
    await closed.close();
  });

  it('closed: a capped reserve Redis runs after a stall gives back nothing it did not take, and a charge run late is given back', async () => {
    const { bare, store: closed } = await withoutClientTimeout('closed');
    // Two calls counted, and the day's one full-text document opened.
    const opening = (docId: string): ReserveInput => ({ ...input('acc_cap'), fullText: { docId, cap: 1 } });
    expect(await closed.reserve(opening('ld:vb_1'))).toMatchObject({ ok: true, fullTextAdded: true });
    expect(await closed.reserve(input('acc_cap'))).toMatchObject({ ok: true, usage: { daily: 2 } });
    await server.stall(STALL_SECONDS, async () => {
      // A new document over the cap (only rate slots), and a charge (day and month, no rate slot).
      const charge: ReserveInput = {
        ...input('acc_cap'),
        limits: { perSecond: 0, perMinute: 0, daily: 100, monthly: 100 },
      };
      const refused = await Promise.allSettled([closed.reserve(opening('ld:vb_2')), closed.reserve(charge)]);
      expect(refused.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    });
    const w = input('acc_cap').windows;
    // The charge ran late and was given back (one refund marker); the capped reserve took no call
    // to give back, and gave none.
    await eventually(async () => (await redis.keys('f:{acc_cap}:rf:late-*')).length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(await redis.keys('f:{acc_cap}:rf:late-*')).toHaveLength(1);
    expect(await redis.get(`f:{acc_cap}:d:${w.dayKey}`)).toBe('2');
    expect(await redis.get(`f:{acc_cap}:mo:${w.monthKey}`)).toBe('2');
    expect(await redis.smembers(`f:{acc_cap}:ft:${w.dayKey}`)).toEqual(['ld:vb_1']);
    bare.disconnect();
    await closed.close();
  });

  it.each(['open', 'closed'] as const)(
    '%s: keeps a refund Redis cannot take for a call counted there, and gives it there once, when Redis answers',
    async (policy) => {
      const kept: RefundInput[] = [];
      const lost: RefundInput[] = [];
      const { bare, store } = await withoutClientTimeout(policy, [], {
        onRefundKept: (i) => kept.push(i),
        onRefundLost: (i) => lost.push(i),
      });
      try {
        const account = `acc_keep_${policy}`;
        const first = input(account);
        const reserved = await store.reserve(first);
        await store.reserve(input(account));
        const key = `f:{${account}}:d:${first.windows.dayKey}`;
        expect(await redis.get(key)).toBe('2');
        // The gateway's connection is lost (Redis itself keeps its counts): the refund cannot be
        // sent, and is kept rather than applied to this replica's local counters.
        bare.disconnect();
        expect(await store.refund(refundFor(first, reserved)!)).toEqual({ applied: false });
        expect([kept.length, store.keptRefunds()]).toEqual([1, 1]);
        expect(await redis.get(key)).toBe('2');
        // Connected again: the kept refund is given to Redis, once.
        await eventually(() => bare.status === 'end');
        await bare.connect();
        await eventually(() => store.keptRefunds() === 0);
        expect(await redis.get(key)).toBe('1');
        expect(lost).toEqual([]);
        expect((await store.peek(account, first.windows)).daily).toBe(1);
        expect(await store.refund(refundFor(first, reserved)!)).toEqual({ applied: false });
        expect(await redis.get(key)).toBe('1');
      } finally {
        bare.disconnect();
        await store.close();
      }
    },
  );

  it("closed: the store's own deadline also bounds peeks and pipelines", async () => {
    const { bare, store: closed } = await withoutClientTimeout('closed');
    // Both calls must fail at their deadline; Redis wakes long after the second is sent.
    await server.stall(STALL_SECONDS, async () => {
      const w = input('acc_d').windows;
      await expect(closed.peek('acc_d', w)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(
        closed.recordAndCount('acc_d', 'legal', w.dayKey, ['x'], [w.dayKey]),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
    });
    bare.disconnect();
    await closed.close();
  });

  it('takes a Redis that refuses writes for want of memory as unreachable until it takes one: open counts on the fallback, closed refuses', async () => {
    const switches: boolean[] = [];
    const storeOn = (policy: StoreFailurePolicy) =>
      new FailoverMeterStore({
        primary: new RedisMeterStore({ redis, prefix: 'oom:' }),
        fallback: new MemoryMeterStore(),
        redis,
        policy,
        probeIntervalMs: 50,
        onFallbackChange: (active) => switches.push(active),
      });
    const open = storeOn('open');
    const closed = storeOn('closed');
    await redis.config('SET', 'maxmemory', '1');
    try {
      await expect(new RedisMeterStore({ redis, prefix: 'oom:' }).reserve(input('acc_oom'))).rejects.toThrow(
        /OOM/,
      );
      await expect(open.reserve(input('acc_oom'))).resolves.toMatchObject({ ok: true });
      expect(open.fallbackActive()).toBe(true);
      // Its probes find Redis still refusing writes (it answers a PING): it stays on the fallback.
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 80));
        await expect(open.reserve(input('acc_oom'))).resolves.toMatchObject({ ok: true });
      }
      expect(switches).toEqual([true]);
      await expect(closed.reserve(input('acc_oom'))).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await redis.config('SET', 'maxmemory', '0');
      await open.close();
      await closed.close();
    }
  });

  it('rethrows errors that are not about reaching Redis', async () => {
    expect(
      isUnavailableError(Object.assign(new Error('ERR wrong number of arguments'), { name: 'ReplyError' })),
    ).toBe(false);
    expect(isUnavailableError(Object.assign(new Error('LOADING dataset'), { name: 'ReplyError' }))).toBe(
      true,
    );
    expect(isUnavailableError(new Error('Connection is closed.'))).toBe(true);
    const reply = (message: string) =>
      isUnavailableError(Object.assign(new Error(message), { name: 'ReplyError' }));
    expect(reply('MISCONF Redis is configured to save RDB snapshots, but it is currently not able to')).toBe(
      true,
    );
    expect(
      reply(
        "ERR Error running script (call to f_07b3): @user_script:47: -OOM command not allowed when used memory > 'maxmemory'.",
      ),
    ).toBe(true);
    expect(
      reply(
        'ERR Error running script (call to f_07b3): @user_script:47: Script attempted to access a non local key',
      ),
    ).toBe(false);
    const failing = new RedisMeterStore({ redis, prefix: 'e:' });
    jest
      .spyOn(failing, 'reserve')
      .mockRejectedValueOnce(Object.assign(new Error('ERR bug'), { name: 'ReplyError' }));
    const store = new FailoverMeterStore({
      primary: failing,
      fallback: new MemoryMeterStore(),
      redis,
      policy: 'open',
    });
    await expect(store.reserve(input('acc_e'))).rejects.toThrow('ERR bug');
    expect(store.fallbackActive()).toBe(false);
    await store.close();
  });
});
