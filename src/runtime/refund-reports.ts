import type { GatewayMetrics } from '../observability/gateway-metrics';
import type { Logger } from '../util/logger';
import { errorText } from '../util/error-text';

/** What a kept refund is about: the account whose call or credit it gives back, and the call. */
interface RefundRef {
  accountId: string;
  reqId?: string;
}

/**
 * The reports of a store's kept refunds (the Redis counters', the credit ledger's): one warning
 * when a refund is kept, and a refund failure (metric and error line) when one is given up.
 */
export function refundReports(
  logger: Logger,
  metrics: GatewayMetrics,
  lines: { kept: string; lost: string },
): {
  onRefundKept: (ref: RefundRef, cause: unknown) => void;
  onRefundLost: (ref: RefundRef, cause: unknown) => void;
} {
  return {
    onRefundKept: (ref, cause) =>
      logger.warn({ account_id: ref.accountId, req_id: ref.reqId, err: errorText(cause) }, lines.kept),
    onRefundLost: (ref, cause) => {
      metrics.quotaRefundFailures.inc();
      logger.error({ account_id: ref.accountId, req_id: ref.reqId, err: errorText(cause) }, lines.lost);
    },
  };
}
