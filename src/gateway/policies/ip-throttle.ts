import { RateLimiterMemory } from 'rate-limiter-flexible';
import { ApiError } from '../../errors/api-error';
import type { PolicyFactory } from '../policy';
import { createClientIpResolver } from './client-ip';

/**
 * Each client address's requests in its current minute. Made once per process and passed in, not
 * per config: a reload must not hand every address a fresh minute. It never refuses by itself
 * (the config's limit, which a reload may change, is compared with its count by the policy).
 */
export type IpWindow = RateLimiterMemory;

export function createIpWindow(): IpWindow {
  return new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: 60 });
}

/**
 * Per-IP volume before authentication, so key guessing is throttled too. Counted per replica in
 * memory: a second Redis round trip per call would cost more than a per-replica bound is worth.
 */
export const ipThrottlePolicy: PolicyFactory = (config, deps) => {
  const limit = config.raw.plans.per_ip_per_minute;
  const clientIp = createClientIpResolver(config.trustedProxy);
  return {
    name: 'ip-throttle',
    async handle(ctx) {
      ctx.clientIp = clientIp(ctx.req, ctx.headers.forwardedFor);
      const seen = await deps.ipWindow.consume(ctx.clientIp, 1);
      if (seen.consumedPoints > limit) {
        deps.metrics.quotaRejections.inc({ reason: 'too_many_requests' });
        throw new ApiError('too_many_requests', {
          retryAfter: Math.max(1, Math.ceil(seen.msBeforeNext / 1000)),
        });
      }
    },
  };
};
