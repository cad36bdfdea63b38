/**
 * The one error catalogue: every code the API can return, its HTTP status and its Vietnamese message.
 * Codes are stable for machine use (API reference, Versioning); adding one is a product decision.
 */
export const ERROR_CATALOGUE = {
  unauthorized: { status: 401, message: 'API key không hợp lệ, đã hết hạn, đã bị thu hồi hoặc bị thiếu.' },
  plan_required: { status: 403, message: 'Tập dữ liệu hoặc endpoint này yêu cầu gói dịch vụ cao hơn.' },
  ip_not_allowed: { status: 403, message: 'Địa chỉ IP gọi API không nằm trong danh sách được phép của key.' },
  email_unverified: { status: 403, message: 'Email của tài khoản chưa được xác minh.' },
  account_restricted: {
    status: 403,
    message: 'API tạm thời bị khóa do truy cập bất thường (ví dụ: khai thác một phần lớn tập dữ liệu).',
  },
  not_found: { status: 404, message: 'Không tìm thấy bản ghi hoặc endpoint.' },
  method_not_allowed: { status: 405, message: 'Chỉ hỗ trợ phương thức GET.' },
  invalid_request: { status: 422, message: 'Tham số không hợp lệ hoặc thiếu tham số bắt buộc.' },
  page_limit: { status: 422, message: 'Số trang vượt quá giới hạn số trang cho phép của gói dịch vụ.' },
  rate_limited: {
    status: 429,
    message: 'Vượt quá số yêu cầu cho phép mỗi giây hoặc mỗi phút. Vui lòng thử lại sau.',
  },
  quota_exceeded: { status: 429, message: 'Đã dùng hết số lượt gọi trong ngày hoặc trong tháng.' },
  full_text_limit: { status: 429, message: 'Đã dùng hết số văn bản toàn văn được xem trong ngày.' },
  too_many_requests: { status: 429, message: 'Quá nhiều yêu cầu từ một địa chỉ IP.' },
  search_unavailable: { status: 503, message: 'Dịch vụ tra cứu tạm thời gián đoạn, vui lòng thử lại sau.' },
  // The admin API's 503: the public API has one 503 code, search_unavailable (API reference, Errors).
  service_unavailable: { status: 503, message: 'Dịch vụ tạm thời gián đoạn, vui lòng thử lại sau.' },
  forbidden: { status: 403, message: 'Token quản trị không có quyền thực hiện thao tác này.' },
  conflict: { status: 409, message: 'Yêu cầu xung đột với dữ liệu hiện có.' },
  payload_too_large: { status: 413, message: 'Nội dung yêu cầu quá lớn.' },
  internal_error: { status: 500, message: 'Lỗi hệ thống. Vui lòng thử lại sau.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Headers a code always carries: a 401 names the scheme that would succeed (RFC 9110 §15.5.2 makes
 * WWW-Authenticate mandatory on 401; both the public API and the admin API take a Bearer token),
 * and a 405 the methods there are (§15.5.6 makes Allow mandatory; the public API has only GET).
 */
export const ERROR_HEADERS: Partial<Record<ErrorCode, Readonly<Record<string, string>>>> = {
  unauthorized: { 'WWW-Authenticate': 'Bearer' },
  method_not_allowed: { Allow: 'GET' },
};

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
