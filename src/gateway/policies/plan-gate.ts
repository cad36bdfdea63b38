import { planLabel } from '../../config/plan-label';
import { ApiError } from '../../errors/api-error';
import type { PolicyFactory } from '../policy';

/** Dataset or sub-resource above the caller's plan → 403 plan_required with the pricing page. */
export const planGatePolicy: PolicyFactory = (config) => {
  const upgrade_url = config.raw.plans.upgrade_url;
  return {
    name: 'plan-gate',
    handle(ctx) {
      const { route, principal } = ctx;
      if (!route?.dataset || !principal) return;
      const rank = principal.plan.rank;
      if (rank < route.dataset.minRank) {
        throw new ApiError('plan_required', {
          upgrade_url,
          message: `Tập dữ liệu này yêu cầu gói ${planLabel(route.dataset.minPlan)} trở lên.`,
        });
      }
      if (route.subresource && rank < route.subresource.minRank) {
        throw new ApiError('plan_required', {
          upgrade_url,
          message: `Endpoint này yêu cầu gói ${planLabel(route.subresource.minPlan)} trở lên.`,
        });
      }
    },
  };
};
