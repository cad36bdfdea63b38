import type { ErrorCode } from '../../errors/catalogue';
import { refundFor, usageAfterRefund } from '../../metering/meter-store';
import type { RefundInput } from '../../metering/meter-store';
import type { RequestContext } from '../context';
import type { GatewayDeps } from '../deps';

/** Outcomes that must not count (API reference, Limits): parameter errors, server errors, full_text_limit. */
const REFUNDED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_request',
  'page_limit',
  'search_unavailable',
  'internal_error',
  'full_text_limit',
]);

/**
 * Settlement after the upstream answered: gives back what must not count, once per request.
 * A 404 for an unknown id counts, but it opened no document, so its full-text slot goes back; so
 * does a document without full text, which opened none.
 */
export function settle(
  ctx: RequestContext,
  deps: GatewayDeps,
  status: number,
  code?: ErrorCode,
): Promise<void> | undefined {
  const r = ctx.reservation;
  if (!r || r.settled) return undefined;
  r.settled = true;
  const refundCalls = (code !== undefined && REFUNDED.has(code)) || status >= 500;
  const back = refundFor(r.input, r.result, ctx.requestId);
  if (!back) return undefined;
  if (!refundCalls) {
    if (back.fullTextDocId === undefined || !r.openedNoDocument) return undefined;
    back.cost = 0;
    back.monthlyCalls = 0;
  }
  // The metric's reason: what the call was refused or failed with; only the day's document given
  // back (a call that counts) is told apart, as no call came back.
  const reason = refundCalls ? (code ?? String(status)) : 'full_text_slot';
  return giveBack(ctx, deps, back, refundCalls && r.creditsSpent, reason);
}

/**
 * Settlement's only waits: the refund, and the credit given back when a paid call did not count.
 * Two stores, each tried whatever the other did: Redis being down must not keep a purchased credit
 * spent (PostgreSQL), nor the other way round.
 */
async function giveBack(
  ctx: RequestContext,
  deps: GatewayDeps,
  back: RefundInput,
  creditBack: boolean,
  reason: string,
): Promise<void> {
  let refunded = true;
  try {
    await deps.meter.refund(back);
    if (ctx.usage) ctx.usage = usageAfterRefund(ctx.usage, back);
  } catch (err) {
    refunded = false;
    deps.metrics.quotaRefundFailures.inc();
    deps.logger.error({ err, req_id: ctx.requestId, account_id: back.accountId }, 'refund failed');
  }
  if (creditBack) {
    try {
      await deps.credits.refundSpend(back.accountId, ctx.meterId, ctx.requestId);
      if (ctx.creditsLeft !== undefined) ctx.creditsLeft += ctx.reservation!.result.creditCalls;
    } catch (err) {
      refunded = false;
      deps.metrics.quotaRefundFailures.inc();
      deps.logger.error({ err, req_id: ctx.requestId, account_id: back.accountId }, 'credit refund failed');
    }
  }
  if (refunded) deps.metrics.quotaRefunds.inc({ reason });
}
