import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';
import { smallPlan } from '../../../test/support/small-plan';
import { MemoryMeterStore } from '../../metering/memory-meter-store';
import type { RefundInput } from '../../metering/meter-store';
import { StoreUnavailableError } from '../../metering/meter-store';

/** Counters whose refunds fail, as Redis does when it goes away between a call and its settling. */
class RefundsFail extends MemoryMeterStore {
  override refund(_input: RefundInput): Promise<{ applied: boolean }> {
    return Promise.reject(new StoreUnavailableError('counters unreachable'));
  }
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness((raw) => {
    raw.plans.plans.paid = smallPlan({ monthly_calls: 1, extra_credits: true });
  }, new RefundsFail());
});
afterAll(() => h.close());

const get = (key: string, path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);

describe('settling a call that must not count: errors', () => {
  it('gives a credit back when the call it paid for fails, even while the counters cannot take their refund', async () => {
    const acc = await h.account('paid');
    await h.deps.credits.purchase(acc.id, 2, 'order-settle-1');
    expect((await get(acc.key, '/v1/legal-documents?q=luat')).status).toBe(200); // the month's one call
    const failed = await get(acc.key, '/v1/legal-documents?q=boom');
    expect([failed.status, failed.body.code]).toEqual([503, 'search_unavailable']);
    expect(await h.deps.credits.balance(acc.id)).toBe(2);
    const text = await h.deps.metrics.registry.getSingleMetricAsString('lookup_quota_refund_failures_total');
    expect(text).toMatch(/lookup_quota_refund_failures_total [1-9]/);
  });
});
