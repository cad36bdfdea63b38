import { bi } from './bilingual';
import type { SchemaObject } from './openapi-types';
import { schemaRef } from './openapi-types';

const lockedFields: SchemaObject = {
  type: 'array',
  items: { type: 'string' },
  description: bi(
    'Các trường bị giữ lại hoặc thay bằng bản xem trước do gói hiện tại (ví dụ content_html).',
    'Fields withheld or replaced by a preview because of the caller’s plan (for example content_html).',
  ),
};
const upgradeUrl: SchemaObject = {
  type: 'string',
  format: 'uri',
  description: 'Trang bảng giá / Pricing page.',
};

/** meta of the envelope (src/gateway/shaping/shape-body.ts), list and detail forms. */
export const ENVELOPE_SCHEMAS: Record<string, SchemaObject> = {
  ListMeta: {
    type: 'object',
    description: bi('Thông tin phân trang của danh sách.', 'Pagination of a list response.'),
    additionalProperties: false,
    required: ['page', 'per_page', 'total', 'has_more', 'max_page', 'locked_fields', 'upgrade_url'],
    properties: {
      page: { type: 'integer', minimum: 1, description: 'Trang hiện tại / Current page.' },
      per_page: {
        type: 'integer',
        minimum: 0,
        description:
          'Số bản ghi mỗi trang sau khi áp trần của gói / Effective page size after the plan ceiling.',
      },
      total: { type: 'integer', minimum: 0, description: 'Tổng số bản ghi khớp / Total matching records.' },
      has_more: {
        type: 'boolean',
        description:
          'Còn trang sau và được phép yêu cầu (page < max_page và page × per_page < total) / A further page exists and may be requested.',
      },
      max_page: {
        type: 'integer',
        minimum: 1,
        description: 'Trang cao nhất được phép cho truy vấn / Highest page allowed for the query.',
      },
      locked_fields: lockedFields,
      upgrade_url: upgradeUrl,
    },
  },
  DetailMeta: {
    type: 'object',
    description: bi('Thông tin kèm bản ghi chi tiết.', 'Meta of a detail response.'),
    additionalProperties: false,
    required: ['locked_fields', 'upgrade_url'],
    properties: { locked_fields: lockedFields, upgrade_url: upgradeUrl },
  },
};

/** {success: true, data: [records], meta: ListMeta} */
export function listEnvelope(record: SchemaObject): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['success', 'data', 'meta'],
    properties: {
      success: { const: true },
      data: { type: 'array', items: record },
      meta: schemaRef('ListMeta'),
    },
  };
}

/** {success: true, data: record, meta: DetailMeta} */
export function detailEnvelope(record: SchemaObject): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['success', 'data', 'meta'],
    properties: { success: { const: true }, data: record, meta: schemaRef('DetailMeta') },
  };
}
