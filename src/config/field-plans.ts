import type { PlanLimits } from './plans-schema';

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

interface GatedField {
  name: string;
  minRank: number;
  preview: boolean;
}

/**
 * A field is granted from its min_plan up; the full-text field also needs a daily full-text
 * allowance (full_text_daily 0 = preview only).
 */
export function fieldPlan(
  fields: readonly GatedField[],
  fullTextField: string | undefined,
  plan: Pick<PlanLimits, 'full_text_daily'> & { rank: number },
): FieldPlan {
  const out: FieldPlan = { remove: [], preview: [], locked: [], fullText: false };
  for (const f of fields) {
    const granted = plan.rank >= f.minRank && (f.name !== fullTextField || plan.full_text_daily > 0);
    if (granted) {
      if (f.name === fullTextField) out.fullText = true;
      continue;
    }
    (f.preview ? out.preview : out.remove).push(f.name);
    out.locked.push(f.name);
  }
  return out;
}
