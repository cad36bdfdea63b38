import request from 'supertest';
import { issueKey } from '../../accounts/issue-key';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';
import { smallPlan } from '../../../test/support/small-plan';
import { computeWindows } from '../../metering/windows';

let h: Harness;
beforeAll(async () => {
  h = await startHarness((raw) => {
    // Small numbers so limits are reached in a few calls.
    raw.plans.plans.tiny = smallPlan({
      monthly_calls: 5,
      daily_calls: 4,
      full_text_daily: 2,
      ip_allowlist: true,
      extra_credits: true,
    });
    raw.plans.plans.nocredit = smallPlan({ monthly_calls: 2 });
    raw.plans.plans.spent = smallPlan({ monthly_calls: 1, per_second: 3, extra_credits: true });
    raw.plans.plans.slow = smallPlan({ per_minute: 3, per_second: 2 });
    raw.plans.plans.onetext = smallPlan({ monthly_calls: 5, full_text_daily: 1 });
    raw.plans.plans.burst = smallPlan({ monthly_calls: 2, daily_calls: 5, extra_credits: true });
    raw.plans.plans.textday = smallPlan({ monthly_calls: 5, daily_calls: 3, full_text_daily: 1 });
    raw.plans.plans.dayandmonth = smallPlan({ monthly_calls: 4, daily_calls: 2 });
    // A call held by the stub (*_held) waits for the test, not for a deadline.
    raw.upstreams.upstreams.legal!.timeout_ms = 30_000;
  });
});
afterAll(() => h.close());

const get = (key: string, path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);
const me = async (key: string) => (await get(key, '/v1/me')).body.data;

describe('meter: counting', () => {
  it('counts 1 per data call, 2 for relations, and nothing for /v1/me or /v1/datasets', async () => {
    const { key } = await h.account('pro');
    await get(key, '/v1/legal-documents?q=luat');
    await get(key, '/v1/legal-documents/vb_1/relations');
    await get(key, '/v1/me');
    await get(key, '/v1/datasets');
    expect((await me(key)).quota.monthly_used).toBe(3);
  });

  it('counts a 404 for an unknown id, but not a mistyped endpoint', async () => {
    const { key } = await h.account('pro');
    expect((await get(key, '/v1/legal-documents/vb_missing')).status).toBe(404);
    expect((await get(key, '/v1/legal-documents/not-an-id')).status).toBe(404);
    expect((await get(key, '/v1/no-such-dataset')).status).toBe(404);
    expect((await get(key, '/v1/legal-documents/vb_1/nope')).status).toBe(404);
    expect((await me(key)).quota.monthly_used).toBe(2);
  });

  it('refunds upstream parameter errors and upstream failures, a list the upstream does not serve among them', async () => {
    const { key } = await h.account('pro');
    expect((await get(key, '/v1/legal-documents?q=bad')).status).toBe(422);
    expect((await get(key, '/v1/legal-documents?q=boom')).status).toBe(503);
    expect((await get(key, '/v1/legal-documents/vb_boom')).status).toBe(503);
    expect((await get(key, '/v1/legal-documents?q=garbage')).status).toBe(503);
    const gone = await get(key, '/v1/legal-documents?q=gone');
    expect([gone.status, gone.body.code]).toEqual([503, 'search_unavailable']);
    expect((await me(key)).quota.monthly_used).toBe(0);
  });

  it('shows the same remaining quota in headers, /v1/me and error fields', async () => {
    const { key } = await h.account('tiny');
    const r1 = await get(key, '/v1/legal-documents?q=luat');
    expect(r1.headers['x-quota-limit']).toBe('5');
    expect(r1.headers['x-quota-remaining']).toBe('4');
    await get(key, '/v1/legal-documents?q=bad');
    const m = await get(key, '/v1/me');
    expect(m.headers['x-quota-remaining']).toBe('4');
    expect(m.body.data.quota.monthly_remaining).toBe(4);
    expect(m.headers['ratelimit']).toContain('"month";r=4');
  });

  it("states each plan's own second, minute, day and month quotas in RateLimit-Policy", async () => {
    const tiny = await h.account('tiny');
    const slow = await h.account('slow');
    const a = await get(tiny.key, '/v1/legal-documents?q=luat');
    const b = await get(slow.key, '/v1/legal-documents?q=luat');
    expect(a.headers['ratelimit-policy']).toBe(
      '"second";q=100;w=1, "minute";q=100;w=60, "day";q=4;w=86400, "month";q=5;w=2678400',
    );
    expect(b.headers['ratelimit-policy']).toBe(
      '"second";q=2;w=1, "minute";q=3;w=60, "day";q=100;w=86400, "month";q=100;w=2678400',
    );
    // 10:00 in Asia/Ho_Chi_Minh: 14 hours to the day's end.
    expect(a.headers.ratelimit).toMatch(
      /^"second";r=99;t=1, "minute";r=99;t=\d+, "day";r=3;t=50400, "month";r=4;t=\d+$/,
    );
  });
});

describe('meter: limits', () => {
  it('answers 429 quota_exceeded with quota, reset_in_seconds, upgrade_url and Retry-After when the daily limit is spent', async () => {
    const { key } = await h.account('tiny');
    for (let i = 0; i < 4; i++) expect((await get(key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const res = await get(key, '/v1/legal-documents?q=luat');
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      success: false,
      code: 'quota_exceeded',
      quota: 4,
      upgrade_url: 'https://example.vn/pricing',
    });
    // The tiny plan can buy credits: told the day's limit holds for them too.
    expect(res.body.message).toBe(
      'Đã dùng hết số lượt gọi trong ngày (hạn mức ngày, áp dụng cả khi dùng extra credits).',
    );
    expect(res.body.reset_in_seconds).toBe(14 * 3600); // 10:00 → midnight in Asia/Ho_Chi_Minh
    expect(res.headers['retry-after']).toBe(String(14 * 3600));
  });

  it('does not speak of extra credits to a plan that cannot buy them when its day is spent', async () => {
    const { key } = await h.account('dayandmonth');
    for (let i = 0; i < 2; i++) expect((await get(key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const res = await get(key, '/v1/legal-documents?q=luat');
    expect([res.status, res.body.code, res.body.quota]).toEqual([429, 'quota_exceeded', 2]);
    expect(res.body.message).toBe('Đã dùng hết số lượt gọi trong ngày.');
  });

  it('answers quota_exceeded for the month on a plan without extra credits, and costs nothing', async () => {
    const { key } = await h.account('nocredit');
    await get(key, '/v1/legal-documents?q=luat');
    await get(key, '/v1/legal-documents?q=luat');
    const res = await get(key, '/v1/legal-documents?q=luat');
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('quota_exceeded');
    expect(res.body.quota).toBe(2);
    expect(res.body.message).toBe('Đã dùng hết số lượt gọi trong tháng.');
    expect(res.body.buy_credits_url).toBeUndefined();
    expect((await me(key)).quota.monthly_used).toBe(2);
  });

  it('names the month, and points Retry-After to the 1st, when the day and the month are both spent without credits', async () => {
    const { key } = await h.account('dayandmonth');
    const start = h.clock.now();
    try {
      for (let i = 0; i < 4; i++) {
        if (i === 2) h.clock.advance(86_400_000);
        expect((await get(key, '/v1/legal-documents?q=luat')).status).toBe(200);
      }
      const res = await get(key, '/v1/legal-documents?q=luat');
      expect([res.status, res.body.code, res.body.quota, res.body.message]).toEqual([
        429,
        'quota_exceeded',
        4,
        'Đã dùng hết số lượt gọi trong tháng.',
      ]);
      const reset = Number(res.headers['retry-after']);
      expect(reset).toBe(res.body.reset_in_seconds);
      expect(reset).toBeGreaterThan(86_400);
    } finally {
      h.clock.set(start);
    }
  });

  it('draws extra credits past the monthly quota, then answers 429 with buy_credits_url', async () => {
    const acc = await h.account('tiny');
    await h.deps.credits.purchase(acc.id, 1, 'order-1');
    h.clock.advance(86_400_000); // a new day: the daily limit (4) must not get in the way
    for (let i = 0; i < 5; i++) {
      if (i === 4) h.clock.advance(86_400_000);
      expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    }
    const viaCredit = await get(acc.key, '/v1/legal-documents?q=luat');
    expect(viaCredit.status).toBe(200);
    expect(viaCredit.headers['x-quota-remaining']).toBe('0');
    // The plan's quota is spent, but paid calls remain until the credit is used: here none.
    expect(viaCredit.headers.ratelimit).toMatch(/"month";r=0;t=\d+$/);
    expect(await h.deps.credits.balance(acc.id)).toBe(0);
    const res = await get(acc.key, '/v1/legal-documents?q=luat');
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      code: 'quota_exceeded',
      buy_credits_url: 'https://example.vn/billing/credits',
      upgrade_url: 'https://example.vn/pricing',
    });
    h.clock.set(h.clock.now() - 2 * 86_400_000);
  });

  it('counts the credits left in the "month" remainder of every answer past the quota, also of one that spent none', async () => {
    const acc = await h.account('tiny');
    await h.deps.credits.purchase(acc.id, 7, 'order-month-remainder');
    const start = h.clock.now();
    try {
      for (let i = 0; i < 5; i++) {
        if (i === 4) h.clock.advance(86_400_000);
        expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
      }
      const month = (res: { headers: Record<string, string> }) =>
        /"month";r=(\d+)/.exec(res.headers.ratelimit!)?.[1];
      const paid = await get(acc.key, '/v1/legal-documents?q=luat');
      expect([paid.status, month(paid)]).toEqual([200, '6']);
      const bad = await get(acc.key, '/v1/legal-documents?q=luat&page=abc');
      expect([bad.status, month(bad), bad.headers['x-quota-remaining']]).toEqual([422, '6', '0']);
      const datasets = await get(acc.key, '/v1/datasets');
      expect([datasets.status, month(datasets)]).toEqual([200, '6']);
      const viaMe = await get(acc.key, '/v1/me');
      expect(month(viaMe)).toBe('6');
      // A burst of answers that spend nothing reads the ledger once a second, not once each.
      const balance = jest.spyOn(h.deps.credits, 'balance');
      try {
        h.clock.advance(1001);
        for (let i = 0; i < 3; i++) expect(month(await get(acc.key, '/v1/datasets'))).toBe('6');
        expect(balance).toHaveBeenCalledTimes(1);
        // At once, too: answers waiting together share the read in progress.
        h.clock.advance(1001);
        const burst = await Promise.all([1, 2, 3, 4].map(() => get(acc.key, '/v1/datasets')));
        expect(burst.map(month)).toEqual(['6', '6', '6', '6']);
        expect(balance).toHaveBeenCalledTimes(2);
        // A ledger that fails is asked again a second later, not by every answer meanwhile.
        h.clock.advance(1001);
        balance.mockRejectedValue(new Error('ledger down'));
        const down = await Promise.all([1, 2, 3].map(() => get(acc.key, '/v1/datasets')));
        expect(down.map((r) => [r.status, month(r)])).toEqual([
          [200, '0'],
          [200, '0'],
          [200, '0'],
        ]);
        expect(await get(acc.key, '/v1/datasets').then(month)).toBe('0');
        expect(balance).toHaveBeenCalledTimes(3);
      } finally {
        balance.mockRestore();
      }
    } finally {
      h.clock.set(start);
    }
  });

  it('says quota and credits are both used up (buy_credits_url), not the day, when the day is spent too and no credit is left', async () => {
    const acc = await h.account('tiny');
    h.clock.advance(86_400_000);
    for (let i = 0; i < 4; i++) expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    h.clock.advance(86_400_000);
    await h.deps.credits.purchase(acc.id, 3, 'order-day');
    // The month's last call, then three credits: the day (4) and the month (5) used up, no credit left.
    for (let i = 0; i < 4; i++) expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const res = await get(acc.key, '/v1/legal-documents?q=luat');
    expect([res.status, res.body.code, res.body.quota]).toEqual([429, 'quota_exceeded', 5]);
    expect(res.body).toMatchObject({
      message: 'Đã dùng hết số lượt gọi trong tháng và số lượt mua thêm (extra credits).',
      buy_credits_url: 'https://example.vn/billing/credits',
    });
    // The balance is read once a second per account, not for each refused request.
    const balance = jest.spyOn(h.deps.credits, 'balance');
    try {
      for (let i = 0; i < 3; i++)
        expect((await get(acc.key, '/v1/legal-documents?q=luat')).body.quota).toBe(5);
      expect(balance).not.toHaveBeenCalled();
    } finally {
      balance.mockRestore();
    }
    // With a credit bought, the day's limit is what stands in the way: said as such, within a second.
    await h.deps.credits.purchase(acc.id, 1, 'order-day-2');
    h.clock.advance(1000);
    const daily = await get(acc.key, '/v1/legal-documents?q=luat');
    expect([daily.status, daily.body.quota, daily.body.buy_credits_url]).toEqual([429, 4, undefined]);
    expect(await h.deps.credits.balance(acc.id)).toBe(1);
    h.clock.set(h.clock.now() - 2 * 86_400_000 - 1000);
  });

  it('tells a call refused for the day, just after credits were bought and spent, of the day, not of spent credits', async () => {
    const acc = await h.account('burst');
    for (let i = 0; i < 2; i++) expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const spent = await get(acc.key, '/v1/legal-documents?q=luat');
    expect([spent.status, spent.body.buy_credits_url]).toEqual([429, 'https://example.vn/billing/credits']);
    // Bought within the same second: the credits pay the day's last three calls.
    await h.deps.credits.purchase(acc.id, 5, 'order-after-refusal');
    for (let i = 0; i < 3; i++) expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const daily = await get(acc.key, '/v1/legal-documents?q=luat');
    expect([daily.status, daily.body.code, daily.body.quota, daily.body.buy_credits_url]).toEqual([
      429,
      'quota_exceeded',
      5,
      undefined,
    ]);
    expect(await h.deps.credits.balance(acc.id)).toBe(2);
  });

  it('tells a burst on an account with one credit left, past its quota, that the credits ran out, not the day', async () => {
    const acc = await h.account('burst');
    h.clock.advance(2 * 86_400_000);
    for (let i = 0; i < 2; i++) expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    await h.deps.credits.purchase(acc.id, 1, 'order-burst');
    // Three calls are left in the day: three credit calls reserve it while their spends are on
    // their way (held here until the other seven are refused), and one of them gets the credit;
    // the day itself was never used up.
    const ledger = h.deps.credits;
    const spend = ledger.spend.bind(ledger);
    let refusedSoFar = 0;
    const held = jest.spyOn(ledger, 'spend').mockImplementation(async (...args) => {
      while (refusedSoFar < 7) await new Promise((r) => setTimeout(r, 10));
      return spend(...args);
    });
    let answers;
    try {
      answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          get(acc.key, '/v1/legal-documents?q=luat').then((a) => {
            if (a.status === 429) refusedSoFar++;
            return a;
          }),
        ),
      );
    } finally {
      held.mockRestore();
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => [a.status, a.body.quota, a.body.buy_credits_url])).toEqual(
      Array(9).fill([429, 2, 'https://example.vn/billing/credits']),
    );
    expect((await me(acc.key)).quota).toMatchObject({ daily_used: 3, monthly_used: 2 });
    h.clock.set(h.clock.now() - 2 * 86_400_000);
  });

  it('takes the last monthly call and one credit for a relations call (cost 2) with one call left', async () => {
    const acc = await h.account('tiny');
    await h.deps.credits.purchase(acc.id, 1, 'order-split');
    h.clock.advance(86_400_000);
    for (let i = 0; i < 4; i++) {
      if (i === 2) h.clock.advance(86_400_000); // the daily limit (4) must not get in the way
      expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    }
    const rel = await get(acc.key, '/v1/legal-documents/vb_1/relations');
    expect(rel.status).toBe(200);
    expect(rel.headers['x-quota-remaining']).toBe('0');
    expect(await h.deps.credits.balance(acc.id)).toBe(0);
    const quota = (await me(acc.key)).quota;
    expect(quota).toMatchObject({ monthly_used: 5, monthly_remaining: 0, daily_used: 4 });
    h.clock.set(h.clock.now() - 2 * 86_400_000);
  });

  it('tells a relations call (cost 2) with one call left what is left and what it costs, and takes nothing', async () => {
    const rel = (key: string) => get(key, '/v1/legal-documents/vb_1/relations');
    const month = await h.account('nocredit');
    expect((await get(month.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const short = await rel(month.key);
    expect([short.status, short.body.code, short.body.quota]).toEqual([429, 'quota_exceeded', 2]);
    expect(short.body.message).toBe('Yêu cầu này cần 2 lượt gọi, nhưng chỉ còn 1 lượt trong tháng.');
    expect(short.headers['x-quota-remaining']).toBe('1');
    expect((await get(month.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    expect((await rel(month.key)).body.message).toBe('Đã dùng hết số lượt gọi trong tháng.');

    const day = await h.account('dayandmonth');
    expect((await get(day.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const dayShort = await rel(day.key);
    expect([dayShort.status, dayShort.body.quota]).toEqual([429, 2]);
    expect(dayShort.body.message).toBe('Yêu cầu này cần 2 lượt gọi, nhưng chỉ còn 1 lượt trong ngày.');

    // A plan with credits and none bought: the month's last call is given back with the refusal.
    const credit = await h.account('tiny');
    h.clock.advance(86_400_000);
    for (let i = 0; i < 4; i++) {
      if (i === 2) h.clock.advance(86_400_000);
      expect((await get(credit.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    }
    const both = await rel(credit.key);
    expect([both.status, both.body.buy_credits_url]).toEqual([429, 'https://example.vn/billing/credits']);
    expect(both.body.message).toBe(
      'Yêu cầu này cần 2 lượt gọi, nhưng chỉ còn 1 lượt trong tháng và 0 lượt mua thêm (extra credits).',
    );
    expect((await me(credit.key)).quota).toMatchObject({ monthly_used: 4, daily_used: 2 });
    h.clock.set(h.clock.now() - 2 * 86_400_000);
  });

  it('tells a relations call (cost 2) past the quota with one credit left that one credit is left, and the next call of cost 1 takes it', async () => {
    const acc = await h.account('tiny');
    h.clock.advance(86_400_000);
    for (let i = 0; i < 5; i++) {
      if (i === 3) h.clock.advance(86_400_000); // the daily limit (4) must not get in the way
      expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    }
    await h.deps.credits.purchase(acc.id, 1, 'order-one-short');
    const rel = await get(acc.key, '/v1/legal-documents/vb_1/relations');
    expect([rel.status, rel.body.code, rel.body.buy_credits_url]).toEqual([
      429,
      'quota_exceeded',
      'https://example.vn/billing/credits',
    ]);
    expect(rel.body.message).toBe(
      'Yêu cầu này cần 2 lượt gọi, nhưng chỉ còn 0 lượt trong tháng và 1 lượt mua thêm (extra credits).',
    );
    expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    expect(await h.deps.credits.balance(acc.id)).toBe(0);
    h.clock.set(h.clock.now() - 2 * 86_400_000);
  });

  it('still rate-limits an account whose quota and credits are spent, so its 429s stop before the credit ledger', async () => {
    const acc = await h.account('spent');
    h.clock.advance(1000);
    expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const spend = jest.spyOn(h.deps.credits, 'spend');
    try {
      for (let i = 0; i < 2; i++) {
        const res = await get(acc.key, '/v1/legal-documents?q=luat');
        expect(res.body).toMatchObject({ code: 'quota_exceeded', buy_credits_url: expect.any(String) });
      }
      expect(spend).toHaveBeenCalledTimes(2);
      // Each refused request kept its slot in the second (3 allowed): the next one is stopped in Redis.
      const limited = await get(acc.key, '/v1/legal-documents?q=luat');
      expect(limited.body).toMatchObject({ code: 'rate_limited' });
      expect(spend).toHaveBeenCalledTimes(2);
    } finally {
      spend.mockRestore();
    }
  });

  it('gives a credit back when the call it paid for fails upstream', async () => {
    const acc = await h.account('nocredit');
    await h.accounts.patchAccount(acc.id, { plan: 'tiny' });
    h.deps.keyCache.invalidateAccount(acc.id);
    await h.deps.credits.purchase(acc.id, 3, 'order-2');
    for (let i = 0; i < 3; i++) await get(acc.key, '/v1/legal-documents?q=luat');
    h.clock.advance(86_400_000);
    for (let i = 0; i < 2; i++) await get(acc.key, '/v1/legal-documents?q=luat');
    expect(await h.deps.credits.balance(acc.id)).toBe(3);
    // Paid by a credit: X-Quota-Remaining is the plan's quota left, the "month" remainder the
    // calls still open this month, the credits left included.
    const paid = await get(acc.key, '/v1/legal-documents?q=luat');
    expect([paid.status, paid.headers['x-quota-remaining']]).toEqual([200, '0']);
    expect(paid.headers.ratelimit).toMatch(/"month";r=2;t=\d+$/);
    await h.deps.credits.purchase(acc.id, 1, 'order-2b');
    // /v1/me, with the quota spent, says the same of the month: the credits are what is open.
    const me = await get(acc.key, '/v1/me');
    expect([me.body.data.extra_credits, me.headers['x-quota-remaining']]).toEqual([3, '0']);
    expect(me.headers.ratelimit).toMatch(/"month";r=3;t=\d+$/);
    expect((await get(acc.key, '/v1/legal-documents?q=boom')).status).toBe(503);
    expect(await h.deps.credits.balance(acc.id)).toBe(3);
    expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    expect(await h.deps.credits.balance(acc.id)).toBe(2);
    h.clock.advance(-86_400_000);
  });

  it('answers 429 rate_limited with Retry-After past the per-second window', async () => {
    const { key } = await h.account('slow');
    await get(key, '/v1/legal-documents?q=luat');
    await get(key, '/v1/legal-documents?q=luat');
    const res = await get(key, '/v1/legal-documents?q=luat');
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The fields a client paces itself by say so too: nothing left this second.
    expect(res.headers.ratelimit).toMatch(/^"second";r=0;t=1, /);
  });

  it('shares the quota between the keys of one account', async () => {
    const acc = await h.account('nocredit');
    const { key: other } = await issueKey(h.accounts, acc.id);
    await get(acc.key, '/v1/legal-documents?q=luat');
    await get(other, '/v1/legal-documents?q=luat');
    expect((await get(other, '/v1/legal-documents?q=luat')).body.code).toBe('quota_exceeded');
    expect((await me(acc.key)).quota.monthly_used).toBe(2);
  });
});

describe('meter: full text', () => {
  it('counts distinct documents opened with full text, reopening is free, and the cap answers 429 full_text_limit without consuming a call', async () => {
    const { key } = await h.account('tiny');
    expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
    expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
    expect((await get(key, '/v1/legal-documents/vb_12')).status).toBe(200);
    const capped = await get(key, '/v1/legal-documents/vb_13');
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('full_text_limit');
    const m = await me(key);
    expect(m.quota.full_text_daily_limit).toBe(2);
    expect(m.quota.full_text_used_today).toBe(2);
    expect(m.quota.monthly_used).toBe(3);
  });

  it('over the cap, an unknown id still answers 404 and counts, and a new document answers 429 without counting', async () => {
    const { key } = await h.account('tiny');
    expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
    expect((await get(key, '/v1/legal-documents/vb_12')).status).toBe(200);
    const missing = await get(key, '/v1/legal-documents/vb_missing');
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    expect(missing.headers['x-quota-remaining']).toBe('2');
    const capped = await get(key, '/v1/legal-documents/vb_13');
    expect([capped.status, capped.body.code, capped.body.quota]).toEqual([429, 'full_text_limit', 2]);
    expect(capped.body.reset_in_seconds).toBeGreaterThan(0);
    expect(capped.body.upgrade_url).toBe('https://example.vn/pricing');
    expect(capped.headers['x-quota-remaining']).toBe('2');
    expect(capped.headers['retry-after']).toBe(String(capped.body.reset_in_seconds));
    expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
    const m = await me(key);
    expect([m.quota.monthly_used, m.quota.full_text_used_today]).toEqual([4, 2]);
  });

  it('holds no call of the day while a new document over the cap waits for the upstream: the last call goes to another request', async () => {
    const { key } = await h.account('textday');
    expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
    expect((await get(key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const capped = get(key, '/v1/legal-documents/vb_12_held').then((r) => r);
    const upstreamHas = () => h.stub.seen.some((s) => s.path.endsWith('vb_12_held'));
    while (!upstreamHas()) await new Promise((r) => setTimeout(r, 20));
    // The day's last call (3): the capped call in flight, held by the stub, does not hold it.
    const list = await get(key, '/v1/legal-documents?q=luat');
    expect([list.status, list.body.code, list.headers['x-quota-remaining']]).toEqual([200, undefined, '2']);
    h.stub.release();
    expect((await capped).body.code).toBe('full_text_limit');
    expect((await me(key)).quota).toMatchObject({ daily_used: 3, monthly_used: 3 });
  });

  it('charges a call over the cap that counts, answered after midnight, to the day it was answered in', async () => {
    const { key } = await h.account('textday');
    const start = h.clock.now();
    const toMidnight = computeWindows(start, 'Asia/Ho_Chi_Minh').secondsToDayEnd;
    h.clock.set(start + (toMidnight - 10) * 1000);
    try {
      expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
      // Over the cap (1), a document without full text counts once the upstream says so.
      const late = get(key, '/v1/legal-documents/vb_13_notext_held').then((r) => r);
      while (!h.stub.seen.some((s) => s.path.endsWith('vb_13_notext_held')))
        await new Promise((r) => setTimeout(r, 20));
      h.clock.advance(20_000);
      h.stub.release();
      expect((await late).status).toBe(200);
      expect((await me(key)).quota).toMatchObject({ daily_used: 1, full_text_used_today: 0 });
    } finally {
      h.clock.set(start);
    }
  });

  it('over the cap, an upstream answer without a record is the upstream failing: 503 search_unavailable, not counted', async () => {
    const { key } = await h.account('tiny');
    expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
    expect((await get(key, '/v1/legal-documents/vb_12')).status).toBe(200);
    const broken = await get(key, '/v1/legal-documents/vb_13_shapeless');
    expect([broken.status, broken.body.code, broken.headers['retry-after']]).toEqual([
      503,
      'search_unavailable',
      '5',
    ]);
    expect((await me(key)).quota).toMatchObject({ monthly_used: 2, full_text_used_today: 2 });
  });

  it('does not take a full-text slot for an unknown id', async () => {
    const { key } = await h.account('tiny');
    expect((await get(key, '/v1/legal-documents/vb_missing')).status).toBe(404);
    expect((await me(key)).quota.full_text_used_today).toBe(0);
  });

  it('counts a document made of scanned pages as full text, refused over the cap, and shows Free none of its pages', async () => {
    const { key } = await h.account('onetext');
    expect((await get(key, '/v1/legal-documents/vb_31_scan')).status).toBe(200);
    expect((await me(key)).quota.full_text_used_today).toBe(1);
    expect((await get(key, '/v1/legal-documents/vb_32_scan')).body.code).toBe('full_text_limit');
    const free = await get((await h.account('free')).key, '/v1/legal-documents/vb_33_scan');
    expect([free.status, free.body.data.content_html]).toEqual([200, '<div></div>']);
  });

  it('does not take a full-text slot for a document without full text, and serves it over the cap as a counted call', async () => {
    const { key } = await h.account('onetext');
    const none = await get(key, '/v1/legal-documents/vb_21_notext');
    expect([none.status, none.body.data.content_html]).toEqual([200, null]);
    expect((await get(key, '/v1/legal-documents/vb_22_blank')).status).toBe(200);
    expect((await get(key, '/v1/legal-documents/vb_24_tagsonly')).status).toBe(200);
    expect((await me(key)).quota.full_text_used_today).toBe(0);
    expect((await get(key, '/v1/legal-documents/vb_11')).status).toBe(200);
    expect((await get(key, '/v1/legal-documents/vb_12')).body.code).toBe('full_text_limit');
    const overCap = await get(key, '/v1/legal-documents/vb_23_notext');
    expect([overCap.status, overCap.body.data.id, overCap.headers['x-quota-remaining']]).toEqual([
      200,
      'vb_23_notext',
      '0',
    ]);
    const m = await me(key);
    expect([m.quota.monthly_used, m.quota.full_text_used_today]).toEqual([5, 1]);
  });
});
