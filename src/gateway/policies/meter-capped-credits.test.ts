import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';
import { smallPlan } from '../../../test/support/small-plan';

// A detail call for a document new today, over the full-text cap, on an account whose quota is
// spent and whose credits pay: the call is reserved (only the upstream knows whether the id
// exists), but its credit is spent only when the id turns out unknown.
let h: Harness;
beforeAll(async () => {
  h = await startHarness((raw) => {
    raw.plans.plans.capped = smallPlan({ monthly_calls: 1, full_text_daily: 1, extra_credits: true });
    // A call held by the stub (*_held) waits for the test, not for a deadline.
    raw.upstreams.upstreams.legal!.timeout_ms = 30_000;
  });
});
afterAll(() => h.close());

const get = (key: string, path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);

/** An account whose one monthly call opened its one full-text document of the day, with credits. */
async function spentAccount(credits: number, order: string): Promise<{ id: string; key: string }> {
  const acc = await h.account('capped');
  await h.deps.credits.purchase(acc.id, credits, order);
  expect((await get(acc.key, '/v1/legal-documents/vb_11')).status).toBe(200);
  return acc;
}

describe('meter: a call over the full-text cap, paid by credits', () => {
  it('does not hold the credit another call draws while the capped call waits for the upstream', async () => {
    const acc = await spentAccount(1, 'capped-1');
    const capped = get(acc.key, '/v1/legal-documents/vb_12_held').then((r) => r);
    const upstreamHas = () => h.stub.seen.some((s) => s.path.endsWith('vb_12_held'));
    while (!upstreamHas()) await new Promise((r) => setTimeout(r, 20));
    const list = await get(acc.key, '/v1/legal-documents?q=luat');
    expect([list.status, list.body.code]).toEqual([200, undefined]);
    // Released, the document exists: over the cap, with no credit left to pay even the call.
    h.stub.release();
    const late = await capped;
    expect([late.status, late.body.code]).toEqual([429, 'quota_exceeded']);
    expect(await h.deps.credits.balance(acc.id)).toBe(0);
  });

  it('spends the credit once the upstream says the id is unknown: the 404 counts', async () => {
    const acc = await spentAccount(1, 'capped-2');
    const missing = await get(acc.key, '/v1/legal-documents/vb_missing');
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    expect(await h.deps.credits.balance(acc.id)).toBe(0);
    const me = (await get(acc.key, '/v1/me')).body.data;
    expect([me.quota.monthly_used, me.quota.full_text_used_today, me.extra_credits]).toEqual([1, 1, 0]);
  });

  it('serves a document without full text over the cap, and spends its credit', async () => {
    const acc = await spentAccount(2, 'capped-5');
    const none = await get(acc.key, '/v1/legal-documents/vb_14_notext');
    expect([none.status, none.body.data.content_html]).toEqual([200, null]);
    expect(await h.deps.credits.balance(acc.id)).toBe(1);
    const me = (await get(acc.key, '/v1/me')).body.data;
    expect([me.quota.monthly_used, me.quota.full_text_used_today, me.extra_credits]).toEqual([1, 1, 1]);
  });

  it('answers full_text_limit for a new document over the cap while credits remain, and spends none', async () => {
    const acc = await spentAccount(2, 'capped-4');
    const capped = await get(acc.key, '/v1/legal-documents/vb_13');
    expect([capped.status, capped.body.code]).toEqual([429, 'full_text_limit']);
    expect(await h.deps.credits.balance(acc.id)).toBe(2);
  });

  it('answers quota_exceeded with buy_credits_url, for an unknown id or a new document over the cap, once no credit is left', async () => {
    const acc = await spentAccount(1, 'capped-3');
    expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const missing = await get(acc.key, '/v1/legal-documents/vb_missing');
    expect(missing.status).toBe(429);
    expect(missing.body).toMatchObject({
      code: 'quota_exceeded',
      buy_credits_url: 'https://example.vn/billing/credits',
    });
    const capped = await get(acc.key, '/v1/legal-documents/vb_13');
    expect([capped.status, capped.body.code, capped.body.buy_credits_url]).toEqual([
      429,
      'quota_exceeded',
      'https://example.vn/billing/credits',
    ]);
    const me = (await get(acc.key, '/v1/me')).body.data;
    expect([me.quota.monthly_used, me.extra_credits]).toEqual([1, 0]);
  });
});
