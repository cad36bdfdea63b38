import type { CompiledDataset, RuntimeConfig } from '../config/compile-config';
import type { ErrorCode } from '../errors/catalogue';
import { fieldPlanFor } from '../gateway/shaping/field-plan';
import { planLabel } from '../config/plan-label';
import { bi, biShort } from './bilingual';
import { errorResponses } from './errors';
import { responseHeaders } from './headers';
import { detailEnvelope, listEnvelope } from './envelope-schemas';
import type { OperationObject, PathItemObject, ResponseObject, SchemaObject } from './openapi-types';
import { ref } from './openapi-types';
import { idParameter, listParameters } from './parameters';
import type { DatasetRecordRefs } from './record-components';
import { pascal } from './record-components';

/**
 * Errors any identified call can meet (route, throttle, auth, allowlist, URL length, internal, and
 * a 503 when the database cannot look up a key not cached yet).
 */
export const CALLER_ERRORS: readonly ErrorCode[] = [
  'unauthorized',
  'email_unverified',
  'ip_not_allowed',
  'invalid_request',
  'too_many_requests',
  'search_unavailable',
  'internal_error',
];

/** Errors of metered dataset calls, in pipeline order. */
const DATASET_ERRORS: readonly ErrorCode[] = [
  ...CALLER_ERRORS,
  'account_restricted',
  'rate_limited',
  'quota_exceeded',
];

export function ok(description: string, schema: SchemaObject): OperationObject['responses'][string] {
  return {
    description,
    headers: responseHeaders({ authenticated: true, retryAfter: 'none' }),
    content: { 'application/json': { schema } },
  };
}

/** Tag of a dataset: its first path segment, so catalogs/* share one group. */
export const tagOf = (ds: CompiledDataset): string => ds.path.split('/')[0]!;

interface OperationContext {
  config: RuntimeConfig;
  /** components.responses being filled (shared error responses). */
  responses: Record<string, ResponseObject>;
  ds: CompiledDataset;
  records: DatasetRecordRefs;
}

/**
 * The plan and cost lines every operation of a dataset shows; with `record`, the field-gating and
 * full-text lines of the operations that answer the record itself (a sub-resource has its own shape).
 */
function planNotes({ config, ds }: OperationContext, minPlan: string, cost: number, record = true): string {
  const gated = (record ? ds.fields : []).map((f) => {
    const plan = planLabel(config.planList[f.minRank]!.name);
    return `\`${f.name}\`: ${plan}+${f.preview ? ' (bản xem trước cho gói thấp hơn / preview below)' : ''}`;
  });
  const lines = [
    `**Gói tối thiểu / Minimum plan:** ${planLabel(minPlan)}${minPlan === config.planList.at(-1)?.name ? '' : '+'}`,
    `**Chi phí / Cost:** ${cost} ${cost === 1 ? 'lượt gọi / call' : 'lượt gọi / calls'}`,
  ];
  if (gated.length > 0) lines.push(`**Trường theo gói / Fields by plan:** ${gated.join('; ')}`);
  if (record && ds.fullTextField) {
    lines.push(
      `**Toàn văn / Full text:** \`${ds.fullTextField}\` tính vào giới hạn văn bản toàn văn mỗi ngày / counts against the daily full-text cap.`,
    );
  }
  return lines.join('\n\n');
}

const planRequired = (rank: number): readonly ErrorCode[] => (rank > 0 ? ['plan_required'] : []);

function listOperation(c: OperationContext): OperationObject {
  const { ds, config } = c;
  const title = biShort(ds.source.title_vi ?? ds.path, ds.source.title ?? ds.path);
  const requireNote =
    ds.requireOneOf.length > 0
      ? `\n\n**Bắt buộc ít nhất một / Required, at least one of:** ${ds.requireOneOf.map((n) => `\`${n}\``).join(', ')} — thiếu → 422 invalid_request / none given → 422 invalid_request.`
      : '';
  const rangeNote = ds.ranges
    .map(
      (r) =>
        `\n\n**Khoảng / Range:** \`${r.from}\` ≤ \`${r.to}\` — ngược lại → 422 invalid_request / otherwise → 422 invalid_request.`,
    )
    .join('');
  const locked = config.planList
    .map((p) => [p, fieldPlanFor(ds, p).locked] as const)
    .filter(([, l]) => l.length > 0);
  return {
    operationId: `list${pascal(ds.path)}`,
    summary: `${title} — tìm kiếm / search`,
    description:
      bi(
        `Tìm kiếm, lọc và phân trang ${ds.source.title_vi ?? ds.path}.`,
        `Search, filter and paginate ${ds.source.title ?? ds.path}.${ds.source.description ? ` ${ds.source.description}` : ''}`,
      ) +
      requireNote +
      rangeNote +
      // A list opens no full text, and the fields datasets.yaml gates by plan are all the detail's.
      `\n\n${planNotes(c, ds.minPlan, ds.cost, false)}`,
    tags: [tagOf(ds)],
    parameters: [...listParameters(ds), ref('parameters', 'page'), ref('parameters', 'per_page')],
    'x-min-plan': ds.minPlan,
    'x-cost': ds.cost,
    ...(ds.requireOneOf.length > 0 ? { 'x-require-one-of': ds.requireOneOf } : {}),
    ...(ds.ranges.length > 0 ? { 'x-ranges': ds.ranges.map(({ from, to }) => ({ from, to })) } : {}),
    ...(locked.length > 0
      ? { 'x-locked-fields-by-plan': Object.fromEntries(locked.map(([p, l]) => [p.name, l])) }
      : {}),
    responses: {
      '200': ok(
        bi('Danh sách bản ghi và thông tin phân trang.', 'Records and pagination.'),
        listEnvelope(c.records.list),
      ),
      ...errorResponses([...DATASET_ERRORS, ...planRequired(ds.minRank), 'page_limit'], config, c.responses),
    },
  };
}

function detailOperation(c: OperationContext): OperationObject {
  const { ds, config } = c;
  const fullText =
    ds.fullTextField !== undefined && config.planList.some((p) => fieldPlanFor(ds, p).fullText);
  return {
    operationId: `get${pascal(ds.path)}`,
    summary: `${biShort(ds.source.title_vi ?? ds.path, ds.source.title ?? ds.path)} — chi tiết / detail`,
    description:
      bi('Một bản ghi, đủ các trường theo gói.', 'One record, every field the plan allows.') +
      `\n\n${planNotes(c, ds.minPlan, ds.cost)}`,
    tags: [tagOf(ds)],
    parameters: [idParameter(ds)],
    'x-min-plan': ds.minPlan,
    'x-cost': ds.cost,
    responses: {
      '200': ok(bi('Bản ghi.', 'The record.'), detailEnvelope(c.records.detail)),
      ...errorResponses(
        [
          ...DATASET_ERRORS,
          ...planRequired(ds.minRank),
          'not_found',
          ...(fullText ? (['full_text_limit'] as const) : []),
        ],
        config,
        c.responses,
      ),
    },
  };
}

function subresourceOperation(c: OperationContext, name: string): OperationObject {
  const { ds, config } = c;
  const sub = ds.subresources.get(name)!;
  const text = ds.source.subresources[name]?.description ?? name;
  const minRank = Math.max(ds.minRank, sub.minRank);
  const minPlan = config.planList[minRank]!.name;
  return {
    operationId: `get${pascal(ds.path)}${pascal(name)}`,
    summary: `${biShort(ds.source.title_vi ?? ds.path, ds.source.title ?? ds.path)} — ${name}`,
    description:
      bi(`Tài nguyên con ${name} của một bản ghi.`, text) + `\n\n${planNotes(c, minPlan, sub.cost, false)}`,
    tags: [tagOf(ds)],
    parameters: [idParameter(ds)],
    'x-min-plan': minPlan,
    'x-cost': sub.cost,
    responses: {
      '200': ok(
        bi(`Dữ liệu ${name}.`, `The ${name} payload.`),
        detailEnvelope(c.records.subresources.get(name)!),
      ),
      ...errorResponses([...DATASET_ERRORS, ...planRequired(minRank), 'not_found'], config, c.responses),
    },
  };
}

/** The path items of one dataset: list, detail (when it has one) and each sub-resource. */
export function datasetPaths(c: OperationContext): Record<string, PathItemObject> {
  const base = `/v1/${c.ds.path}`;
  const out: Record<string, PathItemObject> = { [base]: { get: listOperation(c) } };
  if (!c.ds.detail) return out;
  out[`${base}/{id}`] = { get: detailOperation(c) };
  for (const name of c.ds.subresources.keys())
    out[`${base}/{id}/${name}`] = { get: subresourceOperation(c, name) };
  return out;
}
