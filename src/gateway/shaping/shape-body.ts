import type { CompiledPlan } from '../../config/compile-config';
import { upstreamUnavailable } from '../proxy/upstream-unavailable';
import type { ResolvedRoute } from '../context';
import { fieldPlanFor } from './field-plan';
import type { FieldPlan } from './field-plan';
import { htmlPreview } from './html-preview';
import { listMeta } from './page-meta';

type Row = Record<string, unknown>;

export interface Shaped {
  body: Record<string, unknown>;
  ids: string[];
}

const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

function lockFields(row: Row, fp: FieldPlan, previewChars: number): Row {
  if (fp.locked.length === 0) return row;
  const out = { ...row };
  for (const f of fp.remove) delete out[f];
  for (const f of fp.preview) {
    const v = out[f];
    if (typeof v === 'string') out[f] = htmlPreview(v, previewChars);
  }
  return out;
}

export interface ShapeInput {
  route: ResolvedRoute;
  plan: CompiledPlan;
  page: number;
  perPage: number;
  previewChars: number;
  upgradeUrl: string;
}

/** Upstream {data,total} / {data} → the reference's envelope, with plan-locked fields handled. */
export function shapeBody(upstream: unknown, s: ShapeInput): Shaped {
  const ds = s.route.dataset!;
  const fp = fieldPlanFor(ds, s.plan);
  if (!isRecord(upstream)) throw upstreamUnavailable();
  if (s.route.kind === 'list') {
    const { data, total } = upstream;
    if (!Array.isArray(data) || typeof total !== 'number' || !Number.isFinite(total))
      throw upstreamUnavailable();
    // One pass: keep the records, lock their fields, collect their ids.
    const rows: Row[] = [];
    const ids: string[] = [];
    for (const item of data) {
      if (!isRecord(item)) continue;
      const row = lockFields(item, fp, s.previewChars);
      rows.push(row);
      if (typeof row.id === 'string') ids.push(row.id);
    }
    return {
      body: {
        success: true,
        data: rows,
        meta: listMeta(s.page, s.perPage, total, s.plan.max_page, fp.locked, s.upgradeUrl),
      },
      ids,
    };
  }
  const { data } = upstream;
  if (!isRecord(data)) throw upstreamUnavailable();
  const record = s.route.kind === 'detail' ? lockFields(data, fp, s.previewChars) : data;
  return {
    body: { success: true, data: record, meta: { locked_fields: fp.locked, upgrade_url: s.upgradeUrl } },
    ids: s.route.kind === 'detail' && s.route.id ? [s.route.id] : [],
  };
}
