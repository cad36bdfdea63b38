import type { RuntimeConfig } from '../config/compile-config';
import { ERROR_CATALOGUE } from '../errors/catalogue';
import type { ErrorCode } from '../errors/catalogue';
import { bi } from './bilingual';
import { responseHeaders } from './headers';
import type { ExampleObject, JsonValue, RefObject, ResponseObject, SchemaObject } from './openapi-types';
import { ref, schemaRef } from './openapi-types';

/** Codes only the admin API returns; the public document leaves them out. */
const ADMIN_ONLY: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'forbidden',
  'conflict',
  'payload_too_large',
  'service_unavailable',
]);

export const PUBLIC_ERROR_CODES: ErrorCode[] = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter(
  (c) => !ADMIN_ONLY.has(c),
);

/** Codes answered before the caller is identified: their responses carry no quota headers. */
const BEFORE_AUTH: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['unauthorized', 'too_many_requests']);

/** The catalogue entry, with the optional fields the gateway adds to that code. */
function exampleBody(code: ErrorCode, config: RuntimeConfig): Record<string, JsonValue> {
  const plans = config.raw.plans;
  const lowest = config.planList[0]!;
  const body: Record<string, JsonValue> = { success: false, code, message: ERROR_CATALOGUE[code].message };
  switch (code) {
    case 'plan_required':
    case 'page_limit':
      return { ...body, upgrade_url: plans.upgrade_url };
    case 'quota_exceeded':
      return { ...body, quota: lowest.daily_calls, reset_in_seconds: 3600, upgrade_url: plans.upgrade_url };
    case 'account_restricted':
      return { ...body, reset_in_seconds: 86_400 };
    case 'full_text_limit': {
      const plan = config.planList.find((p) => p.full_text_daily > 0) ?? lowest;
      return { ...body, quota: plan.full_text_daily, reset_in_seconds: 3600, upgrade_url: plans.upgrade_url };
    }
    default:
      return body;
  }
}

/** components.schemas: the error body and the code list with every status and message. */
export function errorSchemas(): Record<string, SchemaObject> {
  const table = PUBLIC_ERROR_CODES.map(
    (c) => `| ${ERROR_CATALOGUE[c].status} | \`${c}\` | ${ERROR_CATALOGUE[c].message} |`,
  ).join('\n');
  return {
    ErrorCode: {
      type: 'string',
      enum: PUBLIC_ERROR_CODES,
      description: bi('Mã lỗi ổn định, dùng cho máy đọc.', 'Stable machine-readable error code.').concat(
        `\n\n| HTTP | code | message |\n|---|---|---|\n${table}`,
      ),
      'x-error-catalogue': Object.fromEntries(
        PUBLIC_ERROR_CODES.map((c) => [
          c,
          { status: ERROR_CATALOGUE[c].status, message: ERROR_CATALOGUE[c].message },
        ]),
      ),
    },
    ErrorBody: {
      type: 'object',
      description: bi('Thân phản hồi lỗi.', 'Error response body.'),
      additionalProperties: false,
      required: ['success', 'code', 'message'],
      properties: {
        success: { const: false },
        code: schemaRef('ErrorCode'),
        message: { type: 'string', description: 'Thông báo tiếng Việt / Human-readable text in Vietnamese.' },
        quota: { type: 'integer', minimum: 0, description: 'Giới hạn của gói / The plan’s limit.' },
        reset_in_seconds: {
          type: 'integer',
          minimum: 0,
          description:
            'Số giây đến khi đặt lại hạn mức, hoặc đến khi hết khóa (account_restricted) / Seconds until the quota resets, or until the lock ends (account_restricted).',
        },
        upgrade_url: { type: 'string', format: 'uri', description: 'Trang bảng giá / Pricing page.' },
        buy_credits_url: {
          type: 'string',
          format: 'uri',
          description:
            'Mua thêm lượt gọi; có khi đã hết cả hạn mức tháng và lượt mua thêm / Buy extra calls; present when both the monthly quota and extra credits are spent.',
        },
      },
    },
  };
}

/**
 * Error responses of one operation, one per status, the body's `code` narrowed to what it can
 * return. Each distinct response is a component (most operations share them), which keeps the
 * document small.
 */
export function errorResponses(
  codes: readonly ErrorCode[],
  config: RuntimeConfig,
  components: Record<string, ResponseObject>,
): Record<string, RefObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  // Catalogue order, so the same set of codes always gives the same component name.
  const ordered = PUBLIC_ERROR_CODES.filter((c) => codes.includes(c));
  for (const c of ordered) {
    const s = ERROR_CATALOGUE[c].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), c]);
  }
  const out: Record<string, RefObject> = {};
  for (const [status, group] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const name = `Error${status}_${group.join('_')}`;
    out[String(status)] = ref('responses', name);
    if (components[name]) continue;
    const examples: Record<string, ExampleObject> = {};
    for (const c of group) examples[c] = { summary: c, value: exampleBody(c, config) };
    if (group.includes('quota_exceeded') && config.planList.some((p) => p.extra_credits)) {
      examples.quota_exceeded_credits_spent = {
        summary: 'quota_exceeded (monthly quota and extra credits spent)',
        value: {
          ...exampleBody('quota_exceeded', config),
          message: 'Đã dùng hết số lượt gọi trong tháng và số lượt mua thêm (extra credits).',
          buy_credits_url: config.raw.plans.buy_credits_url,
        },
      };
    }
    components[name] = {
      description: group.map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c].message}`).join(' | '),
      headers: responseHeaders({
        authenticated: group.some((c) => !BEFORE_AUTH.has(c)),
        retryAfter: status === 429 || status === 503 ? 'required' : 'none',
        challenge: status === 401,
      }),
      content: {
        'application/json': {
          schema: { allOf: [schemaRef('ErrorBody'), { properties: { code: { enum: group } } }] },
          examples,
        },
      },
    };
  }
  return out;
}
