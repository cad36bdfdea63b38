import type { HeaderObject, RefObject } from './openapi-types';
import { ref } from './openapi-types';

const int = { type: 'string', pattern: '^\\d+$' } as const;

/**
 * Response headers (API reference "Response headers"; DESIGN §2 step 12). Header values are strings
 * on the wire, so numeric ones are described as digit strings. Quota and rate headers are sent on
 * every response to an identified caller, and left out when the counters cannot be read, so they
 * are not required.
 */
export const HEADER_COMPONENTS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description:
      'Mã yêu cầu, dùng khi liên hệ hỗ trợ / Request identifier, to quote when asking for support.',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  'X-Quota-Limit': {
    description: 'Số lượt gọi trong tháng / Calls allowed in the month.',
    schema: { ...int },
  },
  'X-Quota-Remaining': {
    description: 'Số lượt gọi còn lại trong tháng / Calls left in the month.',
    schema: { ...int },
  },
  'X-RateLimit-Limit': {
    description: 'Số yêu cầu mỗi phút của gói / Requests per minute allowed for the plan.',
    schema: { ...int },
  },
  'X-RateLimit-Remaining': {
    description: 'Số yêu cầu còn lại trong phút hiện tại / Requests left in the current minute.',
    schema: { ...int },
  },
  'RateLimit-Policy': {
    description:
      'Chính sách giới hạn (IETF draft-ietf-httpapi-ratelimit-headers): "second", "minute", "day" và "month" / Quota policies (IETF RateLimit fields), one per limit that can refuse a call, e.g. `"second";q=5;w=1, "minute";q=60;w=60, "day";q=2000;w=86400, "month";q=20000;w=2678400`.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'Lượt còn lại và số giây đến khi đặt lại, theo từng chính sách; "month" gồm cả lượt mua thêm còn lại khi đã hết hạn mức tháng / Remaining units and seconds to reset per policy; once the monthly quota is spent and extra credits pay, "month" counts the credits left, e.g. `"second";r=4;t=1, "minute";r=59;t=42, "day";r=1990;t=50400, "month";r=19990;t=864000`.',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Số giây cần chờ trước khi thử lại / Seconds to wait before retrying.',
    required: true,
    schema: { ...int },
  },
  'Cache-Control': {
    description:
      'Phản hồi cho một tài khoản không được lưu đệm / Answers to an identified caller are not to be stored by caches.',
    schema: { type: 'string', enum: ['private, no-store'] },
  },
  'WWW-Authenticate': {
    description: 'Lược đồ xác thực được chấp nhận / The authentication scheme that is accepted (RFC 9110).',
    required: true,
    schema: { type: 'string', enum: ['Bearer'] },
  },
};

const QUOTA_HEADERS = [
  'Cache-Control',
  'X-Quota-Limit',
  'X-Quota-Remaining',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'RateLimit-Policy',
  'RateLimit',
];

/**
 * Headers of one response: X-Request-Id always, Cache-Control and the quota headers when
 * authenticated, Retry-After on 429 and 503, WWW-Authenticate on 401.
 */
export function responseHeaders(opts: {
  authenticated: boolean;
  retryAfter: 'required' | 'none';
  challenge?: boolean;
}): Record<string, HeaderObject | RefObject> {
  const out: Record<string, HeaderObject | RefObject> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  if (opts.authenticated) for (const h of QUOTA_HEADERS) out[h] = ref('headers', h);
  if (opts.retryAfter === 'required') out['Retry-After'] = ref('headers', 'Retry-After');
  if (opts.challenge) out['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
  return out;
}
