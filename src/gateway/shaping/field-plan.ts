import type { CompiledDataset, CompiledPlan } from '../../config/compile-config';

/** What one plan gets of one dataset's plan-gated fields. */
export interface FieldPlan {
  /** Fields removed from records. */
  remove: string[];
  /** Fields replaced by an HTML preview. */
  preview: string[];
  /** Every field withheld or previewed: meta.locked_fields. */
  locked: string[];
  /** The plan receives the full text of the dataset's full-text field (so the daily cap applies). */
  fullText: boolean;
}

const cache = new WeakMap<CompiledDataset, Map<string, FieldPlan>>();

/**
 * A field is granted from its min_plan up; the full-text field also needs a daily full-text
 * allowance (full_text_daily 0 = preview only). Computed once per dataset and plan.
 */
export function fieldPlanFor(ds: CompiledDataset, plan: CompiledPlan): FieldPlan {
  let byPlan = cache.get(ds);
  if (!byPlan) cache.set(ds, (byPlan = new Map<string, FieldPlan>()));
  const hit = byPlan.get(plan.name);
  if (hit) return hit;
  const out: FieldPlan = { remove: [], preview: [], locked: [], fullText: false };
  for (const f of ds.fields) {
    const granted = plan.rank >= f.minRank && (f.name !== ds.fullTextField || plan.full_text_daily > 0);
    if (granted) {
      if (f.name === ds.fullTextField) out.fullText = true;
      continue;
    }
    (f.preview ? out.preview : out.remove).push(f.name);
    out.locked.push(f.name);
  }
  byPlan.set(plan.name, out);
  return out;
}
