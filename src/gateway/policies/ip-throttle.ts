import { RateLimiterMemory } from 'rate-limiter-flexible';
import { ApiError } from '../../errors/api-error';
import type { PolicyFactory } from '../policy';
import { createClientIpResolver } from './client-ip';

/**
 * Per-IP volume before authentication, so key guessing is throttled too. Counted per replica in
 * memory: a second Redis round trip per call would cost more than a per-replica bound is worth.
 */
export const ipThrottlePolicy: PolicyFactory = (config, deps) => {
  const limiter = new RateLimiterMemory({ points: config.raw.plans.per_ip_per_minute, duration: 60 });
  const clientIp = createClientIpResolver(config.trustedProxy);
  return {
    name: 'ip-throttle',
    async handle(ctx) {
      ctx.clientIp = clientIp(ctx.req, ctx.headers.forwardedFor);
      try {
        await limiter.consume(ctx.clientIp, 1);
      } catch (rej) {
        const ms = (rej as { msBeforeNext?: number }).msBeforeNext ?? 60_000;
        deps.metrics.quotaRejections.inc({ reason: 'too_many_requests' });
        throw new ApiError('too_many_requests', { retryAfter: Math.ceil(ms / 1000) });
      }
    },
  };
};
