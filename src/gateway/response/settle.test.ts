import { EventEmitter } from 'node:events';
import request from 'supertest';
import { capturedLog } from '../../../test/support/captured-log';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';
import { smallPlan } from '../../../test/support/small-plan';
import { MemoryMeterStore } from '../../metering/memory-meter-store';
import { FailoverMeterStore } from '../../metering/failover-meter-store';
import type { RefundInput, ReserveInput, ReserveResult } from '../../metering/meter-store';
import { createGatewayMetrics } from '../../observability/gateway-metrics';
import { refundReports } from '../../runtime/refund-reports';
import type { RedisClient } from '../../stores/redis-client';
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

/** Counted in Redis (`shared`), whose refunds cannot reach it: the failover store keeps them. */
class SharedRefundsFail extends RefundsFail {
  override async reserve(input: ReserveInput): Promise<ReserveResult> {
    return { ...(await super.reserve(input)), shared: true };
  }
}

describe('settling a call that must not count: the log of a refund Redis cannot take', () => {
  it("names the call's X-Request-Id, so the calls left counted can be found", async () => {
    const { logger, lines } = capturedLog();
    const reports = refundReports(logger, createGatewayMetrics({ defaultMetrics: false }), {
      kept: 'refund kept until redis answers',
      lost: 'refund lost: the call stays counted',
    });
    const meter = new FailoverMeterStore({
      primary: new SharedRefundsFail(),
      fallback: new MemoryMeterStore(),
      // Never 'ready': the kept refund stays kept.
      redis: new EventEmitter() as unknown as RedisClient,
      policy: 'open',
      onRefundKept: reports.onRefundKept,
      onRefundLost: reports.onRefundLost,
    });
    const kept = await startHarness(() => undefined, meter);
    try {
      const acc = await kept.account('free');
      const failed = await request(kept.gw.app)
        .get('/v1/legal-documents?q=boom')
        .set('X-Api-Key', acc.key)
        .set('X-Request-Id', 'req-kept-1');
      expect(failed.status).toBe(503);
      expect(lines.map((l) => [l.msg, l.req_id, l.account_id])).toEqual([
        ['refund kept until redis answers', 'req-kept-1', acc.id],
      ]);
    } finally {
      await kept.close();
    }
  });
});
