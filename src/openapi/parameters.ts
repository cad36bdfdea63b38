import type { CompiledDataset, RuntimeConfig } from '../config/compile-config';
import type { ParamSpec } from '../config/datasets-schema';
import type { ParamValidator } from '../config/param-validators';
import { planLabel } from '../config/plan-label';
import { bi } from './bilingual';
import type { ParameterObject, SchemaObject } from './openapi-types';

/**
 * Vietnamese wording for parameter names the built-in datasets use. datasets.yaml carries English
 * descriptions only; a parameter not named here gets a Vietnamese text from its type.
 */
const VI_BY_NAME: Record<string, string> = {
  q: 'Từ khóa tìm kiếm.',
  search_in: 'Tìm trong tên (name) hoặc số hiệu (code).',
  database: 'Cơ sở dữ liệu văn bản.',
  type_id: 'Loại văn bản, lấy từ /v1/catalogs/document-types.',
  field_id: 'Lĩnh vực, lấy từ /v1/catalogs/law-fields.',
  agency_id: 'Cơ quan ban hành, lấy từ /v1/catalogs/agencies?q=.',
  status_id: 'Tình trạng hiệu lực, lấy từ /v1/catalogs/statuses.',
  issued_from: 'Ban hành từ ngày (tính cả ngày này).',
  issued_to: 'Ban hành đến ngày (tính cả ngày này).',
  sort: 'Thứ tự sắp xếp.',
  tax_code: 'Lọc theo mã số thuế.',
  province_code: 'Lọc theo mã tỉnh/thành phố.',
  ward_code: 'Lọc theo mã phường/xã.',
  is_active: 'true: chỉ trả về đơn vị đang hoạt động.',
  code: 'Lọc theo mã.',
  point: 'Tọa độ lat,lng (độ thập phân).',
  list_code: 'Chọn danh mục con.',
};

const VI_BY_TYPE: Record<ParamSpec['type'], string> = {
  string: 'Chuỗi ký tự.',
  integer: 'Số nguyên.',
  boolean: 'true hoặc false.',
  date: 'Ngày dạng YYYY-MM-DD.',
  enum: 'Một trong các giá trị liệt kê.',
  id: 'Mã số nguyên dương.',
  point: 'Tọa độ lat,lng (độ thập phân).',
};

const EN_BY_TYPE: Record<ParamSpec['type'], string> = {
  string: 'Text filter.',
  integer: 'Integer filter.',
  boolean: 'true or false.',
  date: 'Date YYYY-MM-DD.',
  enum: 'One of the listed values.',
  id: 'Positive integer id.',
  point: 'Coordinate lat,lng in decimal degrees.',
};

/** The JSON Schema of what the gateway's validator for this parameter accepts. */
export function paramSchema(spec: ParamSpec): SchemaObject {
  switch (spec.type) {
    case 'string':
      return {
        type: 'string',
        maxLength: spec.max_length,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'integer':
      return {
        type: 'integer',
        ...(spec.min !== undefined ? { minimum: spec.min } : {}),
        ...(spec.max !== undefined ? { maximum: spec.max } : {}),
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'boolean':
      return { type: 'boolean', ...(spec.default !== undefined ? { default: spec.default } : {}) };
    case 'date':
      return {
        type: 'string',
        format: 'date',
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'enum':
      return {
        type: 'string',
        enum: spec.values,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'id':
      return {
        type: 'integer',
        minimum: 1,
        maximum: 2_147_483_647,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case 'point':
      return {
        type: 'string',
        pattern: '^\\s*-?\\d{1,3}(\\.\\d{1,20})?\\s*,\\s*-?\\d{1,3}(\\.\\d{1,20})?\\s*$',
        examples: ['21.0285,105.8542'],
      };
  }
}

function queryParam(v: ParamValidator, requireOneOf: readonly string[]): ParameterObject {
  const vi = VI_BY_NAME[v.name] ?? VI_BY_TYPE[v.spec.type];
  let en = v.spec.description ?? EN_BY_TYPE[v.spec.type];
  let viFull = vi;
  if (requireOneOf.includes(v.name)) {
    viFull += ` Thuộc nhóm bắt buộc có ít nhất một: ${requireOneOf.join(', ')}.`;
    en += ` One of the required-one-of group: ${requireOneOf.join(', ')}.`;
  }
  return {
    name: v.name,
    in: 'query',
    required: false,
    description: bi(viFull, en),
    schema: paramSchema(v.spec),
  };
}

/** Declared list parameters of a dataset, in declaration order. */
export function listParameters(ds: CompiledDataset): ParameterObject[] {
  return [...ds.params.values()].map((v) => queryParam(v, ds.requireOneOf));
}

const perPlan = (config: RuntimeConfig, pick: (p: RuntimeConfig['planList'][number]) => number): string =>
  config.planList.map((p) => `${planLabel(p.name)} ${pick(p)}`).join(', ');

/** page and per_page, shared by every list: their ceilings come from plans.yaml. */
export function paginationParameters(config: RuntimeConfig): Record<'page' | 'per_page', ParameterObject> {
  const maxPage = Object.fromEntries(config.planList.map((p) => [p.name, p.max_page]));
  const perPageMax = Object.fromEntries(config.planList.map((p) => [p.name, p.per_page_max]));
  return {
    page: {
      name: 'page',
      in: 'query',
      required: false,
      description: bi(
        `Số trang, từ 1. Trang tối đa theo gói (meta.max_page): ${perPlan(config, (p) => p.max_page)}. Vượt quá → 422 page_limit.`,
        `Page number, from 1. Highest page per plan (meta.max_page): ${perPlan(config, (p) => p.max_page)}. Beyond it → 422 page_limit.`,
      ),
      schema: { type: 'integer', minimum: 1, default: 1 },
      'x-max-page-by-plan': maxPage,
    },
    per_page: {
      name: 'per_page',
      in: 'query',
      required: false,
      description: bi(
        `Số bản ghi mỗi trang. Trần theo gói: ${perPlan(config, (p) => p.per_page_max)}; giá trị lớn hơn được hạ xuống trần (meta.per_page cho biết giá trị thực).`,
        `Records per page. Ceiling per plan: ${perPlan(config, (p) => p.per_page_max)}; a larger value is lowered to the ceiling silently (meta.per_page tells the effective value).`,
      ),
      schema: { type: 'integer', minimum: 1, default: config.raw.plans.default_per_page },
      'x-per-page-max-by-plan': perPageMax,
    },
  };
}

/** The {id} path parameter of detail and sub-resource endpoints. */
export function idParameter(ds: CompiledDataset): ParameterObject {
  return {
    name: 'id',
    in: 'path',
    required: true,
    description: bi(
      `Mã bản ghi, bắt đầu bằng ${ds.idPrefix}. Mã không tồn tại → 404 not_found (vẫn tính lượt gọi).`,
      `Record id, starting with ${ds.idPrefix}. An unknown id → 404 not_found (the call counts).`,
    ),
    schema: { type: 'string', pattern: `^${ds.idPrefix}[A-Za-z0-9_-]{1,64}$` },
    example: `${ds.idPrefix}example`,
  };
}
