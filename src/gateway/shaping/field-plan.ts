import type { CompiledDataset, CompiledPlan } from '../../config/compile-config';
import { fieldPlan } from '../../config/field-plans';
import type { FieldPlan } from '../../config/field-plans';

export type { FieldPlan };

/**
 * What the plan gets of the dataset's plan-gated fields, as compiled with the config; a plan from
 * another config (none on the request path) is worked out on the spot rather than trusted.
 */
export function fieldPlanFor(ds: CompiledDataset, plan: CompiledPlan): FieldPlan {
  return ds.fieldPlans.get(plan.name) ?? fieldPlan(ds.fields, ds.fullTextField, plan);
}
