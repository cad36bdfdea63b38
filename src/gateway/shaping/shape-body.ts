import type { CompiledDataset, CompiledPlan } from '../../config/compile-config';
import type { ResolvedRoute } from '../context';
import { fieldPlanFor } from './field-plan';
import type { FieldPlan } from './field-plan';
import { guardFullText } from './full-text-guard';
import type { FullTextRule } from './full-text-guard';
import { htmlPreview } from './html-preview';
import { listMeta } from './page-meta';

type Row = Record<string, unknown>;

export interface Shaped {
  body: Record<string, unknown>;
  ids: string[];
  /** Something the upstream got wrong that the gateway mended (logged, not shown to the caller). */
  mended?: string;
}

/** An upstream answer outside the contract (DESIGN §4): the caller gets a 503, the log the reason. */
export class MalformedAnswer extends Error {}

/** A JSON object: not null, not an array (what the upstream contract calls a record). */
export const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

function lockFields(row: Row, fp: FieldPlan, previewChars: number): Row {
  if (fp.locked.length === 0) return row;
  const out = { ...row };
  for (const f of fp.remove) delete out[f];
  for (const f of fp.preview) {
    const v = out[f];
    if (typeof v === 'string') out[f] = htmlPreview(v, previewChars);
    // No preview can be made of anything else, and the field is locked: withheld, never whole.
    else if (v !== null && v !== undefined) delete out[f];
  }
  return out;
}

function fullTextRule(ds: CompiledDataset, previewChars: number): FullTextRule | undefined {
  const name = ds.fullTextField;
  if (name === undefined) return undefined;
  return { name, preview: ds.fullTextPreview, previewChars };
}

/**
 * A list row's or a sub-resource's record: the plan's field rules as on the detail, and the
 * full-text field never in full, since only the detail opens a document against the daily cap.
 * `withheld`: the plan has the full text and the record's own field was cut for that reason.
 */
function shapeOutsideDetail(data: Row, fp: FieldPlan, rule: FullTextRule | undefined, previewChars: number) {
  const record = lockFields(data, fp, previewChars);
  if (!rule) return { record, withheld: false };
  // Below the plan: lockFields has made the record's own a preview already.
  const from = fp.fullText ? 0 : 1;
  return {
    record: guardFullText(record, rule, from) as Row,
    withheld: fp.fullText && record[rule.name] !== null && record[rule.name] !== undefined,
  };
}

/**
 * Ids of the dataset's own records inside a record (legal: the related documents of a detail and
 * of its relations), so that walking the graph from record to record counts for the bulk watch as
 * listing them would. Only ids with the dataset's prefix can be told apart from catalogue ids.
 */
function nestedIds(value: unknown, prefix: string, into: string[], depth = 0): void {
  if (prefix === '' || depth > 3 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const v of value) nestedIds(v, prefix, into, depth + 1);
    return;
  }
  const id = (value as Row).id;
  if (depth > 0 && typeof id === 'string' && id.startsWith(prefix)) into.push(id);
  for (const v of Object.values(value)) if (typeof v === 'object') nestedIds(v, prefix, into, depth + 1);
}

const withheldToo = (locked: string[], withheld: boolean, rule: FullTextRule | undefined): string[] =>
  withheld && rule ? [...locked, rule.name] : locked;

export interface ShapeInput {
  route: ResolvedRoute;
  plan: CompiledPlan;
  page: number;
  perPage: number;
  previewChars: number;
  upgradeUrl: string;
  /** false: the answer cannot hold the full-text field, and no record is walked for it. */
  fullTextSeen?: boolean;
}

/** Upstream {data,total} / {data} → the reference's envelope, with plan-locked fields handled. */
export function shapeBody(upstream: unknown, s: ShapeInput): Shaped {
  const ds = s.route.dataset!;
  const fp = fieldPlanFor(ds, s.plan);
  const rule = s.fullTextSeen === false ? undefined : fullTextRule(ds, s.previewChars);
  if (!isRecord(upstream)) throw new MalformedAnswer('body is not a JSON object');
  if (s.route.kind === 'list') {
    const { data, total } = upstream;
    if (!Array.isArray(data)) throw new MalformedAnswer('list data is not an array');
    if (!Number.isSafeInteger(total) || (total as number) < 0)
      throw new MalformedAnswer('list total is not a non-negative integer');
    // One pass: keep the records, lock their fields, collect their ids. Never more than the page
    // the caller may have: an upstream that ignores per_page must not hand out a plan's ceiling.
    const rows: Row[] = [];
    const ids: string[] = [];
    let mended: string | undefined;
    let withheld = false;
    for (const item of data) {
      if (!isRecord(item)) throw new MalformedAnswer('a list row is not a JSON object');
      if (rows.length === s.perPage) {
        mended = `list cut to per_page ${s.perPage} from ${data.length} rows`;
        break;
      }
      const shaped = shapeOutsideDetail(item, fp, rule, s.previewChars);
      const row = shaped.record;
      withheld ||= shaped.withheld;
      rows.push(row);
      if (typeof row.id === 'string') ids.push(row.id);
    }
    return {
      body: {
        success: true,
        data: rows,
        meta: listMeta(
          s.page,
          s.perPage,
          total as number,
          s.plan.max_page,
          withheldToo(fp.locked, withheld, rule),
          s.upgradeUrl,
        ),
      },
      ids,
      mended,
    };
  }
  const { data } = upstream;
  if (!isRecord(data)) throw new MalformedAnswer(`${s.route.kind} data is not a JSON object`);
  let record: Row;
  let locked = fp.locked;
  if (s.route.kind === 'detail') {
    record = lockFields(data, fp, s.previewChars);
    // The record's own full text is the one the cap counted; one nested in it (a related document's) is not.
    if (rule) record = guardFullText(record, rule, 1) as Row;
  } else {
    const shaped = shapeOutsideDetail(data, fp, rule, s.previewChars);
    record = shaped.record;
    locked = withheldToo(locked, shaped.withheld, rule);
  }
  // The record asked for (a sub-resource does not show it), and the records of the dataset it shows.
  const ids = s.route.kind === 'detail' && s.route.id ? [s.route.id] : [];
  if (ds.idPrefix !== undefined) nestedIds(record, ds.idPrefix, ids);
  return {
    body: { success: true, data: record, meta: { locked_fields: locked, upgrade_url: s.upgradeUrl } },
    ids,
  };
}
