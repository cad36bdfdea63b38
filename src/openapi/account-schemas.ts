import { bi } from './bilingual';
import type { SchemaObject } from './openapi-types';
import { schemaRef } from './openapi-types';

const int = (description: string): SchemaObject => ({ type: 'integer', minimum: 0, description });
const closed = (properties: Record<string, SchemaObject>, description: string): SchemaObject => ({
  type: 'object',
  description,
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

/** GET /v1/me (src/gateway/response/account-endpoints.ts answerMe). */
const me = closed(
  {
    account: closed(
      {
        id: { type: 'string' },
        email: { type: 'string', format: 'email' },
        email_verified: { type: 'boolean' },
        restricted: {
          type: 'boolean',
          description: 'API đang bị tạm khóa / API temporarily locked (403 account_restricted).',
        },
        restricted_until: { type: ['string', 'null'], format: 'date-time' },
      },
      'Tài khoản / Account.',
    ),
    plan: { type: 'string', description: 'Gói hiện tại (xem x-plans) / Current plan (see x-plans).' },
    extra_credits: int('Số lượt gọi mua thêm còn lại / Purchased extra calls left.'),
    quota: closed(
      {
        monthly_limit: int('Lượt gọi mỗi tháng / Calls per month.'),
        monthly_used: int('Đã dùng trong tháng / Used this month.'),
        monthly_remaining: int('Còn lại trong tháng / Left this month.'),
        monthly_reset_in_seconds: int('Giây đến khi đặt lại hạn mức tháng / Seconds to the monthly reset.'),
        daily_limit: int('Lượt gọi mỗi ngày / Calls per day.'),
        daily_used: int('Đã dùng hôm nay / Used today.'),
        daily_remaining: int('Còn lại hôm nay / Left today.'),
        daily_reset_in_seconds: int('Giây đến khi đặt lại hạn mức ngày / Seconds to the daily reset.'),
        per_minute_limit: int('Yêu cầu mỗi phút / Requests per minute.'),
        per_minute_remaining: int('Còn lại trong phút này / Left this minute.'),
        per_second_limit: int('Yêu cầu mỗi giây / Requests per second.'),
        full_text_daily_limit: int('Số văn bản toàn văn mỗi ngày / Full-text documents per day.'),
        full_text_used_today: int('Số văn bản toàn văn đã xem hôm nay / Full-text documents opened today.'),
        per_page_max: int('Trần per_page / per_page ceiling.'),
        max_page: int('Trang tối đa / Highest page.'),
      },
      'Hạn mức / Quota summary.',
    ),
    key: closed(
      {
        id: { type: 'string' },
        expires_at: { type: ['string', 'null'], format: 'date-time' },
        ip_allowlist: { type: 'array', items: { type: 'string' } },
      },
      'Key đang dùng / The key used for this call.',
    ),
    timezone: { type: 'string', description: 'Múi giờ đặt lại hạn mức / Time zone of the resets.' },
  },
  bi('Tóm tắt hạn mức của tài khoản.', 'Account quota summary.'),
);

/** One entry of GET /v1/datasets (answerDatasets). */
const datasetInfo = closed(
  {
    path: { type: 'string', description: 'Đường dẫn / Path, e.g. /v1/legal-documents.' },
    id_prefix: {
      type: ['string', 'null'],
      description:
        'Tiền tố của mọi id; null với danh mục mà mục được gọi bằng id riêng (số hoặc mã) / Prefix of every id; null for a catalogue whose items go by their own ids (integers or codes).',
    },
    title: { type: 'string' },
    title_vi: { type: ['string', 'null'] },
    min_plan: { type: 'string' },
    detail: { type: 'boolean', description: 'Có endpoint chi tiết / Has a detail endpoint.' },
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type'],
        properties: {
          name: { type: 'string' },
          type: { type: 'string', enum: ['string', 'integer', 'boolean', 'date', 'enum', 'id', 'point'] },
          values: { type: 'array', items: { type: 'string' } },
          default: { type: 'string' },
        },
      },
    },
    require_one_of: { type: 'array', items: { type: 'string' } },
    ranges: {
      type: 'array',
      description: bi(
        'Cặp tham số mà from không được sau to.',
        'Parameter pairs where from may not be after to.',
      ),
      items: closed({ from: { type: 'string' }, to: { type: 'string' } }, 'Khoảng / Range.'),
    },
    locked_fields: { type: 'array', items: { type: 'string' } },
    subresources: {
      type: 'array',
      items: closed(
        {
          name: { type: 'string' },
          min_plan: { type: 'string' },
          cost: { type: 'integer', minimum: 0 },
          available: { type: 'boolean' },
        },
        'Tài nguyên con / Sub-resource.',
      ),
    },
  },
  bi('Một tập dữ liệu mà gói hiện tại dùng được.', 'A dataset available to the caller’s plan.'),
);

export const ACCOUNT_SCHEMAS: Record<string, SchemaObject> = {
  Me: me,
  DatasetInfo: datasetInfo,
  MeResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['success', 'data'],
    properties: { success: { const: true }, data: schemaRef('Me') },
  },
  DatasetsResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['success', 'data', 'meta'],
    properties: {
      success: { const: true },
      data: { type: 'array', items: schemaRef('DatasetInfo') },
      meta: schemaRef('ListMeta'),
    },
  },
};
