import type { Policy, PolicyFactory } from './policy';
import { authenticatePolicy } from './policies/authenticate';
import { ipAllowlistPolicy } from './policies/ip-allowlist';
import { ipThrottlePolicy } from './policies/ip-throttle';
import { meterPolicy } from './policies/meter';
import { planGatePolicy } from './policies/plan-gate';
import { requestIdPolicy } from './policies/request-id';
import { routePolicy } from './policies/route';
import { validatePolicy } from './policies/validate';
import type { RuntimeConfig } from '../config/compile-config';
import type { GatewayDeps } from './deps';

/**
 * The request pipeline, top to bottom (DESIGN §2). Each step passes, fills the context, or ends the
 * request with an error from the catalogue. After these, the request is forwarded (proxy) and the
 * response phase runs: shape response → settle → headers (response/forward-and-shape.ts, response/finish.ts).
 */
export const REQUEST_POLICIES: readonly PolicyFactory[] = [
  requestIdPolicy, //   1. accept a sane X-Request-Id or make one
  ipThrottlePolicy, //  2. per-IP volume, before auth            → 429 too_many_requests
  routePolicy, //       3. /v1/{dataset}[/{id}[/{sub}]], GET only → 404 not_found, 405
  authenticatePolicy, // 4. key → account                        → 401, 403 email_unverified / account_restricted
  ipAllowlistPolicy, // 5. per-key CIDR allowlist                → 403 ip_not_allowed
  planGatePolicy, //    6. dataset / sub-resource min plan       → 403 plan_required
  validatePolicy, //    7. declared parameters, page ceilings    → 422 invalid_request / page_limit
  meterPolicy, //       8. one atomic reservation                → 429 rate_limited / quota_exceeded
  //                        (full_text_limit once the upstream has answered: an unknown id's 404 still counts)
];

export function buildPolicies(config: RuntimeConfig, deps: GatewayDeps): Policy[] {
  return REQUEST_POLICIES.map((factory) => factory(config, deps));
}
