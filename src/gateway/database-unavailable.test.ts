import request from 'supertest';
import { DatabaseUnavailableError } from '../db/db';
import { startHarness } from '../../test/support/gateway-harness';
import type { Harness } from '../../test/support/gateway-harness';
import { smallPlan } from '../../test/support/small-plan';

// The database going away under a request that needs it (the credit ledger here; a key not cached
// yet has its own test in authenticate): a dependency's failure, 503 with Retry-After, nothing counted.
let h: Harness;
beforeAll(async () => {
  h = await startHarness((raw) => {
    raw.plans.plans.paid = smallPlan({ monthly_calls: 1, extra_credits: true });
  });
});
afterAll(() => h.close());

const get = (key: string, path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);
const away = () =>
  Promise.reject(new DatabaseUnavailableError(new Error('Connection terminated unexpectedly')));

describe('the database unavailable', () => {
  it('answers GET /v1/me with 503 search_unavailable and Retry-After when the credit balance cannot be read', async () => {
    const { key } = await h.account('pro');
    const balance = h.deps.credits.balance.bind(h.deps.credits);
    h.deps.credits.balance = away;
    try {
      const res = await get(key, '/v1/me');
      expect([res.status, res.body.success, res.body.code]).toEqual([503, false, 'search_unavailable']);
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      h.deps.credits.balance = balance;
    }
  });

  it('answers a call that credits would pay with 503 when the ledger cannot be reached, and counts nothing', async () => {
    const acc = await h.account('paid');
    await h.deps.credits.purchase(acc.id, 5, 'order-db-away');
    expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const spend = h.deps.credits.spend.bind(h.deps.credits);
    h.deps.credits.spend = away;
    try {
      const res = await get(acc.key, '/v1/legal-documents?q=luat');
      expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([
        503,
        'search_unavailable',
        '5',
      ]);
    } finally {
      h.deps.credits.spend = spend;
    }
    const me = (await get(acc.key, '/v1/me')).body.data;
    expect([me.quota.monthly_used, me.quota.daily_used, me.extra_credits]).toEqual([1, 1, 5]);
  });

  it('gives back a credit whose spend the database committed but whose answer was lost', async () => {
    const acc = await h.account('paid');
    await h.deps.credits.purchase(acc.id, 5, 'order-lost-answer');
    expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200);
    const spend = h.deps.credits.spend.bind(h.deps.credits);
    h.deps.credits.spend = async (...args) => {
      await spend(...args);
      throw new DatabaseUnavailableError(new Error('Query read timeout'));
    };
    try {
      const res = await get(acc.key, '/v1/legal-documents?q=luat');
      expect([res.status, res.body.code]).toEqual([503, 'search_unavailable']);
    } finally {
      h.deps.credits.spend = spend;
    }
    expect(await h.deps.credits.balance(acc.id)).toBe(5);
  });
});
