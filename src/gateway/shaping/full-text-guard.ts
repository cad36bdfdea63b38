import { htmlPreview } from './html-preview';

type Row = Record<string, unknown>;

/** The dataset's full-text field, as it may appear anywhere but at the top of a detail record. */
export interface FullTextRule {
  name: string;
  /** Whether the field is previewed where it is locked; otherwise it is removed. */
  preview: boolean;
  previewChars: number;
}

// Deeper than any record a dataset serves (legal: a detail's relations hold documents at 2), and
// bounded, since an answer may nest further than the stack goes (the stub's *_deep record). Below
// it the field is not looked for: an upstream would have to nest a document nine levels down.
const MAX_DEPTH = 8;

/**
 * `value` with the full-text field never whole from `from` levels down (0: the object itself, 1:
 * the objects it holds): a preview or removed. Only the detail opens a document against the daily
 * full-text cap, so a list row, a sub-resource, or a document nested in a record must not hand one
 * out. Copy on write: `value` itself when nothing is there, as with every shipped upstream.
 */
export function guardFullText(value: unknown, rule: FullTextRule, from: number, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = value as unknown[];
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const g = guardFullText(items[i], rule, from, depth + 1);
      if (g !== items[i]) (out ??= items.slice())[i] = g;
    }
    return out ?? items;
  }
  const row = value as Row;
  let out: Row | undefined;
  for (const k in row) {
    const v = row[k];
    // null is no text: left as it is, as the plan rules leave it.
    if (k === rule.name && depth >= from && v !== null && v !== undefined) {
      out ??= { ...row };
      if (rule.preview && typeof v === 'string') out[k] = htmlPreview(v, rule.previewChars);
      else delete out[k];
    } else if (typeof v === 'object' && v !== null) {
      const g = guardFullText(v, rule, from, depth + 1);
      if (g !== v) (out ??= { ...row })[k] = g;
    }
  }
  return out ?? row;
}
